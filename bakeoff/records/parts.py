"""The small parts of a stage record: prompt, completion, capture, files, commands, commit, timings, claim.

Each part's `to_json` gives exactly the object docs/records.md describes (a key that is written only
in some cases, such as a capture's `budget_cut`, is left out in the others, as it always was).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict

from bakeoff.models.tools import ToolCall
from bakeoff.records.enums import CaptureReason, CaptureStatus, ClaimSource, CrashClass, LadderStatus
from bakeoff.records.errors import DamagedRecord
from bakeoff.records.jsonio import JsonObject, as_list, as_object, enum_value, items, optional_enum, required


@dataclass(frozen=True)
class Capture:
    """The capture audit of one answer (bakeoff.answers.audit)."""

    status: CaptureStatus
    reason: CaptureReason
    detail: str = ""
    # For a cut answer: True when the harness's token budget ended it, False when something else did
    # (the context filled up); None when nothing was cut or the budget is unknown (then not written).
    budget_cut: bool | None = None

    @property
    def graded(self) -> bool:
        """Uncaptured answers are never graded; captured and unusable ones are."""
        return self.status != CaptureStatus.UNCAPTURED

    @property
    def captured(self) -> bool:
        return self.status == CaptureStatus.CAPTURED

    def to_json(self) -> JsonObject:
        data: JsonObject = {"status": self.status, "reason": self.reason, "detail": self.detail}
        if self.budget_cut is not None:
            data["budget_cut"] = self.budget_cut
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Capture:
        required(data, "status", "reason")
        return cls(enum_value(CaptureStatus, data["status"], "capture.status"),
                   enum_value(CaptureReason, data["reason"], "capture.reason"),
                   data.get("detail") or "", data.get("budget_cut"))


@dataclass(frozen=True)
class PromptMessage:
    """One message sent; an agent's turns also carry their tool calls, or the call they answer (written
    only when set)."""

    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    name: str = ""

    def to_json(self) -> JsonObject:
        data: JsonObject = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id:
            data["tool_call_id"] = self.tool_call_id
        if self.name:
            data["name"] = self.name
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PromptMessage:
        return cls(data["role"], data["content"], tool_calls_of(data.get("tool_calls"), "prompt.messages.tool_calls"),
                   data.get("tool_call_id") or "", data.get("name") or "")


def tool_calls_of(value: Any, name: str) -> tuple[ToolCall, ...]:
    return tuple(ToolCall.from_dict(as_object(item, name)) for item in as_list(value, name))


@dataclass(frozen=True)
class PromptCut:
    """A part of the prompt shortened to fit the context budget."""

    part: str
    original_chars: int
    kept_chars: int

    def to_json(self) -> JsonObject:
        return {"part": self.part, "original_chars": self.original_chars, "kept_chars": self.kept_chars}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PromptCut:
        return cls(data["part"], data["original_chars"], data["kept_chars"])


@dataclass(frozen=True)
class Prompt:
    """The conversation sent to the model for one turn."""

    key: str
    messages: tuple[PromptMessage, ...]
    chars: int
    shared_prefix_chars: int
    cut: tuple[PromptCut, ...] = ()

    def to_json(self) -> JsonObject:
        return {"key": self.key, "messages": [m.to_json() for m in self.messages], "chars": self.chars,
                "shared_prefix_chars": self.shared_prefix_chars, "cut": [c.to_json() for c in self.cut]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Prompt:
        required(data, "key", "messages")
        messages = items(PromptMessage.from_json, data["messages"], "prompt.messages")
        return cls(data["key"], messages, data.get("chars", sum(len(m.content) for m in messages)),
                   data.get("shared_prefix_chars", 0), items(PromptCut.from_json, data.get("cut"), "prompt.cut"))


@dataclass(frozen=True)
class CompletionRecord:
    """The model's answer as a record keeps it (the fields of bakeoff.models.base.Completion)."""

    text: str
    finish_reason: str  # stop, length or error
    prompt_tokens: int
    completion_tokens: int
    prompt_seconds: float
    generation_seconds: float
    backend: str
    error: str | None = None
    cached_prompt_tokens: int = 0
    model_info: Mapping[str, Any] = field(default_factory=dict)
    error_kind: str | None = None
    reasoning: str = ""
    reasoning_tokens: int = 0
    reasoning_unfinished: bool = False
    token_budget: int | None = None
    tool_calls: tuple[ToolCall, ...] = ()  # an agent's step: the calls read from the answer (written when any)
    prompt_floor: int | None = None  # bakeoff's own count of the prompt sent (a floor; None: not counted)
    context_filled: bool = False  # the server's context filled before the answer's budget ran out

    @property
    def answer_tokens(self) -> int:
        """The generated tokens that were the answer (completion_tokens counts the reasoning too)."""
        return max(0, int(self.completion_tokens or 0) - int(self.reasoning_tokens or 0))

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "text": self.text, "finish_reason": self.finish_reason, "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens, "prompt_seconds": self.prompt_seconds,
            "generation_seconds": self.generation_seconds, "backend": self.backend, "error": self.error,
            "cached_prompt_tokens": self.cached_prompt_tokens, "model_info": dict(self.model_info),
            "error_kind": self.error_kind, "reasoning": self.reasoning, "reasoning_tokens": self.reasoning_tokens,
            "reasoning_unfinished": self.reasoning_unfinished, "token_budget": self.token_budget}
        if self.prompt_floor is not None:  # written when counted: a record of the old code writes back the same
            data["prompt_floor"] = self.prompt_floor
        if self.context_filled:
            data["context_filled"] = True
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CompletionRecord:
        required(data, "text", "finish_reason")
        return cls(
            text=data["text"], finish_reason=data["finish_reason"], prompt_tokens=data.get("prompt_tokens") or 0,
            completion_tokens=data.get("completion_tokens") or 0, prompt_seconds=data.get("prompt_seconds") or 0.0,
            generation_seconds=data.get("generation_seconds") or 0.0, backend=data.get("backend") or "",
            error=data.get("error"), cached_prompt_tokens=data.get("cached_prompt_tokens") or 0,
            model_info=dict(data.get("model_info") or {}), error_kind=data.get("error_kind"),
            reasoning=data.get("reasoning") or "", reasoning_tokens=data.get("reasoning_tokens") or 0,
            reasoning_unfinished=bool(data.get("reasoning_unfinished")), token_budget=data.get("token_budget"),
            tool_calls=tool_calls_of(data.get("tool_calls"), "completion.tool_calls"),
            prompt_floor=data.get("prompt_floor"), context_filled=data.get("context_filled") is True,
        )

    @property
    def generated_tokens(self) -> int:
        """Every token the model generated for this answer (completion_tokens counts the reasoning too)."""
        return int(self.completion_tokens or 0)


@dataclass(frozen=True)
class FileWritten:
    """A file the harness wrote into the repo from an answer; `refused` says why one was not written."""

    path: str
    bytes: int
    sha256: str | None
    refused: str | None = None

    def to_json(self) -> JsonObject:
        data: JsonObject = {"path": self.path, "bytes": self.bytes, "sha256": self.sha256}
        if self.refused is not None:
            data["refused"] = self.refused
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FileWritten:
        return cls(data["path"], data["bytes"], data.get("sha256"), data.get("refused"))


def crash_class_of(value: Any, name: str) -> CrashClass | LadderStatus:
    """A command's crash class: from the vocabulary, or the grading status where no class applies (bad_output)."""
    if value in CrashClass._value2member_map_:
        return CrashClass(value)
    if value in LadderStatus._value2member_map_:
        return LadderStatus(value)
    raise DamagedRecord(f"'{name}' is {value!r}, neither a crash class nor a grading status")


@dataclass(frozen=True)
class Crash:
    crash_class: CrashClass | LadderStatus
    detail: str | None
    traceback_tail: str | None

    def to_json(self) -> JsonObject:
        return {"crash_class": self.crash_class, "detail": self.detail, "traceback_tail": self.traceback_tail}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Crash:
        return cls(crash_class_of(data.get("crash_class"), "crash.crash_class"), data.get("detail"),
                   data.get("traceback_tail"))


class Execution(Protocol):
    """How one command in the sandbox ended, as every record of it knows (sandbox.base.ExecResult, a grading step)."""

    @property
    def argv(self) -> Sequence[str]: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def timed_out(self) -> bool: ...
    @property
    def oom_killed(self) -> bool: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def stdout_dropped_bytes(self) -> int: ...
    @property
    def stderr_dropped_bytes(self) -> int: ...


class ExecutionFields(TypedDict):
    argv: tuple[str, ...]
    exit_code: int | None
    timed_out: bool
    oom_killed: bool
    duration_s: float


def execution_fields(run: Execution) -> ExecutionFields:
    """The fields every record of a command copies from it unchanged (its output each record keeps its own way)."""
    return ExecutionFields(argv=tuple(run.argv), exit_code=run.exit_code, timed_out=run.timed_out,
                           oom_killed=run.oom_killed, duration_s=run.duration_s)


KEPT_OUTPUT_CHARS = 16_000  # of each output stream in a record: a control character is 6 bytes of JSON (\\u0001)
OUTPUT_CUT_MARK = "\n[... {n} bytes cut from the record ...]\n"


@dataclass(frozen=True)
class KeptOutput:
    """What a record keeps of one output stream: its head and its tail, and how many bytes it held in all."""

    text: str
    dropped_bytes: int  # not in `text`: counted by the sandbox's cap, and cut here
    total_bytes: int

    @classmethod
    def of(cls, text: str, dropped_bytes: int) -> KeptOutput:
        """`text` (what the sandbox kept; it dropped `dropped_bytes`) within KEPT_OUTPUT_CHARS: a third head, the
        rest tail (a traceback comes last). A model's command may print a megabyte of anything."""
        size = len(text.encode("utf-8", errors="surrogatepass"))
        if len(text) <= KEPT_OUTPUT_CHARS:
            return cls(text, dropped_bytes, size + dropped_bytes)
        head = KEPT_OUTPUT_CHARS // 3
        tail = KEPT_OUTPUT_CHARS - head
        middle = text[head:len(text) - tail]
        cut = len(middle.encode("utf-8", errors="surrogatepass"))
        kept = text[:head] + OUTPUT_CUT_MARK.format(n=cut) + text[len(text) - tail:]
        return cls(kept, dropped_bytes + cut, size + dropped_bytes)


@dataclass(frozen=True)
class Command:
    """One execution in the sandbox (its outputs' heads and tails, and their sizes in all)."""

    purpose: str  # what it ran for: explore, install, or a step of the task's check
    argv: tuple[str, ...]
    exit_code: int | None
    timed_out: bool
    oom_killed: bool
    duration_s: float
    stdout: str
    stderr: str
    stdout_dropped_bytes: int = 0
    stderr_dropped_bytes: int = 0
    isolation: str = ""
    crash: Crash | None = None
    stdout_bytes: int | None = None  # what the stream held in all; None in a record written before it was kept
    stderr_bytes: int | None = None

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "purpose": self.purpose, "argv": list(self.argv), "exit_code": self.exit_code,
            "timed_out": self.timed_out, "oom_killed": self.oom_killed, "duration_s": self.duration_s,
            "stdout": self.stdout, "stderr": self.stderr, "stdout_dropped_bytes": self.stdout_dropped_bytes,
            "stderr_dropped_bytes": self.stderr_dropped_bytes, "isolation": self.isolation,
            "crash": self.crash.to_json() if self.crash is not None else None}
        if self.stdout_bytes is not None:  # left out of an older record read back, as it was written
            data["stdout_bytes"], data["stderr_bytes"] = self.stdout_bytes, self.stderr_bytes
        return data

    @classmethod
    def of(cls, purpose: str, run: Execution, stdout: str, stderr: str, isolation: str,
           crash: Crash | None = None) -> Command:
        """A command record of an execution; `stdout`/`stderr` are the output kept of it (all, or its tail),
        of which the record keeps a bounded head and tail (KeptOutput)."""
        out, err = KeptOutput.of(stdout, run.stdout_dropped_bytes), KeptOutput.of(stderr, run.stderr_dropped_bytes)
        return cls(purpose=purpose, **execution_fields(run), stdout=out.text, stderr=err.text,
                   stdout_dropped_bytes=out.dropped_bytes, stderr_dropped_bytes=err.dropped_bytes,
                   isolation=isolation, crash=crash, stdout_bytes=out.total_bytes, stderr_bytes=err.total_bytes)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Command:
        crash = data.get("crash")
        return cls(
            purpose=data["purpose"], argv=tuple(data.get("argv") or ()), exit_code=data.get("exit_code"),
            timed_out=bool(data.get("timed_out")), oom_killed=bool(data.get("oom_killed")),
            duration_s=data.get("duration_s") or 0.0, stdout=data.get("stdout") or "",
            stderr=data.get("stderr") or "", stdout_dropped_bytes=data.get("stdout_dropped_bytes") or 0,
            stderr_dropped_bytes=data.get("stderr_dropped_bytes") or 0, isolation=data.get("isolation") or "",
            crash=Crash.from_json(crash) if isinstance(crash, Mapping) else None,
            stdout_bytes=data.get("stdout_bytes"), stderr_bytes=data.get("stderr_bytes"),
        )


@dataclass(frozen=True)
class SkippedPath:
    path: str
    kind: str  # link, nested_repository, special_file

    def to_json(self) -> JsonObject:
        return {"path": self.path, "kind": self.kind}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SkippedPath:
        return cls(data["path"], data["kind"])


@dataclass(frozen=True)
class Commit:
    """A stage's commit in the run's repo, and what the harness did not commit (the first few, and a count)."""

    sha: str
    message: str
    date: str
    skipped_count: int = 0
    skipped: tuple[SkippedPath, ...] = ()

    def to_json(self) -> JsonObject:
        return {"sha": self.sha, "message": self.message, "date": self.date,
                "skipped": {"count": self.skipped_count, "paths": [s.to_json() for s in self.skipped]}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Commit:
        required(data, "sha")
        if not isinstance(data["sha"], str):
            raise DamagedRecord("'commit.sha' is not a string")
        skipped = data.get("skipped") or {}
        return cls(data["sha"], data.get("message") or "", data.get("date") or "", skipped.get("count") or 0,
                   items(SkippedPath.from_json, skipped.get("paths"), "commit.skipped.paths"))


TIME_KEYS = ("wall_s", "model_s", "sandbox_s", "scoring_s", "harness_s")


@dataclass(frozen=True)
class Timings:
    """Where a stage's (or, summed, a run's) wall time went; harness_s = wall - model - sandbox - scoring."""

    started_at: str
    finished_at: str
    wall_s: float = 0.0
    model_s: float = 0.0
    sandbox_s: float = 0.0
    scoring_s: float = 0.0
    harness_s: float = 0.0

    def to_json(self) -> JsonObject:
        return {"started_at": self.started_at, "finished_at": self.finished_at, "wall_s": self.wall_s,
                "model_s": self.model_s, "sandbox_s": self.sandbox_s, "scoring_s": self.scoring_s,
                "harness_s": self.harness_s}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Timings:
        return cls(data.get("started_at") or "", data.get("finished_at") or "",
                   **{key: data.get(key, 0.0) for key in TIME_KEYS})


@dataclass(frozen=True)
class Resources:
    """Peaks sampled during a stage, and the sandbox's CPU seconds in it; each optional figure is None where
    it could not be read (the sandbox's memory, an engine process the backend does not have, no GPU)."""

    harness_peak_rss_bytes: int
    system_peak_used_bytes: int
    sandbox_peak_memory_bytes: int | None = None
    engine_peak_rss_bytes: int | None = None  # the model's engine process (llama.cpp's child)
    gpu_peak_used_bytes: int | None = None  # the GPU's used memory, through NVML
    sandbox_cpu_s: float | None = None  # user + system seconds of the stage's sandboxed commands

    def to_json(self) -> JsonObject:
        data: JsonObject = {"harness_peak_rss_bytes": self.harness_peak_rss_bytes,
                            "system_peak_used_bytes": self.system_peak_used_bytes,
                            "sandbox_peak_memory_bytes": self.sandbox_peak_memory_bytes}
        for key in OPTIONAL_RESOURCES:  # written only when measured: older records stay as they were
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Resources | None:
        """None for the empty object of a stage that was not sampled (one that filled the disk)."""
        if not data:
            return None
        return cls(data.get("harness_peak_rss_bytes") or 0, data.get("system_peak_used_bytes") or 0,
                   data.get("sandbox_peak_memory_bytes"), *(_number(data.get(key)) for key in OPTIONAL_RESOURCES))


OPTIONAL_RESOURCES = ("engine_peak_rss_bytes", "gpu_peak_used_bytes", "sandbox_cpu_s")


def _number(value: Any) -> Any:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Claim:
    """The model's own estimate of its headline-like figure beside the real one, and where the estimate was
    found: the visible step's output, the design document or the README (ClaimSource), or None when it
    made none. `extra` holds the parts of a claim that only its task reads (an interval, say)."""

    source: ClaimSource | None
    claimed: float | None = None
    real: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        return {"source": self.source, "claimed": self.claimed, "real": self.real, "extra": dict(self.extra)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Claim:
        extra = data.get("extra") or {}
        return cls(optional_enum(ClaimSource, data.get("source"), "claim.source"), _float(data.get("claimed")),
                   _float(data.get("real")), dict(as_object(extra, "claim.extra")))


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
