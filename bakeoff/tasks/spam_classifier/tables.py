"""The spam take-home's tables: per model (F1 and capture; design, leak and calibration) and per run."""

from __future__ import annotations

from typing import Any

from bakeoff.analysis.stats import Estimate, rate
from bakeoff.report.tables import UNCAPTURED_CELL, Table, cols, short
from bakeoff.report.transcript import transcript_path
from bakeoff.tasks.spam_classifier.aggregate import BatchSummary, ModelSummary
from bakeoff.tasks.spam_classifier.design import EXCLUDED_WITH_REASON, EXCLUDED_WITHOUT_REASON


def _f1_cells(model: ModelSummary, estimate: Estimate | None) -> tuple[Any, Any, Any]:
    if estimate is None:
        marker = UNCAPTURED_CELL if model.all_uncaptured else None
        return marker, marker, marker
    low, high = estimate.bounds  # none from too few runs
    return estimate.mean, low, high


def models_table(summary: BatchSummary) -> Table:
    columns = cols(
        "model runs:int graded:int uncaptured_runs:int harness_failed_runs:int "
        "f1:f3 f1_low:f3 f1_high:f3 f1_scored:f3 f1_scored_low:f3 f1_scored_high:f3 scored:int crash_rate:pct "
        "capture_rate:pct unusable_rate:pct uncaptured_rate:pct"
    )
    rows = []
    for m in summary.models:
        rows.append((
            m.model, m.runs, m.graded, m.uncaptured_runs, m.harness_failed_runs,
            *_f1_cells(m, m.f1_with_crashes), *_f1_cells(m, m.f1_scored), m.scored, m.crash_rate,
            m.capture_rate, m.unusable_rate, m.uncaptured_rate,
        ))
    return Table("models", "Per model: scores and capture", columns, tuple(rows),
                 short=("model", "runs", "graded", "f1", "f1_low", "f1_high", "scored", "crash_rate", "capture_rate"))


def behaviour_table(summary: BatchSummary) -> Table:
    columns = cols(
        "model graded:int exploration_executed:pct metric_right:pct imbalance_named:pct design_excludes_leak:pct "
        "probed:int uses_leak:int leak_caught:pct divergences:int claims:int calibration_bias:f3 "
        "calibration_abs_error:f3 predicted_rate:pct true_rate:pct retrain_spread:f3 retrained:int "
        "judged:int judge_agreement:pct"
    )
    rows = []
    for m in summary.models:
        excluded = m.stances.get(EXCLUDED_WITH_REASON, 0) + m.stances.get(EXCLUDED_WITHOUT_REASON, 0)
        rows.append((
            m.model, m.graded, rate(m.exploration_executed, m.graded), m.metric_right_rate,
            rate(m.imbalance_named, m.graded), rate(excluded, m.graded), m.probed, m.uses_leak, m.leak_caught_rate,
            sum(m.divergences.values()), m.claims, m.calibration_bias, m.calibration_abs_error,
            m.predicted_rate_mean, m.true_rate, m.retrain_spread_mean, m.retrained, m.judged, m.judge_agreement,
        ))
    return Table("model_behaviour", "Per model: design, leak, calibration", columns, tuple(rows),
                 short=("model", "graded", "metric_right", "design_excludes_leak", "probed", "uses_leak",
                        "divergences", "calibration_abs_error", "predicted_rate"))


def runs_table(summary: BatchSummary) -> Table:
    columns = cols(
        "run_id model seed:int grading exploration metric imbalance_named stance judge_stance probe divergence "
        "status rung:int f1:f3 crash_class crash_detail repair_effects predicted_rate:pct true_rate:pct claimed_f1:f3 "
        "claim_source retrain_spread:f3 transcript"
    )
    rows = []
    model_order = {m.model: i for i, m in enumerate(summary.models)}
    for r in sorted(summary.runs, key=lambda run: (model_order.get(run.model, len(model_order)), run.run_id)):
        rows.append((
            r.run_id, r.model, r.seed, r.grading, r.exploration, r.design.metric, "yes" if r.design.imbalance_named else "no",
            r.design.stance, r.judge_stance, r.probe.verdict if r.probe else None, r.divergence, r.outcome_status, r.rung, r.f1,
            r.crash_class, short(r.crash_detail), " ".join(t.effect for t in r.repair_turns) or None, r.predicted_rate, r.true_rate,
            r.claimed_f1, r.claim_source, r.retrain.spread if r.retrain else None, transcript_path(r.run_id),
        ))
    return Table("runs", "Per run", columns, tuple(rows),
                 short=("run_id", "grading", "stance", "probe", "status", "f1", "crash_class", "repair_effects",
                        "transcript"))
