"""The result of grading one submission: what happened, how far it got, and why it stopped; and the grade
the records keep of it, declared once (SpamGrade: scorer.Score as the check records it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bakeoff.records.parts import execution_fields
from bakeoff.taskapi.grade import Grade
from bakeoff.taskapi.grading import Ending
from bakeoff.tasks.spam_classifier.words import HEADLINE
from sandbox.base import ExecResult
from sandbox.requirements import RequirementsReport
from scorer import Score

# stage: where it ended
INSTALL = "install"
TRAIN = "train"
PREDICT = "predict"
SCORE = "score"
STAGES = (INSTALL, TRAIN, PREDICT, SCORE)

OUTPUT_TAIL_CHARS = 16_000


@dataclass(frozen=True)
class Confusion:
    tp: int | None
    fp: int | None
    fn: int | None
    tn: int | None


@dataclass(frozen=True)
class SpamGrade(Grade):
    """The holdout's score as the check records it (scorer.Score.to_dict); the report shows it per run."""

    headline = HEADLINE

    f1: float | None
    predicted_positive_rate: float | None
    actual_positive_rate: float | None
    confusion: Confusion | None
    error: str | None

    @property
    def true_rate(self) -> float | None:
        """The answer key's positive rate (from the confusion matrix where an older batch did not write it)."""
        if self.actual_positive_rate:
            return self.actual_positive_rate
        c = self.confusion
        if c is None or c.tp is None or c.fp is None or c.fn is None or c.tn is None:
            return None
        n = c.tp + c.fp + c.fn + c.tn
        return (c.tp + c.fn) / n if n else None


@dataclass(frozen=True)
class GradingStep:
    """One command the grader ran in the sandbox, with the end of its output."""

    stage: str
    argv: tuple[str, ...]
    exit_code: int | None
    timed_out: bool
    oom_killed: bool
    duration_s: float
    stdout_tail: str
    stderr_tail: str
    stdout_dropped_bytes: int = 0
    stderr_dropped_bytes: int = 0
    disk_peak_bytes: int | None = None  # the workspace filesystem's peak use; None where it was not capped
    disk_cap_bytes: int | None = None

    @classmethod
    def from_result(cls, stage: str, result: ExecResult) -> GradingStep:
        return cls(
            stage=stage,
            **execution_fields(result),
            stdout_tail=result.stdout[-OUTPUT_TAIL_CHARS:],
            stderr_tail=result.stderr[-OUTPUT_TAIL_CHARS:],
            stdout_dropped_bytes=result.stdout_dropped_bytes + max(0, len(result.stdout) - OUTPUT_TAIL_CHARS),
            stderr_dropped_bytes=result.stderr_dropped_bytes + max(0, len(result.stderr) - OUTPUT_TAIL_CHARS),
            disk_peak_bytes=result.disk_peak_bytes,
            disk_cap_bytes=result.disk_cap_bytes,
        )

    def to_dict(self) -> dict:
        return {
            "stage": self.stage,
            "argv": list(self.argv),
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "oom_killed": self.oom_killed,
            "duration_s": self.duration_s,
            "stdout_tail": self.stdout_tail,
            "stderr_tail": self.stderr_tail,
            "stdout_dropped_bytes": self.stdout_dropped_bytes,
            "stderr_dropped_bytes": self.stderr_dropped_bytes,
            "disk_peak_bytes": self.disk_peak_bytes,
            "disk_cap_bytes": self.disk_cap_bytes,
        }


@dataclass(frozen=True)
class Timings:
    """Seconds spent per stage (0 for a stage that did not run)."""

    install_s: float = 0.0
    train_s: float = 0.0
    predict_s: float = 0.0
    score_s: float = 0.0
    total_s: float = 0.0

    def to_dict(self) -> dict:
        return {
            "install_s": self.install_s,
            "train_s": self.train_s,
            "predict_s": self.predict_s,
            "score_s": self.score_s,
            "total_s": self.total_s,
        }


@dataclass(frozen=True, kw_only=True)
class SubmissionOutcome(Ending):
    """How grading one submission ended (its rung: the furthest step reached, a skipped step counting as
    passed). `f1` is 0 unless status is scored."""

    isolation: str  # "docker", "bwrap" or "none" (no isolation: unsafe)
    f1: float = 0.0
    metrics: Score | None = None  # the scorer's full result once the output was read
    requirements: RequirementsReport | None = None
    timings: Timings = field(default_factory=Timings)
    steps: tuple[GradingStep, ...] = ()
    claimed_f1: float | None = None  # the submission's own EXPECTED_F1, kept beside the real one
    claim_source: str | None = None  # "train_output", "design" or "readme"
    workspace_notes: tuple[str, ...] = ()  # what the scratch copy left out or kept as a link (bakeoff score)

    def step(self, stage: str) -> GradingStep | None:
        """The record of the command run for `stage`, if one ran."""
        return next((step for step in self.steps if step.stage == stage), None)

    def to_dict(self) -> dict:
        return {
            "status": self.status,
            "stage": self.stage,
            "rung": int(self.rung),
            "isolation": self.isolation,
            "crash_class": self.crash_class,
            "detail": self.detail,
            "traceback_tail": self.traceback_tail,
            "f1": self.f1,
            "metrics": self.metrics.to_dict() if self.metrics else None,
            "requirements": self.requirements.to_dict() if self.requirements else None,
            "timings": self.timings.to_dict(),
            "claimed_f1": self.claimed_f1,
            "claim_source": self.claim_source,
            "workspace_notes": list(self.workspace_notes),
            "steps": [step.to_dict() for step in self.steps],
        }
