"""The simulation take-home's report section: the probe's behaviour against the design, the intervals by
load band.

Two tables (per run, per model; the table per model and load band is the core's, from the grade's declared
breakdown: bakeoff.tasks.simulation.grade), two plots (each run's interval on every hidden
configuration relative to its true mean wait, grouped by load band; the probe's spread ratio per run against
an honest interval's 1 and the independence threshold) and plain-sentence findings. `simulation_section` is
what the simulation plug-in's `report_sections` returns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bakeoff.batchfolder.read import BatchRecords
from bakeoff.report.core import cells, count
from bakeoff.report.sections import Plot, ReportSection
from bakeoff.report.svg import INK, MUTED, Canvas, Scale, empty_note, y_axis
from bakeoff.report.tables import Table, cols
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
from bakeoff.tasks.simulation.design import DIVERGENT, Divergence
from bakeoff.tasks.simulation.grade import BANDS
from bakeoff.tasks.simulation.signals import SimModelSummary, SimRunSignals, sim_run_signals, summarise_models
from generators.simulation.probe import INDEPENDENT_MAX_RATIO, Behaviour

WIDTH, HEIGHT = 640, 380
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 40, 60
LEGEND_W = 120
RATIO_RANGE = (0.0, 2.0)  # interval / truth: what the intervals plot shows (beyond is drawn at the edge)
RATIO_AXIS = (0.01, 10.0)  # the probe plot's, log scale


# -- tables ------------------------------------------------------------------------------------------

def runs_table(runs: Sequence[SimRunSignals], models: Sequence[str]) -> Table:
    columns = cols(
        f"{RUN_HEAD} stated_warmup stated_interval behaviour spread_ratio:f3 "
        "divergence coverage:pct coverage_light:pct coverage_medium:pct coverage_heavy:pct mean_rel_error:f4 "
        f"relative_winkler:f4 configurations:int graded:int failed:int {RUN_TAIL}"
    )
    rows = []
    for r in ordered(runs, models):
        m = r.grade
        band_cov = [m.bands[b].coverage if m and b in m.bands else None for b in BANDS]
        rows.append((
            *run_head(r), r.warmup.value, r.interval.value,
            r.behaviour.value if r.behaviour else None, r.probe.spread_ratio if r.probe else None,
            r.divergence.value if r.divergence else None,
            m.coverage if m else None, *band_cov,
            *((m.mean_rel_error, m.relative_winkler, m.items, m.graded, m.failed) if m else (None,) * 5),
            *run_tail(r),
        ))
    return Table("sim_runs", "Per run: behaviour of the output analysis and intervals", columns, tuple(rows),
                 short=("run_id", "grading", "status", "behaviour", "divergence", "coverage", "relative_winkler",
                        "repair_effects", "transcript"))


def models_table(models: Sequence[SimModelSummary]) -> Table:
    columns = cols(
        f"{MODEL_HEAD} sound:int biased:int "
        "independent:int unclear:int probe_failed:int ignores_seed:int fabricated:int divergent:int coverage:pct coverage_low:pct coverage_high:pct "
        "mean_rel_error:f4 relative_winkler:f4 relative_winkler_low:f4 relative_winkler_high:f4"
    )
    rows = []
    for m in models:
        figure = m.figures.metric
        rows.append((
            *model_head(m, m.probed), *(m.behaviours.get(b.value, 0) for b in Behaviour), m.divergent,
            *cells(figure("coverage")), *cells(figure("mean_rel_error"), False), *cells(figure("relative_winkler")),
        ))
    return Table("sim_models", "Per model: behaviour of the output analysis and intervals", columns, tuple(rows),
                 short=("model", "runs", "graded", "scored", "crash_rate", "sound", "divergent", "coverage",
                        "relative_winkler"))


# -- findings ----------------------------------------------------------------------------------------

def findings(models: Sequence[SimModelSummary]) -> list[str]:
    return findings_by_model(models, _findings_of)


def _findings_of(m: SimModelSummary) -> list[str]:
    lines = []
    unscored = unscored_finding(m, "configuration")
    if unscored is not None:
        lines.append(unscored)
    if m.probed:
        said = ", ".join(f"{m.behaviours[b.value]} {b.value}" for b in Behaviour if m.behaviours.get(b.value))
        lines.append(f"{m.model}: the behavioural probe found {said} of {m.probed} probed "
                     f"{'submission' if m.probed == 1 else 'submissions'}.")
    claims = m.divergences.get(Divergence.CLAIMS_CORRELATION_ACTS_INDEPENDENT.value, 0)
    if claims:
        lines.append(f"{m.model}: {claims} design(s) state an interval that allows for correlated waits while the "
                     "code's interval treats them as independent.")
    warm = m.divergences.get(Divergence.CLAIMS_WARMUP_ACTS_BIASED.value, 0)
    if warm:
        lines.append(f"{m.model}: {warm} design(s) state a warm-up deletion while the estimate still moves with "
                     "the run length.")
    coverage, winkler = m.figures.metric("coverage"), m.figures.metric("relative_winkler")
    if coverage is not None and winkler is not None:
        by_band = {band: m.figures.in_group("bands", band, "coverage") for band in BANDS}
        bands = ", ".join(f"{band} {got.mean:.0%}" for band, got in by_band.items() if got is not None)
        lines.append(
            f"{m.model}: intervals cover the true mean wait on {coverage.mean:.0%} of the hidden configurations "
            f"({bands}) over {count(m.scored, 'scored run')}; mean relative Winkler score "
            f"{with_interval(winkler)} (lower is better)."
        )
    return lines


# -- plots -------------------------------------------------------------------------------------------

def intervals_plot(runs: Sequence[SimRunSignals], models: Sequence[str]) -> str:
    """Each plotted run's interval over the true mean wait on every hidden configuration, grouped by load band
    (light, medium, heavy; by utilisation within a band): 1 is the truth."""
    canvas = Canvas(WIDTH, HEIGHT, "Intervals over the true mean wait, by load band")
    shown = plotted(runs, models)
    about = {p.item: p for r in shown for p in r.points}
    if not about:
        empty_note(canvas, "no run was graded on the hidden configurations")
        return canvas.to_svg()
    rank = {band: i for i, band in enumerate(BANDS)}
    names = sorted(about, key=lambda n: (rank.get(about[n].band or "", len(BANDS)), about[n].utilisation or 0, n))
    right = WIDTH - RIGHT - LEGEND_W
    lo, hi = RATIO_RANGE
    ys = Scale(lo, hi, HEIGHT - BOTTOM, TOP)
    y_axis(canvas, ys, LEFT, "interval / true mean wait", fmt="{:.1f}", grid_to=right)
    canvas.line(LEFT, HEIGHT - BOTTOM, right, HEIGHT - BOTTOM)
    canvas.line(LEFT, ys(1.0), right, ys(1.0), stroke=INK, width=1.5)
    slot = (right - LEFT) / len(names)
    for band in BANDS:  # a label under each band's stretch, a divider between bands
        members = [i for i, n in enumerate(names) if about[n].band == band]
        if members:
            x0, x1 = LEFT + members[0] * slot, LEFT + (members[-1] + 1) * slot
            canvas.text((x0 + x1) / 2, HEIGHT - BOTTOM + 18, f"{band} ({len(members)})", size=11, anchor="middle")
            if members[0] > 0:
                canvas.line(x0, TOP, x0, HEIGHT - BOTTOM, stroke=MUTED, dash="4 3")
    canvas.text((LEFT + right) / 2, HEIGHT - BOTTOM + 36, "hidden configurations by load band, then utilisation",
                size=11, anchor="middle")
    # relative to the truth; an end beyond the frame is drawn at its edge
    draw_intervals(canvas, shown, names, LEFT, slot, models, lambda v, t: ys(min(max(v / t, lo), hi)), ".4g")
    runs_legend(canvas, shown, runs, models, right, TOP, "true mean wait")
    return canvas.to_svg()


def probe_plot(runs: Sequence[SimRunSignals], models: Sequence[str]) -> str:
    """Each probed run's spread ratio (claimed standard error over its estimates' spread across seeds), log scale,
    per model, against 1 (honest) and the independence threshold."""
    canvas, rows = probe_canvas(runs, models, WIDTH, HEIGHT, "Behavioural probe: interval width against the spread across seeds")
    if not rows:
        return canvas.to_svg()
    left, right = 150, WIDTH - RIGHT - LEGEND_W
    lo, hi = (math.log10(v) for v in RATIO_AXIS)
    xs = Scale(lo, hi, left, right)
    at = lambda ratio: xs(min(max(math.log10(ratio), lo), hi))  # noqa: E731
    top, bottom = TOP + 16, HEIGHT - BOTTOM
    canvas.rect(xs(lo), top, at(INDEPENDENT_MAX_RATIO) - xs(lo), bottom - top, "#f7e3e3")
    canvas.text((xs(lo) + at(INDEPENDENT_MAX_RATIO)) / 2, top - 4, "independence assumed", size=10, anchor="middle",
                fill=MUTED)
    canvas.line(at(1.0), top, at(1.0), bottom, stroke=INK, dash="5 3")
    canvas.text(at(1.0), top - 4, "honest", size=10, anchor="middle")
    canvas.line(left, bottom, right, bottom)
    for tick in (0.01, 0.1, 1.0, 10.0):
        canvas.line(at(tick), bottom, at(tick), bottom + 4)
        canvas.text(at(tick), bottom + 16, f"{tick:g}", size=10, anchor="middle")
    canvas.text((left + right) / 2, bottom + 32, "claimed standard error / spread of the estimates across seeds",
                size=11, anchor="middle")
    probe_rows(canvas, runs, models, rows, left, right, top, bottom,
               ratio_of=lambda run: run.probe.spread_ratio if run.probe and (run.probe.spread_ratio or 0) > 0 else None,
               x_of=at,
               tip_of=lambda run, ratio: (f"{run.run_id}: {run.behaviour.value if run.behaviour else ''}, ratio "
                                          f"{ratio:.3f}, design WARMUP {run.warmup.value}, INTERVAL {run.interval.value}"),
               mark_of=lambda run: divergence_mark(run.divergence, Divergence.CONSISTENT, DIVERGENT))
    marks_legend(canvas, right, TOP)
    return canvas.to_svg()


def simulation_section(records: BatchRecords, bootstrap_seed: int = 0) -> ReportSection:
    runs = [sim_run_signals(run) for run in records.runs]
    models = model_order(runs, records.model_labels())
    summaries = summarise_models(runs, models, bootstrap_seed)
    plots = (
        Plot("sim_intervals", "Each run's 95% interval on every hidden configuration, divided by its true mean wait "
             "(1, the black line), grouped by load band: too narrow intervals at heavy load show as bars that miss 1.",
             intervals_plot(runs, models)),
        Plot("sim_probe", "The behavioural probe: the interval's claimed standard error over the spread of the "
             "submission's own estimates across seeds (log scale); about 1 is honest, below 1/3 the waits are treated "
             "as independent. Colour: the model; shape: does the design's INTERVAL and WARMUP agree.",
             probe_plot(runs, models)),
    )
    return ReportSection("Simulation: output analysis and intervals by load band", tuple(findings(summaries)),
                         (models_table(summaries), runs_table(runs, models)), plots)
