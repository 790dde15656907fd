"""The demand-forecasting take-home's grade, declared once: the mean MASE over series on the hidden horizon,
and the same by series kind and by horizon week, which the core reports per model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bakeoff.taskapi.grade import Breakdown, Grade, Metric
from bakeoff.tasks.demand_forecast.words import HEADLINE
from generators.demand_forecast.mase import KINDS, WEEKS

_MASE = (Metric("mase", "f4"),)


@dataclass(frozen=True)
class PartGrade:
    """The mean MASE of one group (a kind of series, or a horizon week's days)."""

    mase: float | None


@dataclass(frozen=True)
class ForecastGrade(Grade):
    headline = HEADLINE
    metrics = (Metric("mase", "f4"), Metric("backtest_mase", "f4"))
    breakdowns = (Breakdown("kinds", "kind", KINDS, _MASE, "fc_kinds", "Per model and series kind: mean MASE"),
                  Breakdown("weeks", "week", WEEKS, _MASE, "fc_weeks", "Per model and horizon week: mean MASE"))

    mase: float | None
    graded: int
    backtest_mase: float | None  # the same forecast from the backtest cut, scored on its visible truth
    kinds: Mapping[str, PartGrade]
    weeks: Mapping[str, PartGrade]
