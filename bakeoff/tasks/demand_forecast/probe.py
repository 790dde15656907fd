"""The forecasting probe of a graded submission: the backtest runs' figures (kept in the check's metrics) and,
in evaluate, the verdict with the claim and the design's VALIDATION:/FEATURES: lines beside it (the rule is
generators.demand_forecast.probe). The runs are the check's own: the probe costs no extra sandbox time."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from bakeoff.records.codec import decode, decode_or_none
from generators.demand_forecast.probe import (
    ProbeFigures,
    Thresholds,
    divergence,
    findings,
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

    visible = outcome.scores[VISIBLE] if VISIBLE in outcome.scores else None
    return ProbeFigures(visible.mase if visible else None, visible.weeks["week_1"] if visible else None,
                        visible.weeks["week_4"] if visible else None, outcome.blind_move,
                        blind_failed=visible is not None and BLIND not in outcome.scores).to_dict()


def figures_of(metrics: Mapping[str, Any] | None) -> ProbeFigures | None:
    """The probe's figures the check kept in its metrics (None where it kept none, or they cannot be read)."""
    kept = metrics["probe"] if isinstance(metrics, Mapping) and "probe" in metrics else None
    return decode_or_none(ProbeFigures, kept, "metrics.probe")


@dataclass(frozen=True)
class ForecastProbe:
    """The probe's record of one run: behaviours found, the claim beside the backtest's real error, the design's lines."""

    behaviour: str | None
    findings: tuple[str, ...]
    claimed: float | None
    optimism: float | None  # the backtest's real MASE over the claim
    backtest_mase: float | None
    week_1: float | None
    week_4: float | None
    blind_move: float | None
    blind_failed: bool
    stated_validation: str | None
    stated_features: str | None
    divergence: str | None
    reason: str | None = None

    @classmethod
    def none(cls, reason: str, validation: str | None = None, features: str | None = None) -> ForecastProbe:
        return cls(None, (), None, None, None, None, None, None, False, validation, features, None, reason)

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "findings": list(self.findings)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ForecastProbe:
        """Back from `to_dict` (the records' decoder; DamagedRecord naming a key of the wrong type)."""
        return decode(cls, data, PROBE_KEY)


def verdict(figures: ProbeFigures | None, claimed: float | None, design: str | None, limits: Thresholds) -> ForecastProbe:
    validation, features = stated_validation(design), stated_features(design)
    if figures is None:
        return ForecastProbe.none("no forecast was graded", validation, features)
    found = findings(figures, claimed, limits)
    optimism = figures.backtest_mase / claimed if claimed and figures.backtest_mase is not None else None
    return ForecastProbe(found[0].value, tuple(b.value for b in found), claimed, optimism, figures.backtest_mase,
                         figures.week_1, figures.week_4, figures.blind_move, figures.blind_failed, validation, features,
                         divergence(found, validation, features))


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
                           thresholds_of(ctx.task.settings.own)).to_dict()
        finally:
            clock.sandbox_s += time.monotonic() - started

    return {PROBE_KEY: hook}
