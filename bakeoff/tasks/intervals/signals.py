"""What every interval task's runs and models say, by rule, from a batch's records: the run's points, its probe
record, how it ended; per model the counts every interval task reports. A task builds its own signals (its
probe's verdict, its design's statements) on these; its grade is typed (bakeoff.tasks.intervals.grade) and its
declared figures per model are the core's (bakeoff.analysis.grades).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bakeoff.analysis.core import GRADED, HARNESS_FAILED, UNCAPTURED, run_core
from bakeoff.analysis.grades import GradeEstimates, grade_estimates
from bakeoff.analysis.stats import rate
from bakeoff.batchfolder.read import RunRecords
from bakeoff.records import DamagedRecord, LadderStatus, Stage
from bakeoff.taskapi.grade import final_grade
from bakeoff.tasks.intervals.grade import IntervalGrade, IntervalPoint

T = TypeVar("T")


def probe_record(records: RunRecords, key: str, marker: str, read: Callable[[Mapping[str, Any]], T]) -> T | None:
    """The task's probe record under `key`: from analysis.json when `bakeoff analyze` wrote one, else the
    evaluate record's extras; None where neither holds one with `marker` (a hook that failed left
    {"hook_error": ...}) or it cannot be read."""
    evaluate = records.stages.get(Stage.EVALUATE)
    analysis = records.analysis.to_json() if records.analysis is not None else {}  # the probe is a task's own key
    for source in (analysis, evaluate.extras if evaluate is not None else {}):
        found = source.get(key)
        if isinstance(found, Mapping) and marker in found:
            try:
                return read(found)
            except (DamagedRecord, ValueError, TypeError):
                return None
    return None


@dataclass(frozen=True, kw_only=True)
class IntervalRun:
    """How one run of an interval task ended, as every such task reports it, and its grade (typed: the task's)."""

    run_id: str
    model: str
    seed: int | None
    grading: str  # graded, uncaptured, harness_failed, unfinished (as for every task)
    status: str | None  # the final check's status
    crash_class: str | None
    grade: IntervalGrade | None = None  # the final check's
    repair_effects: tuple[str, ...] = ()
    calls: int = 0  # model calls, and how many of them were captured, uncaptured, unusable
    captured: int = 0
    uncaptured: int = 0
    unusable: int = 0

    @property
    def scored(self) -> bool:
        """The final check graded every hidden item (a run that failed on some keeps its grade, per run)."""
        return self.status == LadderStatus.SCORED and self.grade is not None and self.grade.headline_value is not None

    @property
    def points(self) -> tuple[IntervalPoint, ...]:
        return self.grade.points() if self.grade is not None else ()


def run_fields(records: RunRecords, grade: type[IntervalGrade]) -> dict[str, Any]:
    """IntervalRun's fields of a run (grading, capture and repair are the same for every task; the grade is
    the task's type)."""
    run = records.run
    outcome = run.outcome if run is not None else None
    status = outcome.status.value if outcome is not None else None
    common = run_core(records)
    crash = outcome.crash_class.value if outcome is not None and outcome.crash_class is not None else None
    return {"run_id": common.run_id, "model": common.model, "seed": common.seed, "grading": common.grading,
            "status": status, "crash_class": None if status == "scored" else (crash or status),
            "repair_effects": tuple(t.effect for t in common.repair_turns), "calls": common.calls,
            "captured": common.captured, "uncaptured": common.uncaptured, "unusable": common.unusable,
            "grade": final_grade(records, grade)}


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
    figures: GradeEstimates  # the grade's declared metrics over the scored runs (and per group of a breakdown)

    @property
    def crash_rate(self) -> float | None:
        """Share of the graded runs whose final check did not grade every hidden item."""
        return rate(self.graded - self.scored, self.graded)

    @property
    def all_uncaptured(self) -> bool:
        return self.runs > 0 and self.uncaptured_runs == self.runs


R = TypeVar("R", bound=IntervalRun)


def per_model(runs: Sequence[R], labels: Sequence[str], grade: type[IntervalGrade], bootstrap_seed: int = 0
              ) -> Iterator[tuple[GradeEstimates, list[R], list[R]]]:
    """(the model's grade figures, its runs, the graded ones) in `labels` order, models with no run left out.
    The figures are the core's (bakeoff.analysis.grades) over the same runs and seed."""
    counted = [(r.model, r.grade if r.grading == GRADED and r.scored else None) for r in runs]
    figures = {f.model: f for f in grade_estimates(counted, labels, grade, bootstrap_seed)}
    for label in labels:
        mine = [r for r in runs if r.model == label]
        if mine:
            yield figures.get(label) or GradeEstimates(label, 0), mine, [r for r in mine if r.grading == GRADED]


def model_fields(figures: GradeEstimates, mine: Sequence[IntervalRun], graded: Sequence[IntervalRun],
                 divergences: Sequence[str]) -> dict[str, Any]:
    """IntervalModel's fields of one model (`divergences`: each graded run's, where it has one)."""
    calls = sum(r.calls for r in mine)
    return {"model": figures.model, "runs": len(mine), "graded": len(graded), "scored": figures.scored,
            "figures": figures,
            "uncaptured_runs": sum(r.grading == UNCAPTURED for r in mine),
            "harness_failed_runs": sum(r.grading == HARNESS_FAILED for r in mine),
            "capture_rate": rate(sum(r.captured for r in mine), calls),
            "unusable_rate": rate(sum(r.unusable for r in mine), calls),
            "repair_effects": dict(Counter(effect for r in graded for effect in r.repair_effects)),
            "divergences": dict(Counter(divergences))}
