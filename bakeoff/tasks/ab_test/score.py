"""`bakeoff score REPO --task ab_test`: grade an analysis folder alone on the hidden experiments.

The generic scaffold (bakeoff.taskapi.score) copies the folder and grades it in a sandbox through the plug-in;
the unit probe then runs in the same sandbox (AbTest.probe_scored). This module is what is printed of it
(bakeoff.tasks.intervals.score, with the unit probe).
"""

from __future__ import annotations

from typing import Any

from bakeoff.taskapi.score import ScoredFolder
from bakeoff.tasks.ab_test.unit_probe import UnitProbeRecord
from bakeoff.tasks.intervals.running import IntervalOutcome
from bakeoff.tasks.intervals.score import IntervalScoreReport

__all__ = ["AbScoreReport"]


class AbScoreReport(IntervalScoreReport):
    """What grading one ab_test submission found."""

    task = "ab_test"
    claim_key = "claimed_effect"
    visible_words = "visible experiment: effect"
    digits = 5

    def __init__(self, outcome: IntervalOutcome, isolation: str, notes: tuple[str, ...], claim: dict[str, Any],
                 unit_probe: UnitProbeRecord | None = None) -> None:
        super().__init__(outcome, isolation, notes, claim)
        self.unit_probe = unit_probe

    @classmethod
    def of(cls, folder: ScoredFolder) -> AbScoreReport:
        probe = folder.probe if isinstance(folder.probe, UnitProbeRecord) else None
        return cls(*cls.parts(folder), probe)

    def finding_fields(self) -> dict[str, Any]:
        return {"unit_probe": self.unit_probe.to_dict() if self.unit_probe is not None else None}

    def finding_lines(self) -> list[str]:
        return [_probe_line(self.unit_probe)] if self.unit_probe is not None else []


def _probe_line(record: UnitProbeRecord) -> str:
    probe = record.probe
    ratios = []
    if probe.width_ratio is not None:
        ratios.append(f"width x{probe.width_ratio:.2f} with every visit logged twice")
    if probe.halved_width_ratio is not None:
        ratios.append(f"x{probe.halved_width_ratio:.2f} on half the users")
    detail = "; ".join(ratios) or probe.message
    return f"unit probe ({record.experiment or 'not run'}): {probe.unit.value}" + (f" ({detail})" if detail else "")
