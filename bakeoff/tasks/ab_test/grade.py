"""The ab_test take-home's grade, declared once: the interval score over the hidden experiments (its headline
the mean Winkler score), with the mean absolute error and width of the intervals."""

from __future__ import annotations

from dataclasses import dataclass, field

from bakeoff.taskapi.grade import Metric, key
from bakeoff.tasks.ab_test.words import HEADLINE
from bakeoff.tasks.intervals.grade import IntervalGrade, IntervalRow


@dataclass(frozen=True)
class AbRow(IntervalRow):
    effect: float | None = field(metadata=key("effect"))

    @property
    def point(self) -> float | None:
        return self.effect


@dataclass(frozen=True)
class AbGrade(IntervalGrade):
    """scorer.intervals.IntervalScore as the check recorded it: the metrics are over the graded experiments."""

    headline = HEADLINE
    metrics = (Metric("coverage", "pct"), Metric("mean_abs_error", "f4"), Metric("mean_width", "f4"),
               Metric("winkler", "f4"))

    experiments: tuple[AbRow, ...]
    mean_abs_error: float | None
    mean_width: float | None
