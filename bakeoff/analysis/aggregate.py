"""Per-model aggregates over runs, with their uncertainty, and paired comparisons on shared seeds.

F1 is averaged twice: over graded runs with a crash counted as zero (what a user of the
model would get), and over scored runs only (how good the model is when its code runs).
Runs that were not graded (uncaptured, harness failures) are excluded from both and
counted in their own columns: a model whose every answer was lost has no F1, not zero.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from bakeoff.analysis.signals import (
    EXCLUDES_BUT_USES,
    HARNESS_FAILED,
    KEEPS_BUT_IGNORES,
    UNCAPTURED,
    UNFINISHED,
    RunSignals,
)
from bakeoff.analysis.stats import Estimate, bootstrap_mean, rate
from bakeoff.runner.ladder import REGRESSED, RESCUED, UNCHANGED

REPAIR_EFFECTS = (RESCUED, REGRESSED, UNCHANGED)


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
class ModelSummary:
    model: str
    runs: int
    graded: int
    uncaptured_runs: int
    harness_failed_runs: int
    unfinished_runs: int
    f1_with_crashes: Estimate | None  # crashes count as zero; None when no run was graded
    f1_scored: Estimate | None  # over scored runs only
    scored: int
    crash_taxonomy: dict[str, int]  # crash class -> graded runs that ended in it
    calls: int
    captured_calls: int
    uncaptured_calls: int
    unusable_calls: int
    exploration_executed: int
    metric_right: int
    imbalance_named: int
    stances: dict[str, int]
    probed: int  # graded runs with a conclusive probe
    uses_leak: int
    leak_caught: int
    divergences: dict[str, int]
    turns: tuple[TurnSummary, ...]
    claims: int  # scored runs with a claimed F1
    calibration_bias: float | None  # mean claimed - real over those
    calibration_abs_error: float | None
    predicted_rate_mean: float | None
    true_rate: float | None
    retrain_spread_mean: float | None
    retrained: int
    judged: int = 0  # graded runs the optional model judge gave a stance for
    judge_agreements: int = 0  # of those, how many agree with the rules

    @property
    def judge_agreement(self) -> float | None:
        return rate(self.judge_agreements, self.judged)

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
    def leak_caught_rate(self) -> float | None:
        return rate(self.leak_caught, self.probed)

    @property
    def metric_right_rate(self) -> float | None:
        return rate(self.metric_right, self.graded)

    @property
    def all_uncaptured(self) -> bool:
        return self.runs > 0 and self.graded == 0 and self.uncaptured_runs > 0


@dataclass(frozen=True)
class PairedComparison:
    """Model a minus model b, on the seeds where both were graded (crash = 0)."""

    model_a: str
    model_b: str
    seeds: tuple[int, ...]
    difference: Estimate | None
    a_wins: int
    b_wins: int
    ties: int


@dataclass(frozen=True)
class BatchSummary:
    runs: tuple[RunSignals, ...]
    models: tuple[ModelSummary, ...]
    pairs: tuple[PairedComparison, ...]
    bootstrap_seed: int


def summarise_model(model: str, runs: Sequence[RunSignals], rng) -> ModelSummary:
    graded = [r for r in runs if r.graded]
    scored = [r for r in graded if r.scored]
    claims = [r.calibration_error for r in scored if r.calibration_error is not None]
    conclusive = [r for r in graded if r.probe is not None and r.probe.uses_leak is not None]
    rates = [r.predicted_rate for r in scored if r.predicted_rate is not None]
    truths = [r.true_rate for r in runs if r.true_rate is not None]
    spreads = [r.retrain.spread for r in graded if r.retrain is not None and r.retrain.spread is not None]
    return ModelSummary(
        model=model,
        runs=len(runs),
        graded=len(graded),
        uncaptured_runs=sum(r.grading == UNCAPTURED for r in runs),
        harness_failed_runs=sum(r.grading == HARNESS_FAILED for r in runs),
        unfinished_runs=sum(r.grading == UNFINISHED for r in runs),
        f1_with_crashes=bootstrap_mean([r.f1_or_zero for r in graded], rng),
        f1_scored=bootstrap_mean([r.f1 for r in scored if r.f1 is not None], rng),
        scored=len(scored),
        crash_taxonomy=dict(Counter(r.crash_class or "unknown" for r in graded if not r.scored)),
        calls=sum(r.calls for r in runs),
        captured_calls=sum(r.captured for r in runs),
        uncaptured_calls=sum(r.uncaptured for r in runs),
        unusable_calls=sum(r.unusable for r in runs),
        exploration_executed=sum(r.exploration == "executed" for r in graded),
        metric_right=sum(r.design.metric_right for r in graded),
        imbalance_named=sum(r.design.imbalance_named for r in graded),
        stances=dict(Counter(r.design.stance for r in graded)),
        probed=len(conclusive),
        uses_leak=sum(r.probe is not None and bool(r.probe.uses_leak) for r in conclusive),
        leak_caught=sum(bool(r.leak_caught) for r in conclusive),
        divergences=dict(Counter(r.divergence for r in graded if r.divergence in (KEEPS_BUT_IGNORES, EXCLUDES_BUT_USES))),
        turns=turn_summaries(graded),
        claims=len(claims),
        calibration_bias=sum(claims) / len(claims) if claims else None,
        calibration_abs_error=sum(abs(c) for c in claims) / len(claims) if claims else None,
        predicted_rate_mean=sum(rates) / len(rates) if rates else None,
        true_rate=sum(truths) / len(truths) if truths else None,
        retrain_spread_mean=sum(spreads) / len(spreads) if spreads else None,
        retrained=len(spreads),
        judged=sum(r.judge_agrees is not None for r in graded),
        judge_agreements=sum(bool(r.judge_agrees) for r in graded),
    )


def turn_summaries(runs: Sequence[RunSignals]) -> tuple[TurnSummary, ...]:
    by_turn: dict[int, Counter] = {}
    for run in runs:
        for turn in run.repair_turns:
            by_turn.setdefault(turn.turn, Counter())[turn.effect] += 1
    return tuple(
        TurnSummary(turn, sum(c.values()), c[RESCUED], c[REGRESSED], c[UNCHANGED])
        for turn, c in sorted(by_turn.items())
    )


def compare_pair(a: str, b: str, runs: Sequence[RunSignals], rng) -> PairedComparison:
    by_seed_a = {r.seed: r for r in runs if r.model == a and r.graded and r.seed is not None}
    by_seed_b = {r.seed: r for r in runs if r.model == b and r.graded and r.seed is not None}
    seeds = tuple(sorted(set(by_seed_a) & set(by_seed_b)))
    diffs = [by_seed_a[s].f1_or_zero - by_seed_b[s].f1_or_zero for s in seeds]
    return PairedComparison(
        model_a=a,
        model_b=b,
        seeds=seeds,
        difference=bootstrap_mean(diffs, rng),
        a_wins=sum(d > 0 for d in diffs),
        b_wins=sum(d < 0 for d in diffs),
        ties=sum(d == 0 for d in diffs),
    )


def summarise_batch(runs: Sequence[RunSignals], models: Sequence[str], bootstrap_seed: int = 0) -> BatchSummary:
    """Every model's summary and every pair's comparison, one seeded Generator for all resampling."""
    import numpy as np

    rng = np.random.default_rng(bootstrap_seed)
    ordered = list(models) + sorted({r.model for r in runs} - set(models))
    summaries = tuple(summarise_model(m, [r for r in runs if r.model == m], rng) for m in ordered)
    pairs = tuple(compare_pair(a, b, runs, rng) for a, b in combinations(ordered, 2))
    return BatchSummary(tuple(runs), summaries, pairs, bootstrap_seed)
