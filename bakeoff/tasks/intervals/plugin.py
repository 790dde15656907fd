"""What an interval take-home's grader does the same way: its claim is the ESTIMATE line (a point with its
interval) about the visible input, whose truth is never read, so the task value says `claim_has_real=False`;
its script has no training step (it declares no `--train`) and its calibration no sweep (it declares none)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bakeoff.records import Claim
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.tasks.intervals.claim import ClaimedInterval

Estimate = tuple[float, float, float]  # point, low, high


@dataclass(frozen=True)
class IntervalGrader:
    """A task's grading function with its reader of the last ESTIMATE line's point, low and high."""

    grading: Callable[[GradeJob], Graded]
    estimate_in: Callable[[str], Estimate | None]

    def grade(self, job: GradeJob) -> Graded:
        return self.grading(job)

    def parse_claim(self, text: str) -> Claim | None:
        """The ESTIMATE line: the point, with its interval kept beside it."""
        found = self.estimate_in(text)
        if found is None:
            return None
        point, low, high = found
        return Claim(None, point, extra=ClaimedInterval((low, high)).to_json())
