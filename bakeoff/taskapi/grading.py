"""The one grading path of every task: a plug-in grades a workspace that sits in an open sandbox.

The stage runner hands it the run's sandbox (RunContext.grade_job: the check of implement and of each repair
turn); `bakeoff score` hands it a sandbox over a scratch copy of a folder (bakeoff.taskapi.score). Both get
back a `Graded`: the task's own result, which says what the ladder check is, which commands ran and where
the time went. How a task's grading ended (`Ending`: status, step, rung, crash class, detail) is declared here
once, with how a failed command ends it (`command_failure`); the ladder check is made from it (`Ending.check`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bakeoff.records import Command, CrashClass, Headline, LadderCheck, LadderStatus, Rung
from bakeoff.submission.crashes import classify
from bakeoff.taskapi.corpus import CorpusFiles
from bakeoff.taskapi.hidden_inputs import AlwaysMounted, HiddenInputs
from bakeoff.taskapi.spec import TaskSettings
from bakeoff.taskapi.workspace import Workspace
from sandbox.base import ExecResult, Sandbox


@dataclass(frozen=True)
class GradeJob:
    """What a plug-in grades, and with what: the workspace in its open sandbox, the task's data and limits.

    `visible_step`: run the step whose output the model may see (a run's check does; grading a folder alone
    needs only the hidden step). `train`: a task with a training step runs it first (a run's check always does).
    `hidden`: the gate (bakeoff.taskapi.hidden_inputs) the task opens around its hidden step alone.
    """

    sandbox: Sandbox
    workspace: Workspace
    corpus: CorpusFiles
    settings: TaskSettings
    wheelhouse: Path | None
    outputs_dir: Path  # where the hidden step's outputs are kept (outside the workspace)
    label: str  # names what is kept there (implement, repair-1...)
    env: Mapping[str, str] = field(default_factory=dict)  # seeding, given to every execution
    visible_step: bool = True
    train: bool = True
    timeout_s: float | None = None  # one limit for every command (bakeoff score --timeout); None: the task's
    on_step: Callable[[str], None] = field(default=lambda _: None)
    hidden: HiddenInputs = field(default_factory=AlwaysMounted)

    def hidden_step(self, shown: Mapping[str, Path] | None = None) -> AbstractContextManager[None]:
        """The gate open around one hidden step (or a probe's inputs `shown` at the grading inputs' path)."""
        return self.hidden.opened(self.sandbox, shown)

    def timeout_for(self, step: str) -> float:
        return self.timeout_s if self.timeout_s is not None else self.settings.timeout_for(step)


class Graded(ABC):
    """A task's result of grading one workspace."""

    sandbox_s: float = 0.0  # seconds its commands ran in the sandbox
    scoring_s: float = 0.0  # seconds of grading on the host

    @abstractmethod
    def ladder_check(self) -> LadderCheck:
        """Where the submission stands (its headline filled when it was scored)."""

    @abstractmethod
    def commands(self) -> list[Command]:
        """The commands that ran, as a stage record keeps them (the failing one carrying its crash)."""


@dataclass(frozen=True, kw_only=True)
class Ending:
    """How grading a submission ended: its status, the task's step it ended at, the rung it reached, and for a
    failure its crash class, what went wrong and the end of its traceback. A task's outcome adds its own parts."""

    status: LadderStatus
    stage: str  # install, or the task's step (train, predict, analyze, simulate, score)
    rung: Rung
    crash_class: CrashClass | None = None  # set when status is crashed (bakeoff.submission.crashes)
    detail: str = ""  # e.g. the missing module's name, the scorer's error, the unmet requirement
    traceback_tail: str = ""

    @property
    def scored(self) -> bool:
        return self.status == LadderStatus.SCORED

    def check(self, headline: Headline | None, **parts: Any) -> LadderCheck:
        """The ladder check of this ending (its headline only when scored), with the check's other `parts`."""
        return LadderCheck(
            rung=self.rung, status=LadderStatus(self.status), failed_step=None if self.scored else self.stage,
            headline=headline if self.scored else None,
            crash_class=CrashClass(self.crash_class) if self.crash_class else None, detail=self.detail or None,
            traceback_tail=self.traceback_tail or None, **parts,
        )


def command_failure(result: ExecResult) -> dict[str, Any]:
    """How a command that did not succeed ends grading: status, crash_class, detail and traceback_tail (out of
    memory, a timeout, or a crash with its class)."""
    crash = classify(result)
    status = (LadderStatus.OUT_OF_MEMORY if result.oom_killed
              else LadderStatus.TIMEOUT if result.timed_out else LadderStatus.CRASHED)
    crash_class = crash.crash_class if status == LadderStatus.CRASHED else None
    return {"status": status, "crash_class": crash_class, "detail": crash.detail, "traceback_tail": crash.traceback_tail}
