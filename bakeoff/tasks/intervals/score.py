"""What `bakeoff score REPO --task <an interval task>` prints and writes of one graded folder.

The generic scaffold (bakeoff.taskapi.score) copies the folder and grades it in a sandbox through the plug-in;
this is the report of it: the ladder, the visible result, the interval score, the claim, the requirements,
the time. A task names its point (effect, mean wait) and adds what it has of its own (a probe, the groups).
"""

from __future__ import annotations

from typing import Any, ClassVar

from bakeoff.records import Claim
from bakeoff.taskapi.grading import Graded
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.tasks.intervals.claim import ClaimedInterval
from bakeoff.tasks.intervals.grading import IntervalGraded
from bakeoff.tasks.intervals.running import IntervalOutcome
from sandbox.kinds import UNSAFE


def claim_record(claim: Claim, key: str) -> dict[str, Any]:
    """The claim as the report writes it: the ESTIMATE's point (under `key`) and interval, and where it was."""
    if claim.claimed is None:
        return {key: None, "claimed_ci": None, "source": None}
    return {key: claim.claimed, "claimed_ci": list(ClaimedInterval.from_json(claim.extra).claimed_ci or ()),
            "source": claim.source.value if claim.source is not None else None}


def graded_outcome(graded: Graded) -> IntervalOutcome:
    assert isinstance(graded, IntervalGraded)  # an interval task's own grade() made it
    return graded.outcome


class IntervalScoreReport(ScoreReport):
    """What grading one interval submission found."""

    task: ClassVar[str]
    claim_key: ClassVar[str]  # the claim record's key of the claimed point: claimed_effect
    visible_words: ClassVar[str]  # how the visible line names the result: "visible experiment: effect"
    digits: ClassVar[int]  # decimals of the visible result and the claim

    def __init__(self, outcome: IntervalOutcome, isolation: str, notes: tuple[str, ...], claim: dict[str, Any]) -> None:
        self.outcome, self.isolation, self.notes, self.claim = outcome, isolation, notes, claim

    @classmethod
    def parts(cls, folder: ScoredFolder) -> tuple[IntervalOutcome, str, tuple[str, ...], dict[str, Any]]:
        """The constructor's arguments from what the scaffold found."""
        return graded_outcome(folder.graded), folder.isolation, folder.notes, claim_record(folder.claim, cls.claim_key)

    def score_fields(self) -> dict[str, Any]:
        """What the task writes beside the metrics (the groups' scores)."""
        return {}

    def finding_fields(self) -> dict[str, Any]:
        """What the task writes after the workspace notes (its probe)."""
        return {}

    def score_lines(self) -> list[str]:
        """What the task prints after the score (each group's)."""
        return []

    def finding_lines(self) -> list[str]:
        """What the task prints after the claim (its probe)."""
        return []

    def to_dict(self) -> dict[str, Any]:
        o = self.outcome
        return {
            "task": self.task, "status": o.status, "stage": o.stage, "rung": o.rung, "isolation": self.isolation,
            "crash_class": o.crash_class, "detail": o.detail, "traceback_tail": o.traceback_tail,
            "visible_result": dict(o.visible_result) if o.visible_result else None, "visible_error": o.visible_error,
            "metrics": o.score.to_dict() if o.score is not None else None,
            **self.score_fields(),
            "requirements": o.requirements.to_dict() if o.requirements else None,
            "claim": self.claim, "workspace_notes": list(self.notes),
            **self.finding_fields(),
            "steps": [{"purpose": s.purpose, "argv": list(s.result.argv), "exit_code": s.result.exit_code,
                       "timed_out": s.result.timed_out, "oom_killed": s.result.oom_killed,
                       "duration_s": s.result.duration_s} for s in o.steps],
            "timings": o.timings(),
        }

    def format_text(self) -> str:
        o, d = self.outcome, self.digits
        lines = [f"status: {o.status}  (stage {o.stage}, ladder rung {o.rung}/5)"]
        if o.crash_class:
            lines.append(f"crash: {o.crash_class}")
        if o.detail:
            lines.append(f"detail: {o.detail}")
        if o.visible_result:
            point, low, high = o.visible_result.values()  # point, ci_low, ci_high (running.read_kept)
            lines.append(f"{self.visible_words} {point:.{d}f} [{low:.{d}f}, {high:.{d}f}]")
        elif o.visible_error:
            lines.append(f"visible result unusable: {o.visible_error}")
        if o.score is not None:
            from scorer.intervals import format_text

            lines.append(format_text(o.score))
        lines.extend(self.score_lines())
        if self.claim.get(self.claim_key) is not None:
            low, high = self.claim["claimed_ci"]
            lines.append(f"claimed (ESTIMATE in its {self.claim['source']}): {self.claim[self.claim_key]:.{d}f} "
                         f"[{low:.{d}f}, {high:.{d}f}]")
        lines.extend(self.finding_lines())
        for line in (o.requirements.lines if o.requirements else ()):
            lines.append(f"requirement {line.text!r}: {line.fate}" + (f" ({line.reason})" if line.reason else ""))
        lines.extend(f"workspace copy: {note}" for note in self.notes)
        if o.traceback_tail:
            lines.append("traceback (end):")
            lines.extend("  " + text for text in o.traceback_tail.splitlines()[-8:])
        lines.append(f"time: sandbox {o.sandbox_s:.1f}s  score {o.score_s or 0.0:.2f}s")
        lines.append(f"isolation: {self.isolation if self.isolation != UNSAFE else f'{UNSAFE} (UNSAFE: no isolation)'}")
        return "\n".join(lines)
