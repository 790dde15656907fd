"""Per-run and per-model signals of the simulation take-home, from a batch's records, by rule.

Per run: the relative interval metrics over the hidden configurations (coverage of the true mean wait,
relative error, relative Winkler score), the same by load band, each configuration's interval against its
truth (for the plot), the behavioural probe's verdict, what the design document states (WARMUP, INTERVAL)
and their divergence. Per model: counts of each, and the metrics' means over the scored runs with a seeded
bootstrap interval.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bakeoff.analysis.core import GRADED, HARNESS_FAILED, UNCAPTURED, run_core
from bakeoff.analysis.stats import Estimate, bootstrap_mean, rate
from bakeoff.batchfolder.read import RunRecords
from bakeoff.tasks.simulation.design import (
    DIVERGENT,
    Divergence,
    StatedInterval,
    StatedWarmup,
    divergence_of,
    stated_interval,
    stated_warmup,
)
from bakeoff.tasks.simulation.probe import PROBE_KEY, SimProbeRecord
from generators.calibration.sim_probe import Behaviour

BANDS = ("light", "medium", "heavy")


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class WaitPoint:
    """One hidden configuration's interval (None where the result was unusable) and its true mean wait."""

    configuration: str
    truth: float
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    band: str | None = None
    utilisation: float | None = None

    @property
    def covered(self) -> bool | None:
        if self.ci_low is None or self.ci_high is None:
            return None
        return self.ci_low <= self.truth <= self.ci_high


@dataclass(frozen=True)
class BandMetrics:
    coverage: float | None
    relative_winkler: float | None
    graded: int


@dataclass(frozen=True)
class SimMetrics:
    """scorer.intervals.IntervalScore (relative) as the check recorded it, with its bands."""

    coverage: float | None
    relative_winkler: float | None
    mean_rel_error: float | None
    winkler: float | None
    configurations: int
    graded: int
    failed: int
    errors: Mapping[str, int] = field(default_factory=dict)
    bands: Mapping[str, BandMetrics] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SimMetrics | None:
        """None when `data` is not a relative interval score (another task's metrics, or nothing)."""
        if not isinstance(data, Mapping) or "relative_winkler" not in data:
            return None
        found = data.get("errors")
        errors: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        raw_bands = data.get("bands")
        bands = {str(name): BandMetrics(_number(b.get("coverage")), _number(b.get("relative_winkler")), int(b.get("graded") or 0))
                 for name, b in (raw_bands.items() if isinstance(raw_bands, Mapping) else ()) if isinstance(b, Mapping)}
        return cls(_number(data.get("coverage")), _number(data.get("relative_winkler")), _number(data.get("mean_rel_error")),
                   _number(data.get("winkler")), int(data.get("n") or 0), int(data.get("graded") or 0),
                   int(data.get("failed") or 0), {str(k): int(v) for k, v in errors.items()}, bands)


def wait_points(data: Mapping[str, Any]) -> tuple[WaitPoint, ...]:
    points = []
    for row in data.get("experiments") or () if isinstance(data, Mapping) else ():
        truth = _number(row.get("truth")) if isinstance(row, Mapping) else None
        if truth is None:
            continue
        band = row.get("band")
        points.append(WaitPoint(str(row.get("experiment", "")), truth, _number(row.get("estimate")),
                                _number(row.get("ci_low")), _number(row.get("ci_high")),
                                band if isinstance(band, str) else None, _number(row.get("utilisation"))))
    return tuple(points)


@dataclass(frozen=True)
class SimRunSignals:
    run_id: str
    model: str
    seed: int | None
    grading: str
    status: str | None
    crash_class: str | None
    metrics: SimMetrics | None
    points: tuple[WaitPoint, ...]
    probe: SimProbeRecord | None
    warmup: StatedWarmup
    interval: StatedInterval
    divergence: Divergence | None
    repair_effects: tuple[str, ...] = ()
    calls: int = 0
    captured: int = 0
    uncaptured: int = 0
    unusable: int = 0

    @property
    def behaviour(self) -> Behaviour | None:
        return self.probe.behaviour if self.probe else None

    @property
    def scored(self) -> bool:
        return self.status == "scored" and self.metrics is not None and self.metrics.relative_winkler is not None


def _final_metrics(records: RunRecords) -> Mapping[str, Any]:
    """The interval score of the run's final check: run.json's outcome, else the last check recorded."""
    metrics = records.run.outcome.metrics if records.run is not None else None
    if isinstance(metrics, Mapping) and "relative_winkler" in metrics:
        return metrics
    for stage in ("evaluate", "repair", "implement"):
        record = records.stages.get(stage)
        if record is not None and record.check is not None and isinstance(record.check.metrics, Mapping):
            return record.check.metrics
    return {}


def probe_of(records: RunRecords) -> SimProbeRecord | None:
    """The evaluate record's extras (the probe is the task's own key)."""
    evaluate = records.stages.get("evaluate")
    found = evaluate.extras.get(PROBE_KEY) if evaluate is not None else None
    if isinstance(found, Mapping) and "behaviour" in found:  # a hook that failed left {"hook_error": ...}
        try:
            return SimProbeRecord.from_dict(found)
        except (ValueError, TypeError):
            return None
    return None


def sim_run_signals(records: RunRecords) -> SimRunSignals:
    run = records.run
    outcome = run.outcome if run is not None else None
    status = outcome.status.value if outcome is not None else None
    common = run_core(records)  # grading, capture and repair are the same for every task
    metrics_data = _final_metrics(records)
    probe = probe_of(records)
    warmup, interval = stated_warmup(records.design_text), stated_interval(records.design_text)
    crash = outcome.crash_class.value if outcome is not None and outcome.crash_class is not None else None
    return SimRunSignals(
        run_id=common.run_id, model=common.model, seed=common.seed, grading=common.grading, status=status,
        crash_class=None if status == "scored" else (crash or status),
        metrics=SimMetrics.from_dict(metrics_data), points=wait_points(metrics_data), probe=probe,
        warmup=warmup, interval=interval, divergence=divergence_of(warmup, interval, probe.behaviour if probe else None),
        repair_effects=tuple(t.effect for t in common.repair_turns),
        calls=common.calls, captured=common.captured, uncaptured=common.uncaptured, unusable=common.unusable,
    )


@dataclass(frozen=True)
class SimModelSummary:
    model: str
    runs: int
    graded: int
    scored: int
    uncaptured_runs: int
    harness_failed_runs: int
    capture_rate: float | None
    unusable_rate: float | None
    repair_effects: Mapping[str, int]
    behaviours: Mapping[str, int]  # probe verdict -> graded runs
    warmups: Mapping[str, int]  # stated warm-up -> graded runs
    intervals: Mapping[str, int]  # stated interval -> graded runs
    divergences: Mapping[str, int]
    coverage: Estimate | None
    mean_rel_error: Estimate | None
    relative_winkler: Estimate | None
    band_coverage: Mapping[str, Estimate]  # band -> coverage over the scored runs
    band_winkler: Mapping[str, Estimate]

    @property
    def crash_rate(self) -> float | None:
        return rate(self.graded - self.scored, self.graded)

    @property
    def all_uncaptured(self) -> bool:
        return self.runs > 0 and self.uncaptured_runs == self.runs

    @property
    def probed(self) -> int:
        return sum(self.behaviours.values())

    @property
    def divergent(self) -> int:
        return sum(n for name, n in self.divergences.items() if name in {d.value for d in DIVERGENT})


def summarise_models(runs: Sequence[SimRunSignals], labels: Sequence[str], bootstrap_seed: int = 0) -> list[SimModelSummary]:
    """One summary per model, in `labels` order (models with no run of their own are left out)."""
    import numpy as np

    rng = np.random.default_rng(bootstrap_seed)
    summaries = []
    for label in labels:
        mine = [r for r in runs if r.model == label]
        if not mine:
            continue
        graded = [r for r in mine if r.grading == GRADED]
        scored = [r for r in graded if r.scored and r.metrics is not None]

        def estimate(values: list[float | None]) -> Estimate | None:
            return bootstrap_mean([v for v in values if v is not None], rng)

        def by_band(name: str, scored: list[SimRunSignals] = scored) -> dict[str, Estimate]:
            found = {}
            for band in BANDS:
                got = estimate([getattr(r.metrics.bands[band], name) for r in scored
                                if r.metrics is not None and band in r.metrics.bands])
                if got is not None:
                    found[band] = got
            return found

        calls = sum(r.calls for r in mine)
        summaries.append(SimModelSummary(
            model=label, runs=len(mine), graded=len(graded), scored=len(scored),
            uncaptured_runs=sum(r.grading == UNCAPTURED for r in mine),
            harness_failed_runs=sum(r.grading == HARNESS_FAILED for r in mine),
            capture_rate=rate(sum(r.captured for r in mine), calls), unusable_rate=rate(sum(r.unusable for r in mine), calls),
            repair_effects=dict(Counter(effect for r in graded for effect in r.repair_effects)),
            behaviours=dict(Counter(r.probe.behaviour.value for r in graded if r.probe)),
            warmups=dict(Counter(r.warmup.value for r in graded)),
            intervals=dict(Counter(r.interval.value for r in graded)),
            divergences=dict(Counter(r.divergence.value for r in graded if r.divergence)),
            coverage=estimate([r.metrics.coverage for r in scored if r.metrics]),
            mean_rel_error=estimate([r.metrics.mean_rel_error for r in scored if r.metrics]),
            relative_winkler=estimate([r.metrics.relative_winkler for r in scored if r.metrics]),
            band_coverage=by_band("coverage"), band_winkler=by_band("relative_winkler"),
        ))
    return summaries
