"""The report's tables: raw values (for CSV) with a display kind per column (for Markdown and HTML)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bakeoff.analysis.aggregate import BatchSummary, ModelSummary
from bakeoff.analysis.design import EXCLUDED_WITH_REASON, EXCLUDED_WITHOUT_REASON
from bakeoff.analysis.stats import rate
from bakeoff.report.transcript import transcript_path

UNCAPTURED_CELL = "uncaptured"  # an F1 cell of a model with no graded run: never a zero


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = "text"  # text, int, f3 (three decimals), f4 (four: effects on a conversion rate), pct


@dataclass(frozen=True)
class Table:
    name: str  # file stem of its CSV
    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([c.name for c in self.columns])
        for row in self.rows:
            writer.writerow(["" if v is None else v for v in row])
        return out.getvalue()


def display(value: Any, kind: str) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    if kind == "pct":
        return f"{value:.0%}" if value in (0, 1) else f"{value:.1%}"
    if kind == "f3":
        return f"{value:.3f}"
    if kind == "f4":
        return f"{value:.4f}"
    return str(value)


def _short(text: str | None, limit: int = 120) -> str | None:
    if text is None:
        return None
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _cols(spec: str) -> tuple[Column, ...]:
    """'name:kind name2:kind2 ...' (kind defaults to text)."""
    return tuple(Column(*part.split(":")) for part in spec.split())


def _f1_cells(model: ModelSummary, estimate) -> tuple[Any, Any, Any]:
    if estimate is None:
        marker = UNCAPTURED_CELL if model.all_uncaptured else None
        return marker, marker, marker
    return estimate.mean, estimate.low, estimate.high


def models_table(summary: BatchSummary) -> Table:
    columns = _cols(
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
    return Table("models", "Per model: scores and capture", columns, tuple(rows))


def behaviour_table(summary: BatchSummary) -> Table:
    columns = _cols(
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
    return Table("model_behaviour", "Per model: design, leak, calibration", columns, tuple(rows))


def runs_table(summary: BatchSummary) -> Table:
    columns = _cols(
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
            r.crash_class, _short(r.crash_detail), " ".join(t.effect for t in r.repair_turns) or None, r.predicted_rate, r.true_rate,
            r.claimed_f1, r.claim_source, r.retrain.spread if r.retrain else None, transcript_path(r.run_id),
        ))
    return Table("runs", "Per run", columns, tuple(rows))


def crash_table(summary: BatchSummary) -> Table:
    rows = []
    for m in summary.models:
        for crash_class, count in sorted(m.crash_taxonomy.items(), key=lambda item: -item[1]):
            rows.append((m.model, crash_class, count, rate(count, m.graded)))
    return Table("crash_taxonomy", "Crash taxonomy", _cols("model crash_class runs:int share_of_graded:pct"), tuple(rows))


def repair_table(summary: BatchSummary) -> Table:
    rows = [
        (m.model, t.turn, t.granted, t.rescued, t.regressed, t.unchanged, t.rescue_rate, t.regression_rate)
        for m in summary.models
        for t in m.turns
    ]
    columns = _cols("model turn:int granted:int rescued:int regressed:int unchanged:int rescue_rate:pct regression_rate:pct")
    return Table("repair_turns", "Repair turns", columns, tuple(rows))


def pairs_table(summary: BatchSummary) -> Table:
    rows = []
    for p in summary.pairs:
        d = p.difference
        rows.append((p.model_a, p.model_b, len(p.seeds), d.mean if d else None, d.low if d else None,
                     d.high if d else None, p.a_wins, p.b_wins, p.ties))
    columns = _cols("model_a model_b shared_seeds:int f1_difference:f3 low:f3 high:f3 a_wins:int b_wins:int ties:int")
    return Table("paired_comparisons", "Paired comparisons (F1 of a minus b, crashes as zero)", columns, tuple(rows))


def all_tables(summary: BatchSummary, extra: Sequence[Table] = ()) -> list[Table]:
    return [models_table(summary), behaviour_table(summary), runs_table(summary), crash_table(summary), repair_table(summary),
            pairs_table(summary), *extra]
