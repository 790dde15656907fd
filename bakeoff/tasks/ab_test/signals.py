"""Per-run and per-model signals of the ab_test take-home, from a batch's records, by rule.

Per run: the interval metrics over the hidden experiments (coverage of the true effect, mean absolute
error, mean width, Winkler score), each experiment's interval against its truth (for the plot), the unit
probe's verdict, the unit the design document states and their divergence. Per model: counts of each,
and the metrics' means over the scored runs with a seeded bootstrap interval.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bakeoff.analysis.core import GRADED, HARNESS_FAILED, UNCAPTURED, run_core
from bakeoff.analysis.stats import Estimate, bootstrap_mean, rate
from bakeoff.batchfolder.read import RunRecords
from bakeoff.tasks.ab_test.unit_probe import (
    UNIT_PROBE_KEY,
    StatedUnit,
    UnitDivergence,
    UnitProbeRecord,
    divergence_of,
    stated_unit,
)
from generators.calibration.ab_probe import Unit


@dataclass(frozen=True)
class IntervalPoint:
    """One hidden experiment's interval (None where the result was unusable) and its true effect."""

    experiment: str
    truth: float
    effect: float | None
    ci_low: float | None
    ci_high: float | None
    error: str | None = None

    @property
    def covered(self) -> bool | None:
        if self.ci_low is None or self.ci_high is None:
            return None
        return self.ci_low <= self.truth <= self.ci_high


@dataclass(frozen=True)
class IntervalMetrics:
    """scorer.intervals.IntervalScore as recorded: the metrics are over the graded experiments."""

    coverage: float | None
    mean_abs_error: float | None
    mean_width: float | None
    winkler: float | None
    experiments: int
    graded: int
    failed: int
    errors: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IntervalMetrics | None:
        """None when `data` is not an interval score (a spam run's metrics, or nothing)."""
        if not isinstance(data, Mapping) or "winkler" not in data:
            return None
        found = data.get("errors")
        errors: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        return cls(_number(data.get("coverage")), _number(data.get("mean_abs_error")), _number(data.get("mean_width")),
                   _number(data.get("winkler")), int(data.get("n") or 0), int(data.get("graded") or 0),
                   int(data.get("failed") or 0), {str(k): int(v) for k, v in errors.items()})


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def interval_points(data: Mapping[str, Any]) -> tuple[IntervalPoint, ...]:
    points = []
    for row in data.get("experiments") or () if isinstance(data, Mapping) else ():
        truth = _number(row.get("truth")) if isinstance(row, Mapping) else None
        if truth is None:
            continue
        low, high = _number(row.get("ci_low")), _number(row.get("ci_high"))
        points.append(IntervalPoint(str(row.get("experiment", "")), truth, _number(row.get("effect")), low, high,
                                    row.get("error")))
    return tuple(points)


@dataclass(frozen=True)
class AbRunSignals:
    run_id: str
    model: str
    seed: int | None
    grading: str  # graded, uncaptured, harness_failed, unfinished (as for the spam take-home)
    status: str | None  # the final check's status
    crash_class: str | None
    metrics: IntervalMetrics | None
    points: tuple[IntervalPoint, ...]
    probe: UnitProbeRecord | None
    stated: StatedUnit
    divergence: UnitDivergence | None
    repair_effects: tuple[str, ...] = ()
    calls: int = 0  # model calls, and how many of them were captured, uncaptured, unusable
    captured: int = 0
    uncaptured: int = 0
    unusable: int = 0

    @property
    def measured_unit(self) -> Unit | None:
        return self.probe.unit if self.probe else None

    @property
    def scored(self) -> bool:
        """The final check graded every hidden experiment (a run that failed on some keeps its metrics, per run)."""
        return self.status == "scored" and self.metrics is not None and self.metrics.winkler is not None


def _final_metrics(records: RunRecords) -> Mapping[str, Any]:
    """The interval score of the run's final check: run.json's outcome, else the last check recorded."""
    metrics = records.run.outcome.metrics if records.run is not None else None
    if isinstance(metrics, Mapping) and "winkler" in metrics:
        return metrics
    for stage in ("evaluate", "repair", "implement"):
        record = records.stages.get(stage)
        if record is not None and record.check is not None and isinstance(record.check.metrics, Mapping):
            return record.check.metrics
    return {}


def unit_probe_of(records: RunRecords) -> UnitProbeRecord | None:
    """From analysis.json when `bakeoff analyze` wrote one, else the evaluate record's extras."""
    evaluate = records.stages.get("evaluate")
    analysis = records.analysis.to_json() if records.analysis is not None else {}  # the probe is a task's own key
    for source in (analysis, evaluate.extras if evaluate is not None else {}):
        found = source.get(UNIT_PROBE_KEY)
        if isinstance(found, Mapping) and "unit" in found:  # a hook that failed left {"hook_error": ...}
            try:
                return UnitProbeRecord.from_dict(found)
            except (ValueError, TypeError):
                return None
    return None


def ab_run_signals(records: RunRecords) -> AbRunSignals:
    run = records.run
    outcome = run.outcome if run is not None else None
    status = outcome.status.value if outcome is not None else None
    common = run_core(records)  # grading, capture and repair are the same for every task
    metrics_data = _final_metrics(records)
    probe = unit_probe_of(records)
    stated = stated_unit(records.design_text)
    scored = status == "scored"
    crash = outcome.crash_class.value if outcome is not None and outcome.crash_class is not None else None
    return AbRunSignals(
        run_id=common.run_id,
        model=common.model,
        seed=common.seed,
        grading=common.grading,
        status=status,
        crash_class=None if scored else (crash or status),
        metrics=IntervalMetrics.from_dict(metrics_data),
        points=interval_points(metrics_data),
        probe=probe,
        stated=stated,
        divergence=divergence_of(stated, probe.unit if probe else None),
        repair_effects=tuple(t.effect for t in common.repair_turns),
        calls=common.calls, captured=common.captured, uncaptured=common.uncaptured, unusable=common.unusable,
    )


@dataclass(frozen=True)
class AbModelSummary:
    model: str
    runs: int
    graded: int
    scored: int
    uncaptured_runs: int
    harness_failed_runs: int
    capture_rate: float | None  # over every model call of the model's runs
    unusable_rate: float | None
    repair_effects: Mapping[str, int]  # rescued, regressed, unchanged -> repair turns
    measured: Mapping[str, int]  # probe verdict (user, visit, unclear, failed) -> runs
    stated: Mapping[str, int]  # stated unit -> graded runs
    divergences: Mapping[str, int]  # divergence -> runs
    coverage: Estimate | None
    mean_abs_error: Estimate | None
    mean_width: Estimate | None
    winkler: Estimate | None

    @property
    def crash_rate(self) -> float | None:
        """Share of the graded runs whose final check did not grade every hidden experiment."""
        return rate(self.graded - self.scored, self.graded)

    @property
    def all_uncaptured(self) -> bool:
        return self.runs > 0 and self.uncaptured_runs == self.runs

    @property
    def probed(self) -> int:
        return sum(self.measured.values())

    @property
    def divergent(self) -> int:
        return sum(n for name, n in self.divergences.items()
                   if name in (UnitDivergence.STATES_USER_ANALYSES_VISITS, UnitDivergence.STATES_VISIT_ANALYSES_USERS))


def summarise_models(runs: Sequence[AbRunSignals], labels: Sequence[str], bootstrap_seed: int = 0) -> list[AbModelSummary]:
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

        def estimate(field_name: str, scored: list[AbRunSignals] = scored) -> Estimate | None:
            values = [getattr(r.metrics, field_name) for r in scored]
            return bootstrap_mean([v for v in values if v is not None], rng)

        calls = sum(r.calls for r in mine)
        summaries.append(AbModelSummary(
            model=label, runs=len(mine), graded=len(graded), scored=len(scored),
            uncaptured_runs=sum(r.grading == UNCAPTURED for r in mine),
            harness_failed_runs=sum(r.grading == HARNESS_FAILED for r in mine),
            capture_rate=rate(sum(r.captured for r in mine), calls), unusable_rate=rate(sum(r.unusable for r in mine), calls),
            repair_effects=dict(Counter(effect for r in graded for effect in r.repair_effects)),
            measured=dict(Counter(r.probe.unit.value for r in graded if r.probe)),
            stated=dict(Counter(r.stated.value for r in graded)),
            divergences=dict(Counter(r.divergence.value for r in graded if r.divergence)),
            coverage=estimate("coverage"), mean_abs_error=estimate("mean_abs_error"),
            mean_width=estimate("mean_width"), winkler=estimate("winkler"),
        ))
    return summaries
