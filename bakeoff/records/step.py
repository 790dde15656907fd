"""An agent's records: one per step of its loop (runs/<run_id>/steps/<NNN>.json, schema bakeoff.step/1), and the
loop's summary on its `agent` stage record.

A step is one model turn and the tool calls it made: what was sent (the messages added since the previous
step: the conversation is the steps' messages in order), the answer and its capture audit, each call with its
result, the files the step changed, its commit, its times, and the budgets used once it was done. A step whose
record exists is never run again: a killed batch continues at the next one, from that step's commit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.records.enums import CaptureReason, LoopEnd
from bakeoff.records.jsonio import JsonObject, as_list, as_object, items, optional, optional_enum, read_record, required
from bakeoff.records.parts import Capture, Command, Commit, CompletionRecord, FileWritten, Prompt, Timings

STEP_SCHEMA = "bakeoff.step/1"
STEP_SCHEMAS = (STEP_SCHEMA,)


@dataclass(frozen=True)
class ToolResult:
    """What one call did: the tool, whether it was usable and did its work, and what the model was shown.

    `problem` is the capture audit's reason for a call that was not run (unknown_tool, bad_arguments,
    malformed_call); `command` is the sandbox execution of a `run` call; `files_written` a write's."""

    tool: str
    ok: bool
    shown: str  # the tool result as the model got it
    problem: CaptureReason | None = None
    command: Command | None = None
    files_written: tuple[FileWritten, ...] = ()
    cpu_s: float = 0.0  # sandbox CPU seconds the command used (measured, or its wall time where not)
    cpu_measured: bool = False

    def to_json(self) -> JsonObject:
        return {"tool": self.tool, "ok": self.ok, "shown": self.shown, "problem": self.problem,
                "command": self.command.to_json() if self.command is not None else None,
                "files_written": [f.to_json() for f in self.files_written], "cpu_s": self.cpu_s,
                "cpu_measured": self.cpu_measured}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ToolResult:
        required(data, "tool", "ok")
        return cls(str(data["tool"]), bool(data["ok"]), str(data.get("shown") or ""),
                   optional_enum(CaptureReason, data.get("problem"), "result.problem"),
                   optional(Command.from_json, data.get("command"), "result.command"),
                   items(FileWritten.from_json, data.get("files_written"), "result.files_written"),
                   float(data.get("cpu_s") or 0.0), bool(data.get("cpu_measured")))


@dataclass(frozen=True)
class LoopUsage:
    """What the loop has used so far, against its budgets."""

    steps: int = 0
    tokens: int = 0  # generated: answer and reasoning
    wall_s: float = 0.0
    cpu_s: float = 0.0

    def to_json(self) -> JsonObject:
        return {"steps": self.steps, "tokens": self.tokens, "wall_s": self.wall_s, "cpu_s": self.cpu_s}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LoopUsage:
        return cls(int(data.get("steps") or 0), int(data.get("tokens") or 0), float(data.get("wall_s") or 0.0),
                   float(data.get("cpu_s") or 0.0))


@dataclass(frozen=True)
class StepRecord:
    run_id: str
    step: int  # 1-based
    prompt: Prompt  # key agent#<step>; the messages added by this step (the first step's: system and task)
    completion: CompletionRecord | None
    capture: Capture | None
    results: tuple[ToolResult, ...]  # one per call of the completion, in order
    files_changed: tuple[str, ...]  # paths that differ from the previous step's commit
    commit: Commit
    timings: Timings
    usage: LoopUsage  # after this step
    ended_by: LoopEnd | None = None  # set on a step that ended the loop itself (submit, an answer that never came)
    harness_error: str | None = None

    @property
    def submitted(self) -> bool:
        return self.ended_by == LoopEnd.SUBMIT

    def to_json(self) -> JsonObject:
        return {
            "schema": STEP_SCHEMA, "run_id": self.run_id, "step": self.step, "prompt": self.prompt.to_json(),
            "completion": self.completion.to_json() if self.completion is not None else None,
            "capture": self.capture.to_json() if self.capture is not None else None,
            "results": [r.to_json() for r in self.results], "files_changed": list(self.files_changed),
            "commit": self.commit.to_json(), "timings": self.timings.to_json(), "usage": self.usage.to_json(),
            "ended_by": self.ended_by, "harness_error": self.harness_error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "") -> StepRecord:
        return read_record(data, ("step", "prompt", "commit", "timings"), STEP_SCHEMAS, where, cls._read, "step")

    @classmethod
    def _read(cls, data: Mapping[str, Any]) -> StepRecord:
        return cls(
            run_id=data.get("run_id") or "", step=int(data["step"]),
            prompt=Prompt.from_json(as_object(data["prompt"], "prompt")),
            completion=optional(CompletionRecord.from_json, data.get("completion"), "completion"),
            capture=optional(Capture.from_json, data.get("capture"), "capture"),
            results=items(ToolResult.from_json, data.get("results"), "results"),
            files_changed=tuple(str(p) for p in as_list(data.get("files_changed"), "files_changed")),
            commit=Commit.from_json(as_object(data["commit"], "commit")),
            timings=Timings.from_json(as_object(data["timings"], "timings")),
            usage=LoopUsage.from_json(as_object(data.get("usage") or {}, "usage")),
            ended_by=optional_enum(LoopEnd, data.get("ended_by"), "ended_by"),
            harness_error=data.get("harness_error"),
        )


@dataclass(frozen=True)
class AgentLoop:
    """The loop's summary, on its `agent` stage record: how it ended, what it used, and its budgets."""

    ended_by: LoopEnd
    usage: LoopUsage
    budgets: Mapping[str, float] = field(default_factory=dict)  # steps, tokens, wall_s, cpu_s
    own_code_runs: int = 0  # `run` calls, before the end, of a file the agent had written
    first_own_run: int | None = None  # the step that first ran the agent's own code
    tool_syntax: str = ""  # how the model's calls were read (bakeoff.models.tools.ToolSyntax)

    def to_json(self) -> JsonObject:
        return {"ended_by": self.ended_by, "usage": self.usage.to_json(), "budgets": dict(self.budgets),
                "own_code_runs": self.own_code_runs, "first_own_run": self.first_own_run,
                "tool_syntax": self.tool_syntax}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AgentLoop:
        required(data, "ended_by")
        ended = optional_enum(LoopEnd, data["ended_by"], "loop.ended_by")
        return cls(ended or LoopEnd.STEPS, LoopUsage.from_json(as_object(data.get("usage") or {}, "loop.usage")),
                   dict(as_object(data.get("budgets") or {}, "loop.budgets")), int(data.get("own_code_runs") or 0),
                   data.get("first_own_run"), str(data.get("tool_syntax") or ""))
