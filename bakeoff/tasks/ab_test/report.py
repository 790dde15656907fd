"""The ab_test take-home's report section: unit of analysis (probe, design, divergence) and interval metrics.

Two tables (per run, per model), two plots (each run's intervals against the true effects over the hidden
experiments; the probe's width ratio per run against what a by-user and a by-visit analysis give) and
plain-sentence findings. `ab_test_section(records)` is what the ab_test plug-in's `report_sections` returns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bakeoff.analysis.stats import Estimate
from bakeoff.batchfolder.read import BatchRecords
from bakeoff.report.core import count
from bakeoff.report.plots import model_colours
from bakeoff.report.sections import Plot, ReportSection
from bakeoff.report.svg import INK, MUTED, Canvas, Scale, empty_note, legend, y_axis
from bakeoff.report.tables import Table, cols
from bakeoff.report.transcript import transcript_path
from bakeoff.tasks.ab_test.signals import AbModelSummary, AbRunSignals, ab_run_signals, summarise_models
from bakeoff.tasks.ab_test.unit_probe import UnitDivergence
from generators.calibration.ab_probe import USER_MIN_RATIO, VISIT_MAX_RATIO, VISIT_RATIO, Unit

WIDTH, HEIGHT = 600, 380
LEFT, RIGHT, TOP, BOTTOM = 80, 20, 40, 50
LEGEND_W = 110
MAX_PLOTTED_RUNS = 6  # side by side in each experiment's slot; more would be a smear
# The probe plot marks whether a design's stated unit agrees by the dot's shape; its colour is the model's.
DIVERGENCE_MARKS = {"consistent": "filled dot", "divergent": "diamond", "unstated": "hollow dot"}


def _model_order(runs: Sequence[AbRunSignals], labels: Sequence[str]) -> list[str]:
    order = [label for label in labels if any(r.model == label for r in runs)]
    return order + sorted({r.model for r in runs} - set(order))


def _ordered(runs: Sequence[AbRunSignals], models: Sequence[str]) -> list[AbRunSignals]:
    rank = {model: i for i, model in enumerate(models)}
    return sorted(runs, key=lambda r: (rank.get(r.model, len(rank)), r.run_id))


# -- tables ------------------------------------------------------------------------------------------

def runs_table(runs: Sequence[AbRunSignals], models: Sequence[str]) -> Table:
    columns = cols(
        "run_id model seed:int grading status crash_class stated_unit measured_unit width_ratio:f3 divergence "
        "coverage:pct mean_abs_error:f4 mean_width:f4 winkler:f4 experiments:int graded:int failed:int "
        "repair_effects transcript"
    )
    rows = []
    for r in _ordered(runs, models):
        m = r.metrics
        rows.append((
            r.run_id, r.model, r.seed, r.grading, r.status, r.crash_class, r.stated.value,
            r.probe.unit.value if r.probe else None, r.probe.probe.width_ratio if r.probe else None,
            r.divergence.value if r.divergence else None,
            *((m.coverage, m.mean_abs_error, m.mean_width, m.winkler, m.experiments, m.graded, m.failed) if m
              else (None,) * 7),
            " ".join(r.repair_effects) or None, transcript_path(r.run_id),
        ))
    return Table("ab_runs", "Per run: unit of analysis and intervals", columns, tuple(rows),
                 short=("run_id", "grading", "status", "stated_unit", "measured_unit", "divergence", "coverage",
                        "winkler", "transcript"))


def _cells(estimate: Estimate | None, interval: bool = True) -> tuple[float | None, ...]:
    if estimate is None:
        return (None, None, None) if interval else (None,)
    return (estimate.mean, *estimate.bounds) if interval else (estimate.mean,)  # no bounds from too few runs


def models_table(models: Sequence[AbModelSummary]) -> Table:
    columns = cols(
        "model runs:int graded:int uncaptured_runs:int harness_failed_runs:int scored:int crash_rate:pct "
        "capture_rate:pct unusable_rate:pct rescued:int regressed:int "
        "probed:int by_user:int by_visit:int unclear:int probe_failed:int data_free:int fixed_width:int "
        "stated_user:int stated_visit:int stated_none:int divergent:int coverage:pct coverage_low:pct "
        "coverage_high:pct mean_abs_error:f4 mean_width:f4 winkler:f4 winkler_low:f4 winkler_high:f4"
    )
    rows = []
    for m in models:
        rows.append((
            m.model, m.runs, m.graded, m.uncaptured_runs, m.harness_failed_runs, m.scored, m.crash_rate,
            m.capture_rate, m.unusable_rate, m.repair_effects.get("rescued", 0), m.repair_effects.get("regressed", 0),
            m.probed, *(m.measured.get(u.value, 0) for u in Unit),
            m.stated.get("user", 0), m.stated.get("visit", 0), m.stated.get("unstated", 0) + m.stated.get("both", 0),
            m.divergent, *_cells(m.coverage), *_cells(m.mean_abs_error, False), *_cells(m.mean_width, False),
            *_cells(m.winkler),
        ))
    return Table("ab_models", "Per model: unit of analysis and intervals", columns, tuple(rows),
                 short=("model", "runs", "graded", "scored", "crash_rate", "by_user", "by_visit", "coverage",
                        "winkler"))


# -- findings ----------------------------------------------------------------------------------------

def _designs(n: int) -> str:
    return "1 design states" if n == 1 else f"{n} designs state"


def findings(models: Sequence[AbModelSummary]) -> list[str]:
    lines = []
    for m in models:
        if m.all_uncaptured:
            lines.append(f"{m.model}: every answer was uncaptured ({m.uncaptured_runs} runs); it is not scored, "
                         "not scored as zero.")
            continue
        if m.uncaptured_runs or m.harness_failed_runs:
            lines.append(f"{m.model}: {m.uncaptured_runs} uncaptured and {m.harness_failed_runs} harness-failed runs "
                         "left out of the scores.")
        if m.graded > m.scored:
            lines.append(f"{m.model}: {m.graded - m.scored} of {count(m.graded, 'graded run')} did not produce a valid "
                         "interval on every hidden experiment.")
        if m.repair_effects.get("regressed"):
            lines.append(f"{m.model}: {m.repair_effects['regressed']} repair turn(s) made the analysis worse.")
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
        if m.coverage is not None and m.winkler is not None:
            lines.append(
                f"{m.model}: intervals cover the true effect on {m.coverage.mean:.0%} of the hidden experiments "
                f"over {count(m.scored, 'scored run')}; mean Winkler score {m.winkler.mean:.4f} "
                + (f"[{m.winkler.low:.4f}, {m.winkler.high:.4f}]" if m.winkler.has_interval
                   else "(too few runs for an interval)") + " (lower is better)."
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
    shown = [r for r in _ordered(runs, models) if r.points and r.scored][:MAX_PLOTTED_RUNS]
    truth = {p.experiment: p.truth for r in shown for p in r.points}
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
    clip = lambda v: ys(min(max(v, lo), hi))  # noqa: E731 - an end beyond the frame is drawn at its edge
    colours = model_colours(models)
    for i, name in enumerate(experiments):
        x0 = LEFT + i * slot
        canvas.line(x0 + slot * 0.1, ys(truth[name]), x0 + slot * 0.9, ys(truth[name]), stroke=INK, width=2)
    for k, run in enumerate(shown):
        for point in run.points:
            if point.ci_low is None or point.ci_high is None or point.experiment not in truth:
                continue
            x = LEFT + experiments.index(point.experiment) * slot + slot * (k + 1) / (len(shown) + 1)
            tip = (f"{run.run_id} on {point.experiment}: [{point.ci_low:.4f}, {point.ci_high:.4f}], "
                   f"truth {point.truth:.4f}, {'covered' if point.covered else 'missed'}")
            canvas.line(x, clip(point.ci_low), x, clip(point.ci_high), stroke=colours.get(run.model, MUTED), width=1.5)
            if point.effect is not None:
                canvas.circle(x, clip(point.effect), 1.8, colours.get(run.model, MUTED), tip=tip)
    entries = [(f"{r.run_id}"[:18], colours.get(r.model, MUTED)) for r in shown] + [("true effect", INK)]
    legend(canvas, right + 10, TOP + 10, entries)
    left_out = sum(1 for r in runs if r.points and r.scored) - len(shown)
    if left_out > 0:
        canvas.text(right + 10, TOP + 16 * len(entries) + 14, f"+{left_out} runs not drawn", size=10, fill=MUTED)
    return canvas.to_svg()


def _divergence_mark(run: AbRunSignals) -> str:
    if run.divergence is UnitDivergence.CONSISTENT:
        return "consistent"
    if run.divergence in (UnitDivergence.STATES_USER_ANALYSES_VISITS, UnitDivergence.STATES_VISIT_ANALYSES_USERS):
        return "divergent"
    return "unstated"


def _probe_dot(canvas: Canvas, x: float, y: float, fill: str, mark: str, tip: str) -> None:
    if mark == "divergent":
        canvas.marker(x, y, 6, fill, tip=tip)
    elif mark == "unstated":
        canvas.circle(x, y, 5, "#ffffff", stroke=fill, tip=tip)
    else:
        canvas.circle(x, y, 5, fill, stroke=INK, tip=tip)


def probe_plot(runs: Sequence[AbRunSignals], models: Sequence[str]) -> str:
    """Each probed run's width ratio (duplicated visits / original) per model, against 1 and 1/sqrt(2)."""
    canvas = Canvas(WIDTH, HEIGHT, "Unit probe: interval width with every visit logged twice")
    rows = [m for m in models if any(r.model == m and r.probe for r in runs)]
    if not rows:
        empty_note(canvas, "no run was probed")
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
    pitch = (bottom - top) / len(rows)
    colours = model_colours(models)
    for i, model in enumerate(rows):
        y = top + pitch * (i + 0.5)
        canvas.text(left - 8, y + 4, model[:22], anchor="end")
        probed = [r for r in _ordered(runs, models) if r.model == model and r.probe]
        failed = 0
        for j, run in enumerate(probed):
            measured = run.probe.probe.width_ratio if run.probe else None
            if measured is None:
                failed += 1
                continue
            jitter = ((j % 5) - 2) * 3.0  # coincident runs stay visible
            tip = f"{run.run_id}: ratio {measured:.3f}, {run.probe.unit.value if run.probe else ''}, design {run.stated.value}"
            _probe_dot(canvas, xs(min(max(measured, 0.5), 1.2)), y + jitter, colours.get(model, MUTED),
                       _divergence_mark(run), tip)
        if failed:
            canvas.text(right - 4, y + 18, f"{failed} not measured", size=10, anchor="end", fill=MUTED)
    for i, (mark, words) in enumerate((("consistent", "design agrees"), ("divergent", "design differs"),
                                       ("unstated", "design silent"))):
        _probe_dot(canvas, right + 15, TOP + 10 + i * 18, MUTED, mark, words)
        canvas.text(right + 25, TOP + 14 + i * 18, words, size=10)
    return canvas.to_svg()


def ab_test_section(records: BatchRecords, bootstrap_seed: int = 0) -> ReportSection:
    runs = [ab_run_signals(run) for run in records.runs]
    models = _model_order(runs, records.model_labels())
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
