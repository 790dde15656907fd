"""What a run's stages and its task's plug-in are handed: the run's workspace, sandbox, model, data, task
and plug-in, and the clocks its stages keep; executing a command there and showing its output to the model.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bakeoff.models.base import Message, ModelBackend
from bakeoff.records.parts import Command, Crash, Timings, crash_class_of
from bakeoff.submission.crashes import classify
from bakeoff.taskapi.corpus import CorpusFiles
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.taskapi.hidden_inputs import AlwaysMounted, HiddenInputs
from bakeoff.taskapi.spec import TaskSpec
from bakeoff.taskapi.workspace import Workspace
from sandbox.base import ExecResult, Sandbox

if TYPE_CHECKING:
    from bakeoff.records import Claim, LadderCheck
    from bakeoff.taskapi.corpus import CorpusLayout
    from bakeoff.taskapi.headline import HeadlineSpec


class RunTask(Protocol):
    """What a run's stages ask of its task (bakeoff.taskapi.task.Task has it): asked for by shape, so that the
    task value, whose parts take a RunContext, and the context do not import each other."""

    @property
    def name(self) -> str: ...

    @property
    def headline(self) -> HeadlineSpec: ...

    def spec(self, overrides: Mapping[str, object] | None = None) -> TaskSpec: ...

    def corpus_layout(self) -> CorpusLayout: ...

    def grade(self, job: GradeJob) -> Graded: ...

    def claim(self, visible_output: str, design: str | None, readme: str | None, check: LadderCheck) -> Claim: ...

CUT_MARK = "\n[... {n} characters cut ...]\n"


@dataclass
class StageClock:
    """Seconds spent per kind of work within one stage; the rest of the wall time is harness overhead."""

    started: float = field(default_factory=time.monotonic)
    model_s: float = 0.0
    sandbox_s: float = 0.0
    scoring_s: float = 0.0

    def timings(self, started_at: str, finished_at: str) -> Timings:
        wall = time.monotonic() - self.started
        return Timings(started_at, finished_at, wall_s=wall, model_s=self.model_s, sandbox_s=self.sandbox_s,
                       scoring_s=self.scoring_s, harness_s=max(0.0, wall - self.model_s - self.sandbox_s - self.scoring_s))


@dataclass(frozen=True)
class RunContext:
    run_id: str
    seed: int
    task: TaskSpec
    plugin: RunTask
    repo: Workspace
    run_dir: Path
    sandbox: Sandbox
    backend: ModelBackend
    corpus: CorpusFiles
    shared: Message  # the system message every stage starts with
    env: Mapping[str, str]  # seeding, given to every execution
    wheelhouse: Path | None = None
    temperature: float = 0.0
    hidden: HiddenInputs = field(default_factory=AlwaysMounted)  # the gate: opened around hidden steps alone
    # Where a scaffold's own commands run when it is not the grading sandbox (a tool loop's: the visible data
    # only, no hidden input, not even while the harness grades); None: `sandbox`.
    tool_sandbox: Sandbox | None = None

    @property
    def outputs_dir(self) -> Path:
        """Where the hidden step's outputs are kept, outside the workspace (bakeoff.batchfolder.layout)."""
        from bakeoff.batchfolder.layout import RunLayout

        return RunLayout(self.run_dir).outputs

    def grade_job(self, label: str) -> GradeJob:
        """The check of this run's workspace, in its own sandbox (what the task's grader is handed)."""
        return GradeJob(self.sandbox, self.repo, self.corpus, self.task.settings, self.wheelhouse, self.outputs_dir,
                        label, self.env, hidden=self.hidden)


def command_record(purpose: str, result: ExecResult, crash: Crash | None = None) -> Command:
    """An execution as the stage record keeps it."""
    return Command.of(purpose, result, result.stdout, result.stderr, result.isolation, crash)


def crash_of(result: ExecResult) -> Crash | None:
    """The crash classification of a failed execution (None when it succeeded)."""
    if result.ok:
        return None
    info = classify(result)
    return Crash(crash_class_of(info.crash_class, "crash_class"), info.detail, info.traceback_tail)


def execute(
    ctx: RunContext, clock: StageClock, purpose: str, argv: Sequence[str], timeout_s: float
) -> tuple[ExecResult, Command]:
    """Run one command in the run's sandbox, seeded; time it as sandbox time; record it."""
    started = time.monotonic()
    try:
        result = ctx.sandbox.exec(list(argv), timeout_s=timeout_s, env=dict(ctx.env))
    finally:
        clock.sandbox_s += time.monotonic() - started
    return result, command_record(purpose, result, crash_of(result))


def output_for_model(result: ExecResult, limit: int) -> str:
    """What an execution printed, as the model is shown it: stdout then stderr, head and tail kept."""
    parts = [result.stdout.rstrip()]
    if result.stderr.strip():
        parts.append(result.stderr.rstrip())
    if result.timed_out:
        parts.append("[killed: the command ran longer than the time limit]")
    if result.oom_killed:
        parts.append("[killed: the command ran out of memory]")
    if result.exit_code not in (0, None):
        parts.append(f"[exit status {result.exit_code}]")
    text = "\n".join(p for p in parts if p) or "(no output)"
    return shorten(text, limit)


def shorten(text: str, limit: int) -> str:
    """Keep the head and the tail (where a traceback's cause is) of a text longer than `limit`."""
    if len(text) <= limit:
        return text
    marker = CUT_MARK.format(n=len(text) - limit)
    room = max(0, limit - len(marker))
    head = room // 3
    tail = room - head
    return text[:head] + marker + (text[-tail:] if tail else "")


def messages_from_dicts(items: Sequence[Mapping[str, str]]) -> tuple[Message, ...]:
    return tuple(Message(item["role"], item["content"]) for item in items)
