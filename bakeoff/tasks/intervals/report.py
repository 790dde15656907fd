"""The pieces of an interval task's report section that every such task draws the same way: run and model
order, the first and last columns of its tables, the common findings, each run's intervals on the hidden
items, and the rows of its probe plot with their marks (the dot's shape says whether the design agrees; its
colour is the model's).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar

from bakeoff.analysis.stats import Estimate
from bakeoff.records import RepairEffect
from bakeoff.report.core import count
from bakeoff.report.plots import model_colours
from bakeoff.report.svg import INK, MUTED, Canvas, empty_note, legend
from bakeoff.report.transcript import transcript_path
from bakeoff.tasks.intervals.signals import IntervalModel, IntervalPoint, IntervalRun

R = TypeVar("R", bound=IntervalRun)
MAX_PLOTTED_RUNS = 6  # side by side in each item's slot; more would be a smear
RUN_HEAD = "run_id model seed:int grading status crash_class"
RUN_TAIL = "repair_effects transcript"
MODEL_HEAD = ("model runs:int graded:int uncaptured_runs:int harness_failed_runs:int scored:int crash_rate:pct "
              "capture_rate:pct unusable_rate:pct rescued:int regressed:int probed:int")


def model_order(runs: Sequence[IntervalRun], labels: Sequence[str]) -> list[str]:
    order = [label for label in labels if any(r.model == label for r in runs)]
    return order + sorted({r.model for r in runs} - set(order))


def ordered(runs: Sequence[R], models: Sequence[str]) -> list[R]:
    rank = {model: i for i, model in enumerate(models)}
    return sorted(runs, key=lambda r: (rank.get(r.model, len(rank)), r.run_id))


# -- tables ------------------------------------------------------------------------------------------

def run_head(r: IntervalRun) -> tuple[Any, ...]:
    """The cells of RUN_HEAD."""
    return r.run_id, r.model, r.seed, r.grading, r.status, r.crash_class


def run_tail(r: IntervalRun) -> tuple[Any, ...]:
    """The cells of RUN_TAIL."""
    return " ".join(r.repair_effects) or None, transcript_path(r.run_id)


def model_head(m: IntervalModel, probed: int) -> tuple[Any, ...]:
    """The cells of MODEL_HEAD."""
    return (m.model, m.runs, m.graded, m.uncaptured_runs, m.harness_failed_runs, m.scored, m.crash_rate,
            m.capture_rate, m.unusable_rate, m.repair_effects.get(RepairEffect.RESCUED, 0), m.repair_effects.get(RepairEffect.REGRESSED, 0),
            probed)


# -- findings ----------------------------------------------------------------------------------------

M = TypeVar("M", bound=IntervalModel)


def findings_by_model(models: Sequence[M], own: Callable[[M], list[str]]) -> list[str]:
    """Per model: one line where none of its answers came back (nothing else is said of it), else the task's."""
    lines = []
    for m in models:
        if m.all_uncaptured and not (m.capture_rate or m.unusable_rate):
            lines.append(f"{m.model}: every answer was uncaptured ({m.uncaptured_runs} runs); it is not scored, "
                         "not scored as zero.")
        elif m.all_uncaptured:  # some calls came back: said as they ended (the report's why lines say why)
            lines.append(f"{m.model}: no run was graded: the answer meant to hold the code never came back in any of "
                         f"its {m.uncaptured_runs} runs, while {m.capture_rate or 0:.0%} of its calls were captured and "
                         f"{m.unusable_rate or 0:.0%} unusable; it is not scored, not scored as zero.")
        else:
            lines.extend(own(m))
    return lines


def unscored_finding(m: IntervalModel, items: str) -> str | None:
    if m.graded <= m.scored:
        return None
    return (f"{m.model}: {m.graded - m.scored} of {count(m.graded, 'graded run')} did not produce a valid "
            f"interval on every hidden {items}.")


def with_interval(estimate: Estimate) -> str:
    """A mean score with its interval, as the findings say it."""
    return f"{estimate.mean:.4f} " + (f"[{estimate.low:.4f}, {estimate.high:.4f}]" if estimate.has_interval
                                     else "(too few runs for an interval)")


# -- the intervals plot ------------------------------------------------------------------------------

def plotted(runs: Sequence[R], models: Sequence[str]) -> list[R]:
    """The scored runs drawn in the intervals plot, in model order."""
    return [r for r in ordered(runs, models) if r.points and r.scored][:MAX_PLOTTED_RUNS]


def draw_intervals(canvas: Canvas, shown: Sequence[Any], items: Sequence[str], left: float, slot: float,
                   models: Sequence[str], y_of: Callable[[float, float], float], fmt: str) -> None:
    """Each shown run's interval (a bar, a dot at its point) in every item's slot, side by side; `y_of(value,
    truth)` places a value, `fmt` writes the numbers of the tip."""
    colours = model_colours(models)
    index = {name: i for i, name in enumerate(items)}
    for k, run in enumerate(shown):
        colour = colours.get(run.model, MUTED)
        point: IntervalPoint
        for point in run.points:
            if point.ci_low is None or point.ci_high is None or point.item not in index:
                continue
            x = left + index[point.item] * slot + slot * (k + 1) / (len(shown) + 1)
            tip = (f"{run.run_id} on {point.item}: [{point.ci_low:{fmt}}, {point.ci_high:{fmt}}], "
                   f"truth {point.truth:{fmt}}, {'covered' if point.covered else 'missed'}")
            canvas.line(x, y_of(point.ci_low, point.truth), x, y_of(point.ci_high, point.truth), stroke=colour, width=1.5)
            if point.point is not None:
                canvas.circle(x, y_of(point.point, point.truth), 1.8, colour, tip=tip)


def runs_legend(canvas: Canvas, shown: Sequence[IntervalRun], runs: Sequence[Any], models: Sequence[str],
                right: float, top: float, truth_label: str) -> None:
    """Right of the plot: the legend of the drawn runs and the truth, and how many scored runs were not drawn."""
    colours = model_colours(models)
    entries = [(r.run_id[:18], colours.get(r.model, MUTED)) for r in shown] + [(truth_label, INK)]
    legend(canvas, right + 10, top + 10, entries)
    left_out = sum(1 for r in runs if r.points and r.scored) - len(shown)
    if left_out > 0:
        canvas.text(right + 10, top + 16 * len(entries) + 14, f"+{left_out} runs not drawn", size=10, fill=MUTED)


# -- the probe plot ----------------------------------------------------------------------------------

CONSISTENT, DIVERGENT, UNSTATED = "consistent", "divergent", "unstated"
MARK_WORDS = ((CONSISTENT, "design agrees"), (DIVERGENT, "design differs"), (UNSTATED, "design silent"))


def divergence_mark(divergence: Any, consistent: Any, divergent: Collection[Any]) -> str:
    """How a run's dot is drawn: does its design agree with what the probe measured?"""
    if divergence is consistent:
        return CONSISTENT
    if divergence in divergent:
        return DIVERGENT
    return UNSTATED


def probe_dot(canvas: Canvas, x: float, y: float, fill: str, mark: str, tip: str) -> None:
    if mark == DIVERGENT:
        canvas.marker(x, y, 6, fill, tip=tip)
    elif mark == UNSTATED:
        canvas.circle(x, y, 5, "#ffffff", stroke=fill, tip=tip)
    else:
        canvas.circle(x, y, 5, fill, stroke=INK, tip=tip)


def probe_canvas(runs: Sequence[Any], models: Sequence[str], width: int, height: int, title: str) -> tuple[Canvas, list[str]]:
    """The probe plot's canvas and its rows, the models with a probed run (none: the canvas says so)."""
    canvas = Canvas(width, height, title)
    rows = [m for m in models if any(r.model == m and r.probe for r in runs)]
    if not rows:
        empty_note(canvas, "no run was probed")
    return canvas, rows


def probe_rows(canvas: Canvas, runs: Sequence[R], models: Sequence[str], rows: Sequence[str], left: float,
               right: float, top: float, bottom: float, ratio_of: Callable[[R], float | None],
               x_of: Callable[[float], float], tip_of: Callable[[R, float], str], mark_of: Callable[[R], str]) -> None:
    """One row per probed model, a dot per probed run at x_of(its ratio); runs without a ratio are counted."""
    pitch = (bottom - top) / len(rows)
    colours = model_colours(models)
    for i, model in enumerate(rows):
        y = top + pitch * (i + 0.5)
        canvas.text(left - 8, y + 4, model[:22], anchor="end")
        # every interval task's run carries its probe's record (None where it was not probed)
        probed = [r for r in ordered(runs, models) if r.model == model and getattr(r, "probe", None)]
        unmeasured = 0
        for j, run in enumerate(probed):
            ratio = ratio_of(run)
            if ratio is None:
                unmeasured += 1
                continue
            jitter = ((j % 5) - 2) * 3.0  # coincident runs stay visible
            probe_dot(canvas, x_of(ratio), y + jitter, colours.get(model, MUTED), mark_of(run), tip_of(run, ratio))
        if unmeasured:
            canvas.text(right - 4, y + 18, f"{unmeasured} not measured", size=10, anchor="end", fill=MUTED)


def marks_legend(canvas: Canvas, right: float, top: float) -> None:
    for i, (mark, words) in enumerate(MARK_WORDS):
        probe_dot(canvas, right + 15, top + 10 + i * 18, MUTED, mark, words)
        canvas.text(right + 25, top + 14 + i * 18, words, size=10)
