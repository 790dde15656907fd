"""The small parts of a stage record: prompt, completion, capture, files, commands, commit, timings, claim.

Each part's JSON is its fields (bakeoff.records.codec reads and writes them); a key that is written only in some
cases, such as a capture's `budget_cut`, is named in the class's WRITTEN_WHEN_SET and left out in the others, as it
always was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from bakeoff.models.tools import ToolCall
from bakeoff.records.codec import JsonObject, JsonRecord, decode, json_value
from bakeoff.records.enums import CaptureReason, CaptureStatus, ClaimSource, CrashClass, LadderStatus
from bakeoff.records.errors import DamagedRecord

if TYPE_CHECKING:
    CrashKind = CrashClass | LadderStatus
    SkippedPaths = tuple["SkippedPath", ...]
else:
    # What the library reads before __post_init__ makes it the declared type: a union of two string enums is
    # not one msgspec tells apart, and a commit's skipped paths are written as an object ({count, paths}).
    CrashKind = str
    SkippedPaths = Any


@dataclass(frozen=True)
class Capture(JsonRecord):
    """The capture audit of one answer (bakeoff.answers.audit)."""

    status: CaptureStatus
    reason: CaptureReason
    detail: str = ""
    # For a cut answer: True when the harness's token budget ended it, False when something else did
    # (the context filled up); None when nothing was cut or the budget is unknown (then not written).
    budget_cut: bool | None = None
    WRITTEN_WHEN_SET = ("budget_cut",)

    @property
    def graded(self) -> bool:
        """Uncaptured answers are never graded; captured and unusable ones are."""
        return self.status != CaptureStatus.UNCAPTURED

    @property
    def captured(self) -> bool:
        return self.status == CaptureStatus.CAPTURED


@dataclass(frozen=True)
class PromptMessage(JsonRecord):
    """One message sent; a tool loop's turns also carry their tool calls, or the call they answer (written
    only when set)."""

    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    name: str = ""
    WRITTEN_WHEN_SET = ("tool_calls", "tool_call_id", "name")


@dataclass(frozen=True)
class PromptCut(JsonRecord):
    """A part of the prompt shortened to fit the context budget."""

    part: str
    original_chars: int
    kept_chars: int


@dataclass(frozen=True)
class Prompt(JsonRecord):
    """The conversation sent to the model for one turn."""

    key: str
    messages: tuple[PromptMessage, ...]
    chars: int
    shared_prefix_chars: int
    cut: tuple[PromptCut, ...] = ()


@dataclass(frozen=True)
class CompletionRecord(JsonRecord):
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
    tool_calls: tuple[ToolCall, ...] = ()  # a loop's step: the calls read from the answer (written when any)
    prompt_floor: int | None = None  # bakeoff's own count of the prompt sent (a floor; None: not counted)
    context_filled: bool = False  # the server's context filled before the answer's budget ran out
    # Written when set: a record of the old code writes back the same.
    WRITTEN_WHEN_SET = ("prompt_floor", "context_filled", "tool_calls")

    @property
    def answer_tokens(self) -> int:
        """The generated tokens that were the answer (completion_tokens counts the reasoning too)."""
        return max(0, int(self.completion_tokens or 0) - int(self.reasoning_tokens or 0))

    @property
    def generated_tokens(self) -> int:
        """Every token the model generated for this answer (completion_tokens counts the reasoning too)."""
        return int(self.completion_tokens or 0)


@dataclass(frozen=True)
class FileWritten(JsonRecord):
    """A file the harness wrote into the repo from an answer; `refused` says why one was not written."""

    path: str
    bytes: int
    sha256: str | None
    refused: str | None = None
    WRITTEN_WHEN_SET = ("refused",)


def crash_class_of(value: Any, name: str) -> CrashClass | LadderStatus:
    """A command's crash class: from the vocabulary, or the grading status where no class applies (bad_output)."""
    if value in CrashClass._value2member_map_:
        return CrashClass(value)
    if value in LadderStatus._value2member_map_:
        return LadderStatus(value)
    raise DamagedRecord(f"'{name}' is {value!r}, neither a crash class nor a grading status")


@dataclass(frozen=True)
class Crash(JsonRecord):
    crash_class: CrashKind
    detail: str | None
    traceback_tail: str | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "crash_class", crash_class_of(self.crash_class, "crash.crash_class"))


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
class Command(JsonRecord):
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
    WRITTEN_WHEN_SET = ("stdout_bytes", "stderr_bytes")  # left out of an older record read back, as it was written

    @classmethod
    def of(cls, purpose: str, run: Execution, stdout: str, stderr: str, isolation: str,
           crash: Crash | None = None) -> Command:
        """A command record of an execution; `stdout`/`stderr` are the output kept of it (all, or its tail),
        of which the record keeps a bounded head and tail (KeptOutput)."""
        out, err = KeptOutput.of(stdout, run.stdout_dropped_bytes), KeptOutput.of(stderr, run.stderr_dropped_bytes)
        return cls(purpose=purpose, **execution_fields(run), stdout=out.text, stderr=err.text,
                   stdout_dropped_bytes=out.dropped_bytes, stderr_dropped_bytes=err.dropped_bytes,
                   isolation=isolation, crash=crash, stdout_bytes=out.total_bytes, stderr_bytes=err.total_bytes)


@dataclass(frozen=True)
class SkippedPath(JsonRecord):
    path: str
    kind: str  # link, nested_repository, special_file


@dataclass(frozen=True)
class SkippedSummary:
    """A commit's `skipped` as written: how many paths the harness did not commit, and the first few."""

    count: int = 0
    paths: tuple[SkippedPath, ...] = ()


@dataclass(frozen=True)
class Commit(JsonRecord):
    """A stage's commit in the run's repo, and what the harness did not commit (the first few, and a count)."""

    sha: str
    message: str = ""
    date: str = ""
    skipped_count: int = 0
    skipped: SkippedPaths = ()

    def __post_init__(self) -> None:
        if not isinstance(self.skipped, tuple):  # read from its JSON: {count, paths}
            summary = decode(SkippedSummary, self.skipped, ".commit.skipped")
            object.__setattr__(self, "skipped_count", summary.count)
            object.__setattr__(self, "skipped", summary.paths)

    def to_json(self) -> JsonObject:
        skipped = SkippedSummary(self.skipped_count, self.skipped)
        return {"sha": self.sha, "message": self.message, "date": self.date, "skipped": json_value(skipped)}


TIME_KEYS = ("wall_s", "model_s", "sandbox_s", "scoring_s", "harness_s")


@dataclass(frozen=True)
class Timings(JsonRecord):
    """Where a stage's (or, summed, a run's) wall time went; harness_s = wall - model - sandbox - scoring."""

    started_at: str = ""
    finished_at: str = ""
    wall_s: float = 0.0
    model_s: float = 0.0
    sandbox_s: float = 0.0
    scoring_s: float = 0.0
    harness_s: float = 0.0


@dataclass(frozen=True)
class Resources(JsonRecord):
    """Peaks sampled during a stage, and the sandbox's CPU seconds in it; each optional figure is None where
    it could not be read (the sandbox's memory, an engine process the backend does not have, no GPU)."""

    harness_peak_rss_bytes: int
    system_peak_used_bytes: int
    sandbox_peak_memory_bytes: int | None = None
    engine_peak_rss_bytes: int | None = None  # the model's engine process (llama.cpp's child)
    gpu_peak_used_bytes: int | None = None  # the GPU's used memory, through NVML
    sandbox_cpu_s: float | None = None  # user + system seconds of the stage's sandboxed commands
    # Written only when measured: older records stay as they were.
    WRITTEN_WHEN_SET = ("engine_peak_rss_bytes", "gpu_peak_used_bytes", "sandbox_cpu_s")


@dataclass(frozen=True)
class Claim(JsonRecord):
    """The model's own estimate of its headline-like figure beside the real one, and where the estimate was
    found: the visible step's output, the design document or the README (ClaimSource), or None when it
    made none. `extra` holds the parts of a claim that only its task reads (an interval, say)."""

    source: ClaimSource | None
    claimed: float | None = None
    real: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
