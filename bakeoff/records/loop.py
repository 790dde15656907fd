"""A loop of steps, as its readers see it: a scaffold that drives its model turn by turn writes one record per
step (runs/<run_id>/steps/<NNN>.json) and, on its loop's stage record, the loop's summary.

The step record itself is the scaffold's own (its class and its decoder live in its package under
bakeoff/scaffolds/); what the readers below the scaffolds (the run's summary and transcript, the batch folder's
reader, the report and the exports) use of it is the `LoopStep` shape here. They get the decoder handed down by
scaffold name (`StepReaders`), as they get a scaffold's stages: this package names no scaffold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bakeoff.records.codec import JsonRecord
from bakeoff.records.enums import CaptureReason, LoopEnd
from bakeoff.records.parts import Capture, Command, Commit, CompletionRecord, FileWritten, Prompt, Timings


@dataclass(frozen=True)
class LoopUsage(JsonRecord):
    """What the loop has used so far, against its budgets."""

    steps: int = 0
    tokens: int = 0  # generated: answer and reasoning
    wall_s: float = 0.0
    cpu_s: float = 0.0


@dataclass(frozen=True)
class LoopSummary(JsonRecord):
    """The loop's summary, on its stage record (`loop`): how it ended, what it used, and its budgets."""

    ended_by: LoopEnd
    usage: LoopUsage
    budgets: Mapping[str, float] = field(default_factory=dict)  # steps, tokens, wall_s, cpu_s
    own_code_runs: int = 0  # `run` calls, before the end, of a file the loop's model had written
    first_own_run: int | None = None  # the step that first ran the model's own code
    tool_syntax: str = ""  # how the model's calls were read (bakeoff.models.tools.ToolSyntax)


class CallResult(Protocol):
    """What one tool call of a step did, as the readers show it."""

    @property
    def tool(self) -> str: ...
    @property
    def ok(self) -> bool: ...
    @property
    def shown(self) -> str: ...  # the tool result as the model got it
    @property
    def problem(self) -> CaptureReason | None: ...  # why a call was not run (the capture audit's reason)
    @property
    def command(self) -> Command | None: ...  # the sandbox execution the call made, if any
    @property
    def files_written(self) -> Sequence[FileWritten]: ...
    @property
    def cpu_s(self) -> float: ...
    @property
    def cpu_measured(self) -> bool: ...


class LoopStep(Protocol):
    """One step of a loop: one model turn and the calls it made, its commit, its times and the budgets used."""

    @property
    def run_id(self) -> str: ...
    @property
    def step(self) -> int: ...  # 1-based
    @property
    def prompt(self) -> Prompt: ...  # the messages this step added
    @property
    def completion(self) -> CompletionRecord | None: ...
    @property
    def capture(self) -> Capture | None: ...
    @property
    def results(self) -> Sequence[CallResult]: ...  # one per call of the completion, in order
    @property
    def files_changed(self) -> Sequence[str]: ...
    @property
    def commit(self) -> Commit: ...
    @property
    def timings(self) -> Timings: ...
    @property
    def usage(self) -> LoopUsage: ...  # after this step
    @property
    def ended_by(self) -> LoopEnd | None: ...
    @property
    def harness_error(self) -> str | None: ...


# A scaffold's decoder of its step records (the JSON object of one file, its schema tag first, and where it was
# read from for the error), and the decoders by scaffold name (None: the scaffold writes no steps).
StepReader = Callable[[Mapping[str, Any], str], LoopStep]
StepReaders = Callable[[str], StepReader | None]


def no_step_readers(_scaffold: str) -> StepReader | None:
    """The readers of a caller that reads no steps (a batch of staged runs, or a reader that needs none)."""
    return None
