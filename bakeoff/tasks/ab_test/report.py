"""The ab_test take-home's report section: unit of analysis (probe, design, divergence) and interval metrics.

Two tables (per run, per model), two plots (each run's intervals against the true effects over the hidden
experiments; the probe's width ratio per run against what a by-user and a by-visit analysis give) and
plain-sentence findings. `ab_test_section(records)` is what the ab_test plug-in's `report_sections` returns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bakeoff.batchfolder.read import BatchRecords
from bakeoff.records import RepairEffect
from bakeoff.report.core import cells, count
from bakeoff.report.sections import Plot, ReportSection
from bakeoff.report.svg import INK, MUTED, Canvas, Scale, empty_note, y_axis
from bakeoff.report.tables import Table, cols
from bakeoff.tasks.ab_test.signals import AbModelSummary, AbRunSignals, ab_run_signals, summarise_models
from bakeoff.tasks.ab_test.unit_probe import StatedUnit, UnitDivergence
from bakeoff.tasks.intervals.report import (
    MODEL_HEAD,
    RUN_HEAD,
    RUN_TAIL,
    divergence_mark,
    draw_intervals,
    findings_by_model,
    marks_legend,
    model_head,
    model_order,
    ordered,
    plotted,
    probe_canvas,
    probe_rows,
    run_head,
    run_tail,
    runs_legend,
    unscored_finding,
    with_interval,
)
from generators.ab_test.probe import USER_MIN_RATIO, VISIT_MAX_RATIO, VISIT_RATIO, Unit

WIDTH, HEIGHT = 600, 380
LEFT, RIGHT, TOP, BOTTOM = 80, 20, 40, 50
LEGEND_W = 110
DIVERGENT = (UnitDivergence.STATES_USER_ANALYSES_VISITS, UnitDivergence.STATES_VISIT_ANALYSES_USERS)


# -- tables ------------------------------------------------------------------------------------------

def runs_table(runs: Sequence[AbRunSignals], models: Sequence[str]) -> Table:
    columns = cols(
        f"{RUN_HEAD} stated_unit measured_unit width_ratio:f3 divergence "
        f"coverage:pct mean_abs_error:f4 mean_width:f4 winkler:f4 experiments:int graded:int failed:int {RUN_TAIL}"
    )
    rows = []
    for r in ordered(runs, models):
        m = r.grade
        rows.append((
            *run_head(r), r.stated.value,
            r.probe.unit.value if r.probe else None, r.probe.probe.width_ratio if r.probe else None,
            r.divergence.value if r.divergence else None,
            *((m.coverage, m.mean_abs_error, m.mean_width, m.winkler, m.items, m.graded, m.failed) if m
              else (None,) * 7),
            *run_tail(r),
        ))
    return Table("ab_runs", "Per run: unit of analysis and intervals", columns, tuple(rows),
                 short=("run_id", "grading", "status", "stated_unit", "measured_unit", "divergence", "coverage",
                        "winkler", "transcript"))


def models_table(models: Sequence[AbModelSummary]) -> Table:
    columns = cols(
        f"{MODEL_HEAD} by_user:int by_visit:int unclear:int probe_failed:int data_free:int fixed_width:int "
        "stated_user:int stated_visit:int stated_none:int divergent:int coverage:pct coverage_low:pct "
        "coverage_high:pct mean_abs_error:f4 mean_width:f4 winkler:f4 winkler_low:f4 winkler_high:f4"
    )
    rows = []
    for m in models:
        figure = m.figures.metric
        rows.append((
            *model_head(m, m.probed), *(m.measured.get(u.value, 0) for u in Unit),
            m.stated.get(StatedUnit.USER, 0), m.stated.get(StatedUnit.VISIT, 0),
            m.stated.get(StatedUnit.UNSTATED, 0) + m.stated.get(StatedUnit.BOTH, 0),
            m.divergent, *cells(figure("coverage")), *cells(figure("mean_abs_error"), False),
            *cells(figure("mean_width"), False), *cells(figure("winkler")),
        ))
    return Table("ab_models", "Per model: unit of analysis and intervals", columns, tuple(rows),
                 short=("model", "runs", "graded", "scored", "crash_rate", "by_user", "by_visit", "coverage",
                        "winkler"))


# -- findings ----------------------------------------------------------------------------------------

def _designs(n: int) -> str:
    return "1 design states" if n == 1 else f"{n} designs state"


def findings(models: Sequence[AbModelSummary]) -> list[str]:
    return findings_by_model(models, _findings_of)


def _findings_of(m: AbModelSummary) -> list[str]:
    lines = []
    if m.uncaptured_runs or m.harness_failed_runs:
        lines.append(f"{m.model}: {m.uncaptured_runs} uncaptured and {m.harness_failed_runs} harness-failed runs "
                     "left out of the scores.")
    unscored = unscored_finding(m, "experiment")
    if unscored is not None:
        lines.append(unscored)
    if m.repair_effects.get(RepairEffect.REGRESSED):
        lines.append(f"{m.model}: {m.repair_effects[RepairEffect.REGRESSED]} repair turn(s) made the analysis worse.")
    if m.probed:
        by_user, by_visit = m.measured.get(Unit.USER.value, 0), m.measured.get(Unit.VISIT.value, 0)
        lines.append(
            f"{m.model}: the unit probe found {by_visit} of {m.probed} probed "
            f"{'analysis' if m.probed == 1 else 'analyses'} by visit (the interval narrowed by about 1/sqrt(2) "
            f"when every visit was logged twice) and {by_user} by user."
        )
    states_user = m.divergences.get(UnitDivergence.STATES_USER_ANALYSES_VISITS.value, 0)
    if states_user:
        lines.append(f"{m.model}: {_designs(states_user)} UNIT: user while the code analyses visits.")
    states_visit = m.divergences.get(UnitDivergence.STATES_VISIT_ANALYSES_USERS.value, 0)
    if states_visit:
        lines.append(f"{m.model}: {_designs(states_visit)} UNIT: visit while the code analyses users.")
    coverage, winkler = m.figures.metric("coverage"), m.figures.metric("winkler")
    if coverage is not None and winkler is not None:
        lines.append(
            f"{m.model}: intervals cover the true effect on {coverage.mean:.0%} of the hidden experiments "
            f"over {count(m.scored, 'scored run')}; mean Winkler score {with_interval(winkler)} (lower is better)."
        )
    return lines


# -- plots -------------------------------------------------------------------------------------------

def _y_range(truths: list[float], runs: Sequence[AbRunSignals]) -> tuple[float, float]:
    """The truths' span widened to hold typical intervals; a wild interval is clipped, not allowed to flatten the rest."""
    ends = sorted(v for r in runs for p in r.points for v in (p.ci_low, p.ci_high) if v is not None)
    lo, hi = min(truths), max(truths)
    if ends:
        lo = min(lo, ends[int(0.02 * (len(ends) - 1))])
        hi = max(hi, ends[int(math.ceil(0.98 * (len(ends) - 1)))])
    pad = (hi - lo) * 0.08 or 0.01
    return lo - pad, hi + pad


def intervals_plot(runs: Sequence[AbRunSignals], models: Sequence[str]) -> str:
    """Each plotted run's interval on every hidden experiment, side by side, against the true effect."""
    canvas = Canvas(WIDTH, HEIGHT, "Intervals against the true effect, hidden experiments")
    shown = plotted(runs, models)
    truth = {p.item: p.truth for r in shown for p in r.points}
    if not truth:
        empty_note(canvas, "no run was graded on the hidden experiments")
        return canvas.to_svg()
    experiments = sorted(truth, key=lambda name: (truth[name], name))
    lo, hi = _y_range(list(truth.values()), shown)
    right = WIDTH - RIGHT - LEGEND_W
    ys = Scale(lo, hi, HEIGHT - BOTTOM, TOP)
    y_axis(canvas, ys, LEFT, "effect of B on conversion", fmt="{:.3f}", grid_to=right)
    canvas.line(LEFT, HEIGHT - BOTTOM, right, HEIGHT - BOTTOM)
    canvas.text((LEFT + right) / 2, HEIGHT - BOTTOM + 20, f"{len(experiments)} hidden experiments, by true effect",
                size=11, anchor="middle")
    if lo < 0 < hi:
        canvas.line(LEFT, ys(0.0), right, ys(0.0), stroke=MUTED, dash="4 3")
    slot = (right - LEFT) / len(experiments)
    for i, name in enumerate(experiments):
        x0 = LEFT + i * slot
        canvas.line(x0 + slot * 0.1, ys(truth[name]), x0 + slot * 0.9, ys(truth[name]), stroke=INK, width=2)
    # an end beyond the frame is drawn at its edge
    draw_intervals(canvas, shown, experiments, LEFT, slot, models, lambda v, _: ys(min(max(v, lo), hi)), ".4f")
    runs_legend(canvas, shown, runs, models, right, TOP, "true effect")
    return canvas.to_svg()


def probe_plot(runs: Sequence[AbRunSignals], models: Sequence[str]) -> str:
    """Each probed run's width ratio (duplicated visits / original) per model, against 1 and 1/sqrt(2)."""
    canvas, rows = probe_canvas(runs, models, WIDTH, HEIGHT, "Unit probe: interval width with every visit logged twice")
    if not rows:
        return canvas.to_svg()
    left, right = 150, WIDTH - RIGHT - LEGEND_W
    xs = Scale(0.5, 1.2, left, right)
    top, bottom = TOP + 16, HEIGHT - BOTTOM
    canvas.rect(xs(VISIT_MAX_RATIO), top, xs(USER_MIN_RATIO) - xs(VISIT_MAX_RATIO), bottom - top, "#f3f3f3")
    canvas.text((xs(VISIT_MAX_RATIO) + xs(USER_MIN_RATIO)) / 2, top - 4, "unclear", size=10, anchor="middle", fill=MUTED)
    for ratio, label in ((VISIT_RATIO, "by visit"), (1.0, "by user")):
        canvas.line(xs(ratio), top, xs(ratio), bottom, stroke=INK, dash="5 3")
        canvas.text(xs(ratio), top - 4, label, size=10, anchor="middle")
    canvas.line(left, bottom, right, bottom)
    for tick in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2):
        canvas.line(xs(tick), bottom, xs(tick), bottom + 4)
        canvas.text(xs(tick), bottom + 16, f"{tick:.1f}", size=10, anchor="middle")
    canvas.text((left + right) / 2, bottom + 32, "width ratio: duplicated / original", size=11, anchor="middle")
    probe_rows(canvas, runs, models, rows, left, right, top, bottom,
               ratio_of=lambda run: run.probe.probe.width_ratio if run.probe else None,
               x_of=lambda ratio: xs(min(max(ratio, 0.5), 1.2)),
               tip_of=lambda run, ratio: (f"{run.run_id}: ratio {ratio:.3f}, {run.probe.unit.value if run.probe else ''}, "
                                          f"design {run.stated.value}"),
               mark_of=lambda run: divergence_mark(run.divergence, UnitDivergence.CONSISTENT, DIVERGENT))
    marks_legend(canvas, right, TOP)
    return canvas.to_svg()


def ab_test_section(records: BatchRecords, bootstrap_seed: int = 0) -> ReportSection:
    runs = [ab_run_signals(run) for run in records.runs]
    models = model_order(runs, records.model_labels())
    summaries = summarise_models(runs, models, bootstrap_seed)
    plots = (
        Plot("ab_intervals", "Each run's 95% interval on every hidden experiment (coloured bars, dots at the "
             "estimate) against the true effect (black ticks), experiments ordered by true effect.",
             intervals_plot(runs, models)),
        Plot("ab_unit_probe", "The unit probe: width of the interval with every visit logged twice over the "
             "original's; about 1 is an analysis by user, about 0.71 by visit. Colour: the model; shape: does the "
             "design's UNIT agree.",
             probe_plot(runs, models)),
    )
    return ReportSection("A/B test: unit of analysis and intervals", tuple(findings(summaries)),
                         (models_table(summaries), runs_table(runs, models)), plots)
