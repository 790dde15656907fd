"""The agent's step records: one per step of its loop (runs/<run_id>/steps/<NNN>.json, schema bakeoff.step/1). The
loop's summary on its `agent` stage record is the neutral bakeoff.records.LoopSummary; the readers below the
scaffolds see a step as bakeoff.records.LoopStep and get `StepRecord.from_json` handed down (Agent.read_step).

A step is one model turn and the tool calls it made: what was sent (the messages added since the previous
step: the conversation is the steps' messages in order), the answer and its capture audit, each call with its
result, the files the step changed, its commit, its times, and the budgets used once it was done. A step whose
record exists is never run again: a killed batch continues at the next one, from that step's commit.
"""

from __future__ import annotations

from dataclasses import dataclass

from bakeoff.records import CaptureReason, LoopEnd, LoopUsage
from bakeoff.records.codec import JsonRecord, TopRecord
from bakeoff.records.parts import Capture, Command, Commit, CompletionRecord, FileWritten, Prompt, Timings

STEP_SCHEMA = "bakeoff.step/1"


@dataclass(frozen=True)
class ToolResult(JsonRecord):
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


@dataclass(frozen=True)
class StepRecord(TopRecord):
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
    SCHEMA = STEP_SCHEMA
    READ_DEFAULTS = {"run_id": "", "completion": None, "capture": None, "results": [], "files_changed": [], "usage": {}}

    @property
    def submitted(self) -> bool:
        return self.ended_by == LoopEnd.SUBMIT

