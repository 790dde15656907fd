"""The simulation take-home's grade, declared once: the relative interval score over the hidden configurations
(its headline the mean relative Winkler score), and the same by load band, which the core reports per model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bakeoff.taskapi.grade import Breakdown, Metric, key
from bakeoff.tasks.intervals.grade import IntervalGrade, IntervalRow
from bakeoff.tasks.simulation.words import HEADLINE
from generators.simulation.configs import BANDS as BAND_LOADS

BANDS = tuple(name for name, _, _ in BAND_LOADS)  # light, medium, heavy


@dataclass(frozen=True)
class BandGrade:
    """The relative interval score of one load band's configurations."""

    coverage: float | None
    relative_winkler: float | None
    graded: int


@dataclass(frozen=True)
class SimRow(IntervalRow):
    estimate: float | None = field(metadata=key("estimate"))

    @property
    def point(self) -> float | None:
        return self.estimate


@dataclass(frozen=True)
class SimGrade(IntervalGrade):
    """scorer.intervals.IntervalScore (relative) as the check recorded it, with its bands."""

    headline = HEADLINE
    metrics = (Metric("coverage", "pct"), Metric("mean_rel_error", "f4"), Metric("relative_winkler", "f4"))
    breakdowns = (Breakdown("bands", "band", BANDS, (Metric("coverage", "pct"), Metric("relative_winkler", "f4")),
                            "sim_bands", "Per model and load band: coverage and relative Winkler score"),)

    experiments: tuple[SimRow, ...]
    relative_winkler: float | None
    mean_rel_error: float | None
    bands: Mapping[str, BandGrade]
