"""`bakeoff score REPO --task simulation`: grade a simulation folder alone on the hidden configurations.

The folder is copied (trusting nothing in it) into a scratch workspace; a sandbox is opened over it with the
examples at data/examples/ and the hidden configurations at /holdout (read-only, their truth never), and
bakeoff.tasks.simulation.analysis runs and grades it (taskapi.score.score_folder does the scaffold). This
module is what is printed of it (bakeoff.tasks.intervals.score, with the load bands).
"""

from __future__ import annotations

from typing import Any

from bakeoff.taskapi.score import ScoredFolder
from bakeoff.tasks.intervals.score import IntervalScoreReport

__all__ = ["SimScoreReport"]


class SimScoreReport(IntervalScoreReport):
    """What grading one simulation submission found."""

    task = "simulation"
    claim_key = "claimed_wait"
    visible_words = "visible example: mean wait"
    digits = 4

    @classmethod
    def of(cls, folder: ScoredFolder) -> SimScoreReport:
        return cls(*cls.parts(folder))

    def score_fields(self) -> dict[str, Any]:
        return {"bands": {band: {k: v for k, v in s.to_dict().items() if k != "experiments"}
                          for band, s in self.outcome.groups.items()}}

    def score_lines(self) -> list[str]:
        return [f"  {band}: coverage {score.coverage:.3f}  relative winkler {score.relative_winkler:.4f}  "
                f"({len(score.experiments)} configurations)"
                for band, score in self.outcome.groups.items()
                if score.relative_winkler is not None and score.coverage is not None]
