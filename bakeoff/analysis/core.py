"""What every task's runs say, by rule, from their records: grading, capture, exploration, how the run ended
(status, rung, crash class), the repair turns with the headline before and after, the claim; per model the
headline with its uncertainty, crash taxonomy and repair turns; paired headline comparisons on shared seeds.

A run is graded (it counts in the headline's aggregates) unless the harness failed it, or no answer came
back for the stage that writes the code (implement): such a run says nothing about the model, so it is
counted apart and never scored as a failure. A task's own signals (leak, unit of analysis...) are built on
these in its package (bakeoff.tasks.*).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Any

from bakeoff.analysis.grades import GradeEstimates, grade_estimates
from bakeoff.analysis.loops import LoopCore, base_model, generated_tokens, loop_of, steps_taken
from bakeoff.analysis.stats import Estimate, bootstrap_mean, rate
from bakeoff.batchfolder.read import RunRecords, run_model_label, stage_calls
from bakeoff.records import (
    DEFAULT_SCAFFOLD,
    Attribution,
    CaptureCounts,
    CaptureStatus,
    Claim,
    LadderStatus,
    RepairEffect,
    Rung,
    RunStatus,
    Stage,
    StageRecord,
)
from bakeoff.scaffolds.registry import scaffold_plugin
from bakeoff.taskapi.grade import Grade, final_grade
from bakeoff.taskapi.headline import HeadlineSpec

REPAIR_EFFECTS = tuple(RepairEffect)


class Grading(StrEnum):
    """Whether a run counts in the aggregates, and if not, why."""

    GRADED = "graded"
    UNCAPTURED = "uncaptured"
    HARNESS_FAILED = "harness_failed"
    UNFINISHED = "unfinished"


GRADED, UNCAPTURED, HARNESS_FAILED, UNFINISHED = Grading  # the names the signals have always used


@dataclass(frozen=True)
class TurnCore:
    """One repair turn: the ladder and the headline before and after it, and what it did."""

    turn: int
    before_rung: int | None
    after_rung: int | None
    before: float | None  # the headline's value
    after: float | None
    effect: str  # rescued, regressed, unchanged


@dataclass(frozen=True)
class RunCore:
    run_id: str
    model: str
    seed: int | None
    grading: str  # a Grading value
    grading_reason: str | None
    calls: int
    captured: int
    uncaptured: int
    unusable: int
    exploration: str  # executed, crashed, timeout, out_of_memory, uncaptured, unusable, harness_error, missing
    outcome_status: str | None  # the final ladder check's status
    rung: int
    headline: float | None  # the headline's value when scored, else None
    crash_class: str | None  # why an unscored run ended (its crash class, else its status)
    crash_detail: str | None
    repair_turns: tuple[TurnCore, ...]
    claim: Claim
    # The (model, scaffold) row is `model`; these say which model and scaffold it is, and what the run used.
    scaffold: str = DEFAULT_SCAFFOLD
    base_model: str = ""
    steps: int = 0  # a loop's steps; a staged run's model calls
    tokens: int = 0  # generated: answers and reasoning
    loop: LoopCore | None = None
    grade: Grade | None = None  # the final check's grade, typed (where the report asked for its task's)

    @property
    def graded(self) -> bool:
        return self.grading == GRADED

    @property
    def scored_grade(self) -> Grade | None:
        """The grade where it counts in the grade's figures: graded, the final check scored, its headline held."""
        if not self.graded or self.outcome_status != LadderStatus.SCORED or self.grade is None:
            return None
        return self.grade if self.grade.headline_value is not None else None

    @property
    def scored(self) -> bool:
        return self.rung == Rung.SCORED and self.headline is not None

    def counted(self, spec: HeadlineSpec) -> float | None:
        """What the run counts for among graded runs: its headline, or the spec's failed_value when unscored."""
        return self.headline if self.scored else spec.failed_value


def run_core(records: RunRecords, grade: type[Grade] | None = None) -> RunCore:
    """What every task's run says; with its task's grade type, the run's grade too."""
    run = records.run
    outcome = run.outcome if run is not None else None
    capture = run.capture if run is not None else capture_from_stages(records.stages, records.steps)
    grading, reason = grading_of(records)
    rung = int(outcome.rung) if outcome is not None else 0
    value = outcome.headline_value if outcome is not None else None
    scored = rung == Rung.SCORED and value is not None
    row = run_model_label(records)
    return RunCore(
        run_id=records.run_id,
        model=row,
        seed=run.seed if run is not None else None,
        grading=grading,
        grading_reason=reason,
        calls=capture.calls,
        captured=capture.captured,
        uncaptured=capture.uncaptured,
        unusable=capture.unusable,
        exploration=exploration_of(records.stages.get(Stage.EXPLORE)),
        outcome_status=outcome.status.value if outcome is not None else None,
        rung=rung,
        headline=value if scored else None,
        crash_class=None if scored or outcome is None else (outcome.crash_class or outcome.status).value,
        crash_detail=None if scored or outcome is None else outcome.detail,
        repair_turns=repair_turns_of(records.stages.get(Stage.REPAIR)),
        claim=outcome.claim if outcome is not None else Claim(None),
        scaffold=records.scaffold,
        base_model=base_model(records, row),
        steps=steps_taken(records),
        tokens=generated_tokens(records),
        loop=loop_of(records),
        grade=final_grade(records, grade) if grade is not None else None,
    )


def grading_of(records: RunRecords) -> tuple[str, str | None]:
    if records.run is None:
        return UNFINISHED, "the run has not ended"
    if records.run.status == RunStatus.HARNESS_FAILED:
        return HARNESS_FAILED, records.run.error
    # The stage that writes the code, as the run's scaffold says.
    implement = records.stages.get(scaffold_plugin(records.scaffold).stage_of_code())
    if implement is not None and implement.attribution == Attribution.UNCAPTURED:
        return UNCAPTURED, implement.attribution_reason or "no answer came back for the code"
    if implement is not None and implement.attribution == Attribution.HARNESS_ERROR:
        return HARNESS_FAILED, implement.attribution_reason
    return GRADED, None


def capture_from_stages(stages: Mapping[str, StageRecord], steps: Sequence[Any] = ()) -> CaptureCounts:
    """The run's capture counts summed from its stage records and a loop's steps (a run that has not ended has
    no run.json)."""
    statuses = [call.capture.status for record in stages.values() for call in stage_calls(record)
                if call.capture is not None]
    statuses += [step.capture.status for step in steps if step.capture is not None]
    return CaptureCounts(calls=len(statuses), captured=statuses.count(CaptureStatus.CAPTURED),
                         uncaptured=statuses.count(CaptureStatus.UNCAPTURED),
                         unusable=statuses.count(CaptureStatus.UNUSABLE))


def exploration_of(record: StageRecord | None) -> str:
    if record is None:
        return "missing"
    if record.attribution in (Attribution.UNCAPTURED, Attribution.UNUSABLE, Attribution.HARNESS_ERROR):
        return record.attribution.value
    runs = [c for c in record.commands if c.purpose == Stage.EXPLORE]
    if not runs:
        return "missing"
    last = runs[-1]
    if last.timed_out:
        return "timeout"
    if last.oom_killed:
        return "out_of_memory"
    return "executed" if last.exit_code == 0 else "crashed"


def repair_turns_of(record: StageRecord | None) -> tuple[TurnCore, ...]:
    if record is None:
        return ()
    return tuple(
        TurnCore(turn=turn.turn, before_rung=int(turn.before.rung), after_rung=int(turn.after.rung),
                 before=turn.before.headline_value, after=turn.after.headline_value, effect=turn.effect.value)
        for turn in record.turns
    )


# -- per model -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TurnSummary:
    """What repair turn number `turn` did across a model's graded runs."""

    turn: int
    granted: int
    rescued: int
    regressed: int
    unchanged: int

    @property
    def rescue_rate(self) -> float | None:
        return rate(self.rescued, self.granted)

    @property
    def regression_rate(self) -> float | None:
        return rate(self.regressed, self.granted)


@dataclass(frozen=True)
class ModelCore:
    model: str
    runs: int
    graded: int
    uncaptured_runs: int
    harness_failed_runs: int
    unfinished_runs: int
    with_failures: Estimate | None  # the headline over graded runs, an unscored one as failed_value (None: no such value)
    over_scored: Estimate | None  # over scored runs only
    scored: int
    crash_taxonomy: dict[str, int]  # crash class -> graded runs that ended in it
    calls: int
    captured_calls: int
    uncaptured_calls: int
    unusable_calls: int
    exploration_executed: int
    turns: tuple[TurnSummary, ...]

    @property
    def crash_rate(self) -> float | None:
        return rate(self.graded - self.scored, self.graded)

    @property
    def capture_rate(self) -> float | None:
        return rate(self.captured_calls, self.calls)

    @property
    def unusable_rate(self) -> float | None:
        return rate(self.unusable_calls, self.calls)

    @property
    def uncaptured_rate(self) -> float | None:
        return rate(self.uncaptured_calls, self.calls)

    @property
    def all_uncaptured(self) -> bool:
        return self.runs > 0 and self.graded == 0 and self.uncaptured_runs > 0


@dataclass(frozen=True)
class PairedComparison:
    """Model a minus model b on the seeds where both count (better is positive when higher is better)."""

    model_a: str
    model_b: str
    seeds: tuple[int, ...]
    difference: Estimate | None
    a_wins: int
    b_wins: int
    ties: int
    spread: float | None = None  # the sample standard deviation of the paired differences (None below two)


@dataclass(frozen=True)
class ScaffoldRow:
    """One (model, scaffold) row: what its graded runs used and how their loops ended."""

    row: str  # the row's label (ModelCore.model)
    model: str  # the model's own label
    scaffold: str
    graded: int
    mean_rung: float | None
    mean_steps: float | None  # loop steps (a loop's rows) or model calls (staged)
    mean_tokens: float | None  # generated, answers and reasoning
    ended_by: dict[str, int]  # LoopEnd -> runs (a loop's rows)
    ran_own_code: int  # graded runs whose model ran its own code before the end
    mean_own_code_runs: float | None
    unusable_steps: dict[str, int]  # capture reason -> steps, over the row's runs

    @property
    def ran_own_code_rate(self) -> float | None:
        # a rate of the rows whose graded runs ran a loop (their scaffold's step_stage), not of every other scaffold's
        return rate(self.ran_own_code, self.graded) if self.ended_by else None


@dataclass(frozen=True)
class CoreSummary:
    headline: HeadlineSpec
    runs: tuple[RunCore, ...]
    models: tuple[ModelCore, ...]
    pairs: tuple[PairedComparison, ...]
    bootstrap_seed: int
    rows: tuple[ScaffoldRow, ...] = ()  # per (model, scaffold)
    scaffold_pairs: tuple[PairedComparison, ...] = ()  # one model's staged row against its other scaffolds' rows
    grade: type[Grade] | None = None  # the task's grade, whose declared figures `grades` holds per model
    grades: tuple[GradeEstimates, ...] = ()

    def model(self, label: str) -> ModelCore | None:
        return next((m for m in self.models if m.model == label), None)

    @property
    def has_scaffolds(self) -> bool:
        """More than the staged scaffold ran: the report adds its scaffold part."""
        return any(r.scaffold != DEFAULT_SCAFFOLD for r in self.runs)

    def grade_of(self, label: str) -> GradeEstimates | None:
        """A model's declared grade figures (None without a declared grade, or for a model with no run)."""
        return next((g for g in self.grades if g.model == label), None)


def summarise_model(model: str, runs: Sequence[RunCore], spec: HeadlineSpec, rng: Any) -> ModelCore:
    graded = [r for r in runs if r.graded]
    scored = [r for r in graded if r.scored]
    counted = [r.counted(spec) for r in graded] if spec.counts_failures else []
    return ModelCore(
        model=model,
        runs=len(runs),
        graded=len(graded),
        uncaptured_runs=sum(r.grading == UNCAPTURED for r in runs),
        harness_failed_runs=sum(r.grading == HARNESS_FAILED for r in runs),
        unfinished_runs=sum(r.grading == UNFINISHED for r in runs),
        with_failures=bootstrap_mean([v for v in counted if v is not None], rng) if spec.counts_failures else None,
        over_scored=bootstrap_mean([r.headline for r in scored if r.headline is not None], rng),
        scored=len(scored),
        crash_taxonomy=dict(Counter(r.crash_class or "unknown" for r in graded if not r.scored)),
        calls=sum(r.calls for r in runs),
        captured_calls=sum(r.captured for r in runs),
        uncaptured_calls=sum(r.uncaptured for r in runs),
        unusable_calls=sum(r.unusable for r in runs),
        exploration_executed=sum(r.exploration == "executed" for r in graded),
        turns=turn_summaries(graded),
    )


def turn_summaries(runs: Sequence[RunCore]) -> tuple[TurnSummary, ...]:
    by_turn: dict[int, Counter[str]] = {}
    for run in runs:
        for turn in run.repair_turns:
            by_turn.setdefault(turn.turn, Counter())[turn.effect] += 1
    return tuple(
        TurnSummary(turn, sum(c.values()), c[RepairEffect.RESCUED], c[RepairEffect.REGRESSED], c[RepairEffect.UNCHANGED])
        for turn, c in sorted(by_turn.items())
    )


def compare_pair(a: str, b: str, runs: Sequence[RunCore], spec: HeadlineSpec, rng: Any) -> PairedComparison:
    """a minus b over the seeds where both runs count (graded; scored too when failures have no value),
    signed so that a positive difference means a is better."""
    def counted(model: str) -> dict[int, float]:
        values = {r.seed: r.counted(spec) for r in runs if r.model == model and r.graded and r.seed is not None}
        return {seed: value for seed, value in values.items() if value is not None and seed is not None}

    by_seed_a, by_seed_b = counted(a), counted(b)
    seeds = tuple(sorted(set(by_seed_a) & set(by_seed_b)))
    sign = 1.0 if spec.higher_is_better else -1.0
    diffs = [sign * (by_seed_a[s] - by_seed_b[s]) for s in seeds]
    return PairedComparison(
        model_a=a,
        model_b=b,
        seeds=seeds,
        difference=bootstrap_mean(diffs, rng),
        a_wins=sum(d > 0 for d in diffs),
        b_wins=sum(d < 0 for d in diffs),
        ties=sum(d == 0 for d in diffs),
        spread=statistics.stdev(diffs) if len(diffs) > 1 else None,
    )


def summarise_core(runs: Sequence[RunCore], models: Sequence[str], spec: HeadlineSpec,
                   bootstrap_seed: int = 0, grade: type[Grade] | None = None) -> CoreSummary:
    """Every model's summary and every pair's comparison, one seeded Generator for all resampling; with the
    task's grade, each model's declared grade figures (bakeoff.analysis.grades, a Generator of their own)."""
    import numpy as np

    rng = np.random.default_rng(bootstrap_seed)
    ordered = list(models) + sorted({r.model for r in runs} - set(models))
    summaries = tuple(summarise_model(m, [r for r in runs if r.model == m], spec, rng) for m in ordered)
    pairs = tuple(compare_pair(a, b, runs, spec, rng) for a, b in combinations(ordered, 2))
    rows = tuple(scaffold_row(m, [r for r in runs if r.model == m]) for m in ordered)
    grades = () if grade is None else grade_estimates([(r.model, r.scored_grade) for r in runs], ordered, grade,
                                                      bootstrap_seed)
    return CoreSummary(spec, tuple(runs), summaries, pairs, bootstrap_seed, rows, scaffold_pairs(rows, pairs),
                       grade, grades)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def scaffold_row(row: str, runs: Sequence[RunCore]) -> ScaffoldRow:
    graded = [r for r in runs if r.graded]
    first = runs[0] if runs else None
    loops = [r.loop for r in graded if r.loop is not None]
    unusable: Counter[str] = Counter()
    for run in runs:
        if run.loop is not None:
            unusable.update(run.loop.unusable_steps)
    return ScaffoldRow(
        row=row, model=first.base_model if first else row, scaffold=first.scaffold if first else DEFAULT_SCAFFOLD,
        graded=len(graded), mean_rung=_mean([r.rung for r in graded]), mean_steps=_mean([r.steps for r in graded]),
        mean_tokens=_mean([r.tokens for r in graded]),
        ended_by=dict(Counter(loop.ended_by or "unfinished" for loop in loops)),
        ran_own_code=sum(loop.own_code_runs > 0 for loop in loops),
        mean_own_code_runs=_mean([loop.own_code_runs for loop in loops]) if loops else None,
        unusable_steps=dict(unusable),
    )


def scaffold_pairs(rows: Sequence[ScaffoldRow], pairs: Sequence[PairedComparison]) -> tuple[PairedComparison, ...]:
    """The comparisons of one model under two scaffolds (its staged row first), taken from every pair's."""
    by_row = {r.row: r for r in rows}
    found = []
    for pair in pairs:
        a, b = by_row.get(pair.model_a), by_row.get(pair.model_b)
        if a is not None and b is not None and a.model == b.model and a.scaffold != b.scaffold:
            found.append(pair)
    return tuple(found)
