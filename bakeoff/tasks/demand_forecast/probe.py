"""The forecasting probe of a graded submission: the backtest runs' figures (kept in the check's metrics) and,
in evaluate, the verdict with the claim and the design's VALIDATION:/FEATURES: lines beside it (the rule is
generators.demand_forecast.probe). The runs are the check's own: the probe costs no extra sandbox time."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from generators.demand_forecast.probe import (
    ProbeFigures,
    Thresholds,
    divergence,
    findings,
    forecast_move,
    stated_features,
    stated_validation,
    thresholds_of,
)
from generators.demand_forecast.running import parse_claim

if TYPE_CHECKING:
    from bakeoff.tasks.demand_forecast.running import ForecastOutcome

PROBE_KEY = "forecast_probe"


def probe_figures(outcome: ForecastOutcome) -> dict[str, object]:
    from bakeoff.tasks.demand_forecast.running import BLIND, VISIBLE

    visible, blind = outcome.scores.get(VISIBLE), outcome.forecasts.get(BLIND)
    seen = outcome.forecasts.get(VISIBLE)
    move = forecast_move(seen, blind) if seen is not None and blind is not None else None
    return ProbeFigures(visible.mase if visible else None, visible.weeks.get("week_1") if visible else None,
                        visible.weeks.get("week_4") if visible else None, move,
                        blind_failed=visible is not None and blind is None).to_dict()


def figures_of(metrics: Mapping[str, Any] | None) -> ProbeFigures | None:
    probe = metrics.get("probe") if isinstance(metrics, Mapping) else None
    if not isinstance(probe, Mapping):
        return None
    number = lambda key: float(probe[key]) if isinstance(probe.get(key), int | float) else None  # noqa: E731
    return ProbeFigures(number("backtest_mase"), number("week_1"), number("week_4"), number("blind_move"),
                        bool(probe.get("blind_failed")))


def verdict(figures: ProbeFigures | None, claimed: float | None, design: str | None, limits: Thresholds) -> dict[str, object]:
    """The probe's record: behaviours found, the claim beside the backtest's real error, the design's lines."""
    validation, features = stated_validation(design), stated_features(design)
    if figures is None:
        return {"behaviour": None, "reason": "no forecast was graded", "stated_validation": validation,
                "stated_features": features, "divergence": None}
    found = findings(figures, claimed, limits)
    optimism = figures.backtest_mase / claimed if claimed and figures.backtest_mase is not None else None
    return {"behaviour": found[0].value, "findings": [b.value for b in found], "claimed": claimed,
            "optimism": optimism, **figures.to_dict(), "stated_validation": validation, "stated_features": features,
            "divergence": divergence(found, validation, features)}


def claim_in(check: Any, workspace: Any) -> float | None:
    """The claim as the task reads it: the backtest run's output, else DESIGN.md, else README.md."""
    for text in (check.visible_output, workspace.read_file("DESIGN.md"), workspace.read_file("README.md")):
        found = parse_claim(text) if text else None
        if found is not None:
            return found
    return None


def probe_hooks() -> dict[str, Callable[..., Mapping[str, Any]]]:
    """{"forecast_probe": hook}: the verdict of the final check's backtest runs, recorded in evaluate."""

    def hook(ctx: Any, clock: Any, check: Any) -> Mapping[str, Any]:
        started = time.monotonic()
        try:
            return verdict(figures_of(check.metrics), claim_in(check, ctx.repo), ctx.repo.read_file("DESIGN.md"),
                           thresholds_of(ctx.task.settings.own))
        finally:
            clock.sandbox_s += time.monotonic() - started

    return {PROBE_KEY: hook}
