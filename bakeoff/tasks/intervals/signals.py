"""What every interval task's runs and models say, by rule, from a batch's records: the run's final interval
score, its points, its probe record, how it ended; per model the counts every interval task reports. A task
builds its own signals (its metrics, its probe's verdict, its design's statements) on these.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bakeoff.analysis.core import GRADED, HARNESS_FAILED, UNCAPTURED, run_core
from bakeoff.analysis.stats import Estimate, bootstrap_mean, rate
from bakeoff.batchfolder.read import RunRecords
from bakeoff.runner.scaffold_kit import final_check

T = TypeVar("T")


def number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def score_counts(data: Mapping[str, Any]) -> tuple[int, int, int, dict[str, int]]:
    """An interval score's items, graded and failed ones, and its errors by name, as the check recorded them."""
    found = data.get("errors")
    errors: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    return (int(data.get("n") or 0), int(data.get("graded") or 0), int(data.get("failed") or 0),
            {str(k): int(v) for k, v in errors.items()})


@dataclass(frozen=True)
class IntervalPoint:
    """One hidden item's interval (None where the result was unusable) and its truth, with the item's group
    and load where the check recorded them (simulation's bands)."""

    item: str
    truth: float
    point: float | None
    ci_low: float | None
    ci_high: float | None
    error: str | None = None
    band: str | None = None
    utilisation: float | None = None

    @property
    def covered(self) -> bool | None:
        if self.ci_low is None or self.ci_high is None:
            return None
        return self.ci_low <= self.truth <= self.ci_high


def interval_points(data: Mapping[str, Any], point_key: str) -> tuple[IntervalPoint, ...]:
    """Each item's interval of a recorded interval score (rows without a truth are passed over)."""
    points = []
    for row in data.get("experiments") or () if isinstance(data, Mapping) else ():
        truth = number(row.get("truth")) if isinstance(row, Mapping) else None
        if truth is None:
            continue
        band = row.get("band")
        points.append(IntervalPoint(str(row.get("experiment", "")), truth, number(row.get(point_key)),
                                    number(row.get("ci_low")), number(row.get("ci_high")), row.get("error"),
                                    band if isinstance(band, str) else None, number(row.get("utilisation"))))
    return tuple(points)


def final_metrics(records: RunRecords, headline: str) -> Mapping[str, Any]:
    """The interval score of the run's final check: run.json's outcome (when it holds the `headline` key),
    else the final check of its stage records."""
    metrics = records.run.outcome.metrics if records.run is not None else None
    if isinstance(metrics, Mapping) and headline in metrics:
        return metrics
    check = final_check(records.stages)  # the run's final check, as the runner reads it (bakeoff.runner.scaffold_kit)
    return check.metrics if isinstance(check.metrics, Mapping) else {}


def probe_record(records: RunRecords, key: str, marker: str, read: Callable[[Mapping[str, Any]], T]) -> T | None:
    """The task's probe record under `key`: from analysis.json when `bakeoff analyze` wrote one, else the
    evaluate record's extras; None where neither holds one with `marker` (a hook that failed left
    {"hook_error": ...}) or it cannot be read."""
    evaluate = records.stages.get("evaluate")
    analysis = records.analysis.to_json() if records.analysis is not None else {}  # the probe is a task's own key
    for source in (analysis, evaluate.extras if evaluate is not None else {}):
        found = source.get(key)
        if isinstance(found, Mapping) and marker in found:
            try:
                return read(found)
            except (ValueError, TypeError):
                return None
    return None


@dataclass(frozen=True, kw_only=True)
class IntervalRun(ABC):
    """How one run of an interval task ended, as every such task reports it, and its intervals."""

    run_id: str
    model: str
    seed: int | None
    grading: str  # graded, uncaptured, harness_failed, unfinished (as for every task)
    status: str | None  # the final check's status
    crash_class: str | None
    points: tuple[IntervalPoint, ...] = ()
    repair_effects: tuple[str, ...] = ()
    calls: int = 0  # model calls, and how many of them were captured, uncaptured, unusable
    captured: int = 0
    uncaptured: int = 0
    unusable: int = 0

    @property
    @abstractmethod
    def scored(self) -> bool:
        """The final check graded every hidden item (a run that failed on some keeps its metrics, per run)."""


def run_fields(records: RunRecords) -> dict[str, Any]:
    """IntervalRun's fields of a run (grading, capture and repair are the same for every task)."""
    run = records.run
    outcome = run.outcome if run is not None else None
    status = outcome.status.value if outcome is not None else None
    common = run_core(records)
    crash = outcome.crash_class.value if outcome is not None and outcome.crash_class is not None else None
    return {"run_id": common.run_id, "model": common.model, "seed": common.seed, "grading": common.grading,
            "status": status, "crash_class": None if status == "scored" else (crash or status),
            "repair_effects": tuple(t.effect for t in common.repair_turns), "calls": common.calls,
            "captured": common.captured, "uncaptured": common.uncaptured, "unusable": common.unusable}


@dataclass(frozen=True, kw_only=True)
class IntervalModel:
    """What every interval task counts of one model's runs."""

    model: str
    runs: int
    graded: int
    scored: int
    uncaptured_runs: int
    harness_failed_runs: int
    capture_rate: float | None  # over every model call of the model's runs
    unusable_rate: float | None
    repair_effects: Mapping[str, int]  # rescued, regressed, unchanged -> repair turns
    divergences: Mapping[str, int]  # the design against the probe -> graded runs

    @property
    def crash_rate(self) -> float | None:
        """Share of the graded runs whose final check did not grade every hidden item."""
        return rate(self.graded - self.scored, self.graded)

    @property
    def all_uncaptured(self) -> bool:
        return self.runs > 0 and self.uncaptured_runs == self.runs


R = TypeVar("R", bound=IntervalRun)


def per_model(runs: Sequence[R], labels: Sequence[str], scored: Callable[[R], bool]
              ) -> Iterator[tuple[str, list[R], list[R], list[R]]]:
    """(model, its runs, the graded ones, the scored ones) in `labels` order, models with no run left out."""
    for label in labels:
        mine = [r for r in runs if r.model == label]
        if mine:
            graded = [r for r in mine if r.grading == GRADED]
            yield label, mine, graded, [r for r in graded if scored(r)]


def model_fields(label: str, mine: Sequence[IntervalRun], graded: Sequence[IntervalRun], scored: Sequence[IntervalRun],
                 divergences: Sequence[str]) -> dict[str, Any]:
    """IntervalModel's fields of one model (`divergences`: each graded run's, where it has one)."""
    calls = sum(r.calls for r in mine)
    return {"model": label, "runs": len(mine), "graded": len(graded), "scored": len(scored),
            "uncaptured_runs": sum(r.grading == UNCAPTURED for r in mine),
            "harness_failed_runs": sum(r.grading == HARNESS_FAILED for r in mine),
            "capture_rate": rate(sum(r.captured for r in mine), calls),
            "unusable_rate": rate(sum(r.unusable for r in mine), calls),
            "repair_effects": dict(Counter(effect for r in graded for effect in r.repair_effects)),
            "divergences": dict(Counter(divergences))}


def mean_of(values: Sequence[float | None], rng: Any) -> Estimate | None:
    """The bootstrap mean of the values there are (None for none)."""
    return bootstrap_mean([v for v in values if v is not None], rng)
