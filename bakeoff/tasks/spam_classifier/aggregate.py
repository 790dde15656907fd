"""Per-model aggregates over runs, with their uncertainty, and paired comparisons on shared seeds.

F1 is averaged twice: over graded runs with a crash counted as zero (what a user of the
model would get), and over scored runs only (how good the model is when its code runs).
Runs that were not graded (uncaptured, harness failures) are excluded from both and
counted in their own columns: a model whose every answer was lost has no F1, not zero.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bakeoff.analysis.core import REPAIR_EFFECTS, CoreSummary, ModelCore, PairedComparison, TurnSummary, summarise_core
from bakeoff.analysis.stats import Estimate, rate
from bakeoff.tasks.spam_classifier.signals import EXCLUDES_BUT_USES, KEEPS_BUT_IGNORES, RunSignals
from bakeoff.tasks.spam_classifier.words import HEADLINE

__all__ = ["REPAIR_EFFECTS", "BatchSummary", "ModelSummary", "PairedComparison", "TurnSummary", "summarise_batch"]


@dataclass(frozen=True)
class ModelSummary(ModelCore):
    """What every task's summary of a model holds (F1 over graded runs with a crash as zero, and over scored
    runs; crashes, capture, repair turns) and what the spam take-home adds."""

    metric_right: int
    imbalance_named: int
    stances: dict[str, int]
    probed: int  # graded runs with a conclusive probe
    uses_leak: int
    leak_caught: int
    divergences: dict[str, int]
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
    def f1_with_crashes(self) -> Estimate | None:
        """Crashes count as zero; None when no run was graded."""
        return self.with_failures

    @property
    def f1_scored(self) -> Estimate | None:
        return self.over_scored

    @property
    def judge_agreement(self) -> float | None:
        return rate(self.judge_agreements, self.judged)

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
class BatchSummary:
    runs: tuple[RunSignals, ...]
    models: tuple[ModelSummary, ...]
    pairs: tuple[PairedComparison, ...]
    bootstrap_seed: int


def summarise_model(core: ModelCore, runs: Sequence[RunSignals]) -> ModelSummary:
    """The model's core summary (F1 with crashes as zero and over scored runs, crashes, repair turns) with
    what the spam take-home adds: the design's choices, the leak probe, the claims, the rates, the retrains."""
    graded = [r for r in runs if r.graded]
    scored = [r for r in graded if r.scored]
    claims = [r.calibration_error for r in scored if r.calibration_error is not None]
    conclusive = [r for r in graded if r.probe is not None and r.probe.uses_leak is not None]
    rates = [r.predicted_rate for r in scored if r.predicted_rate is not None]
    truths = [r.true_rate for r in runs if r.true_rate is not None]
    spreads = [r.retrain.spread for r in graded if r.retrain is not None and r.retrain.spread is not None]
    return ModelSummary(
        **{f.name: getattr(core, f.name) for f in dataclasses.fields(core)},
        metric_right=sum(r.design.metric_right for r in graded),
        imbalance_named=sum(r.design.imbalance_named for r in graded),
        stances=dict(Counter(r.design.stance for r in graded)),
        probed=len(conclusive),
        uses_leak=sum(r.probe is not None and bool(r.probe.uses_leak) for r in conclusive),
        leak_caught=sum(bool(r.leak_caught) for r in conclusive),
        divergences=dict(Counter(r.divergence for r in graded if r.divergence in (KEEPS_BUT_IGNORES, EXCLUDES_BUT_USES))),
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


def summarise_batch(runs: Sequence[RunSignals], models: Sequence[str], bootstrap_seed: int = 0,
                    core: CoreSummary | None = None) -> BatchSummary:
    """Every model's summary on the core summary of the same runs (its intervals and pairs: given when the
    report already has it, else made here with the one seeded Generator)."""
    if core is None:
        core = summarise_core(runs, models, HEADLINE, bootstrap_seed)
    summaries = tuple(summarise_model(m, [r for r in runs if r.model == m.model]) for m in core.models)
    return BatchSummary(tuple(runs), summaries, core.pairs, core.bootstrap_seed)
