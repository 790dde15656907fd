"""What `bakeoff score` is asked and what it found, as values: the request, the folder graded alone, and the
report every task prints of it. Kept apart from the grading itself (bakeoff.taskapi.score), so that the task's
parts (bakeoff.taskapi.parts) can name these types without importing what grades."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from bakeoff.records import TOP_RUNG, Claim, LadderCheck, environment_failure
from bakeoff.taskapi.grading import Graded
from sandbox.base import GIB, Limits
from sandbox.scratch import KINDS as SCRATCH_KINDS

DEFAULT_DISK_BYTES = 4 * GIB


class ProbeRecord(Protocol):
    """What a task's probe of a folder found, as its record keeps it."""

    def to_dict(self) -> Mapping[str, object]: ...


@dataclass(frozen=True)
class ScoreRequest:
    """What to grade and how (isolation, limits), the same for every task. Made without a folder and a corpus,
    it is the options alone (a task's own scoring helper names both)."""

    repo: Path = Path()
    corpus: Path = Path()
    sandbox_kind: str = "docker"
    unsafe_no_isolation: bool = False  # must be set to use the "none" kind
    train: bool = False  # a task with a training step runs it first; one that declares no `train` option refuses it
    timeout_s: float = 600.0  # per command
    wheelhouse: Path | None = None  # None: sandbox.wheelhouse.default_wheelhouse()
    disk_bytes: int = DEFAULT_DISK_BYTES  # what the folder's files and commands may occupy in the workspace
    sandbox_options: Mapping[str, object] = field(default_factory=dict)  # the driver's settings, e.g. an image name
    limits: Limits = field(default_factory=Limits)
    scratch_parent: Path | None = None  # where the scratch workspace is made; None: the system's temp folder
    scratch_kinds: tuple[str, ...] = SCRATCH_KINDS  # tried in order: loop ext4, tmpfs, plain folder (no cap)


@dataclass(frozen=True)
class ScoredFolder:
    """What grading a folder alone gave: the task's result, the claim the folder makes, how it was isolated,
    and what the scratch copy left out or kept as a link."""

    graded: Graded
    claim: Claim
    isolation: str
    notes: tuple[str, ...]
    probe: ProbeRecord | None = None  # the task's own probe of the folder (its folder_probe part), when it has one


class ScoreReport(ABC):
    """What grading a submission folder alone found: printable for people, a JSON object for scripts."""

    # Set where the environment, not the folder, failed grading (bakeoff.records.environment_failure): the
    # folder was not graded fairly, and `bakeoff score` exits non-zero.
    environment_failure: str | None = None

    @abstractmethod
    def to_dict(self) -> dict[str, object]: ...

    @abstractmethod
    def format_text(self) -> str: ...


class EnvironmentFailedReport(ScoreReport):
    """A task's report of a folder whose grading the environment failed, with the failure named in both forms."""

    def __init__(self, report: ScoreReport, failure: str) -> None:
        self.report = report
        self.environment_failure = failure

    def to_dict(self) -> dict[str, object]:
        return {**self.report.to_dict(), "environment_failure": self.environment_failure}

    def format_text(self) -> str:
        return f"{self.report.format_text()}\nenvironment failure: {self.environment_failure}"


def with_environment_failure(report: ScoreReport, check: LadderCheck) -> ScoreReport:
    """`report`, marked as the environment's failure where the folder's check ended in one."""
    failure = environment_failure(check.crash_class, check.detail) if check.rung < TOP_RUNG else None
    return EnvironmentFailedReport(report, failure) if failure is not None else report


