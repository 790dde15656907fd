"""Cost beside quality, in every report: per run and per model (time, tokens, speed, memory, sandbox CPU, what
the model is, dollars where the plan prices it), and the headline against model time per run (and dollars per run)
with the Pareto frontier of the models."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bakeoff.analysis.core import RunCore
from bakeoff.analysis.cost import ModelCost, RunCost
from bakeoff.report.plots import BOTTOM, HEIGHT, RIGHT, TOP, WIDTH, model_colours
from bakeoff.report.sections import Plot
from bakeoff.report.svg import INK, MUTED, Canvas, Scale, empty_note, legend, round_ticks, tick_format, x_axis, y_axis
from bakeoff.report.tables import Column, Table, cols
from bakeoff.taskapi.headline import HeadlineSpec

MIB = 1024**2
PARETO_LEFT = 70  # a numeric y axis needs less room than model names


def _mib(value: int | None) -> float | None:
    return None if value is None else value / MIB


def _priced(table: Table, dollars: Sequence[float | None], column: str) -> Table:
    """`table` with a dollars column after its name columns, where any row is priced (a batch of local models
    only keeps the table it always had)."""
    if all(value is None for value in dollars):
        return table
    columns = (table.columns[0], Column(column, "f4"), *table.columns[1:])
    rows = tuple((row[0], value, *row[1:]) for row, value in zip(table.rows, dollars, strict=True))
    return dataclasses.replace(table, columns=columns, rows=rows, short=(table.short[0], column, *table.short[1:-1]))


def run_cost_table(costs: Sequence[RunCost], added: Mapping[str, int] | None = None) -> Table:
    """Per run: its wall and model time, tokens (in, cached, answer, reasoning), speed, peaks, sandbox CPU, and
    dollars where priced; `added` marks the runs a plan extension added (run id -> extension number)."""
    columns = cols(
        "run_id model wall_s:n1 model_s:n1 tokens_in:int tokens_out:int tokens_per_s:n1 sandbox_cpu_s:n1 "
        "engine_peak_mib:int gpu_peak_mib:int added_later answer_tokens:int reasoning_tokens:int "
        "cached_tokens_in:int generation_s:n1 sandbox_s:n1 calls:int quantization parameters_m:n1 file_mib:int"
    )
    rows = []
    for c in costs:
        extension = (added or {}).get(c.run_id)
        rows.append((
            c.run_id, c.model, c.wall_s, c.model_s, c.prompt_tokens, c.output_tokens, c.tokens_per_s, c.sandbox_cpu_s,
            _mib(c.engine_peak_rss_bytes), _mib(c.gpu_peak_used_bytes),
            f"extension {extension}" if extension else None, c.answer_tokens, c.reasoning_tokens,
            c.cached_prompt_tokens, c.generation_s, c.sandbox_s, c.calls, c.facts.quantization,
            c.facts.parameters / 1e6 if c.facts.parameters else None, _mib(c.facts.file_bytes),
        ))
    table = Table("cost_runs", "Cost per run", columns, tuple(rows),
                  short=("run_id", "wall_s", "model_s", "tokens_in", "tokens_out", "tokens_per_s", "sandbox_cpu_s",
                         "engine_peak_mib", "added_later"))
    return _priced(table, [c.usd for c in costs], "usd")


def model_cost_table(costs: Sequence[ModelCost]) -> Table:
    columns = cols(
        "model runs:int quantization parameters_m:n1 file_mib:int median_wall_s:n1 median_model_s:n1 "
        "tokens_in_per_run:int answer_tokens_per_run:int reasoning_tokens_per_run:int tokens_per_s:n1 "
        "engine_peak_mib:int gpu_peak_mib:int sandbox_cpu_s_per_run:n1 gpu"
    )
    rows = tuple(
        (c.model, c.runs, c.facts.quantization, c.facts.parameters / 1e6 if c.facts.parameters else None,
         _mib(c.facts.file_bytes), c.median_wall_s, c.median_model_s, c.prompt_tokens_per_run,
         c.answer_tokens_per_run, c.reasoning_tokens_per_run, c.tokens_per_s, _mib(c.engine_peak_rss_bytes),
         _mib(c.gpu_peak_used_bytes), c.sandbox_cpu_s_per_run, c.facts.gpu)
        for c in costs
    )
    table = Table("cost_models", "Cost per model", columns, rows,
                  short=("model", "quantization", "parameters_m", "median_wall_s", "median_model_s",
                         "tokens_in_per_run", "answer_tokens_per_run", "reasoning_tokens_per_run", "tokens_per_s"))
    return _priced(table, [c.usd_per_run for c in costs], "usd_per_run")


def pareto_front(points: Mapping[str, tuple[float, float]], higher_is_better: bool) -> list[str]:
    """The models no other beats on both model time (less) and headline (better), by ascending time."""
    def better(a: tuple[float, float], b: tuple[float, float]) -> bool:  # a dominates b
        at_least = a[0] <= b[0] and (a[1] >= b[1] if higher_is_better else a[1] <= b[1])
        strictly = a[0] < b[0] or a[1] != b[1]
        return at_least and strictly

    front = [m for m, p in points.items() if not any(better(q, p) for n, q in points.items() if n != m)]
    return sorted(front, key=lambda m: points[m][0])


@dataclass(frozen=True)
class CostAxis:
    """What a Pareto plot puts on its x axis: a run's cost in one unit."""

    plot: str  # the plot's name (its file)
    title: str
    axis: str
    what: str  # the caption's words for it
    median: str  # the caption's words for a model's median of it
    of: Callable[[RunCost], float | None]
    shown: Callable[[float], str]  # a cost in words: "12 s", "$0.0310"
    spent_word: str  # a run's dot says "0.74 in 12 s" or "0.74 for $0.0310"


TIME_AXIS = CostAxis("pareto", "model time per run", "model time per run (s)",
                     "the seconds spent waiting for the model", "time", lambda c: c.model_s, lambda x: f"{x:.0f} s", "in")
MONEY_AXIS = CostAxis("pareto_money", "dollars per run", "dollars per run (plan prices)",
                      "the dollars its tokens cost at its plan entry's price (models without one are left out)",
                      "dollars", lambda c: c.usd, lambda x: f"${x:.4f}", "for")


def pareto_points(runs: Sequence[RunCore], costs: Sequence[RunCost], spec: HeadlineSpec,
                  axis: CostAxis = TIME_AXIS) -> list[tuple[str, str, float, float]]:
    """(model, run id, cost on `axis`, headline as counted) of every graded run that counts for a value."""
    spent = {c.run_id: axis.of(c) for c in costs}
    found = []
    for run in runs:
        value = run.counted(spec) if run.graded else None
        cost = spent.get(run.run_id)
        if value is not None and cost is not None:
            found.append((run.model, run.run_id, cost, value))
    return found


def cost_plots(runs: Sequence[RunCore], costs: Sequence[RunCost], models: Sequence[str],
               spec: HeadlineSpec) -> list[Plot]:
    """The headline against model time, and against money where the plan prices a model."""
    priced = any(c.usd is not None for c in costs)
    return [pareto_plot(runs, costs, models, spec, axis) for axis in (TIME_AXIS, MONEY_AXIS) if priced or axis is TIME_AXIS]


def headline_ticks(values: Sequence[float], spec: HeadlineSpec) -> list[float]:
    """Round ticks around the values, a little past them, never past the values the grader can give (a score of
    0 to 1 starts at 0 at its lowest, not at -0.07)."""
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.1 or 0.05
    low = lo - pad if spec.lowest is None else max(lo - pad, spec.lowest)
    high = hi + pad if spec.highest is None else min(hi + pad, spec.highest)
    ticks = round_ticks(low, high)
    inside = [t for t in ticks if spec.admits(t)]
    return inside if len(inside) >= 2 else ticks


def pareto_plot(runs: Sequence[RunCore], costs: Sequence[RunCost], models: Sequence[str], spec: HeadlineSpec,
                axis: CostAxis = TIME_AXIS) -> Plot:
    canvas = Canvas(WIDTH, HEIGHT, f"{spec.label} against {axis.title}")
    points = pareto_points(runs, costs, spec, axis)
    caption = (f"Each dot a run: its {spec.label} against {axis.what}; the ringed dot "
               f"is a model's median {axis.median} and mean {spec.label}, the line joins the models no other beats on both.")
    if not points:
        empty_note(canvas, "no run has a value to place")
        return Plot(axis.plot, caption, canvas.to_svg())
    colours = model_colours(models)
    right = WIDTH - RIGHT - 110
    xticks = round_ticks(0.0, max(p[2] for p in points))
    xscale = Scale(0.0, xticks[-1], PARETO_LEFT, right)
    yticks = headline_ticks([p[3] for p in points], spec)
    ys = [p[3] for p in points]
    yscale = Scale(min(yticks[0], *ys), max(yticks[-1], *ys), HEIGHT - BOTTOM, TOP + 10)
    x_axis(canvas, xscale, HEIGHT - BOTTOM, axis.axis, fmt=tick_format(xticks), ticks=xticks)
    y_axis(canvas, yscale, PARETO_LEFT, spec.label, fmt=tick_format(yticks), grid_to=right, ticks=yticks)
    for model, run_id, spent, value in points:
        canvas.circle(xscale(spent), yscale(value), 3.5, colours.get(model, MUTED),
                      tip=f"{run_id}: {spec.show(value)} {axis.spent_word} {axis.shown(spent)}")
    summary: dict[str, tuple[float, float]] = {}
    for model in models:
        mine = sorted(p for p in points if p[0] == model)
        if mine:
            spent_sorted = sorted(p[2] for p in mine)
            summary[model] = (spent_sorted[len(spent_sorted) // 2], sum(p[3] for p in mine) / len(mine))
    front = pareto_front(summary, spec.higher_is_better)
    for a, b in zip(front, front[1:], strict=False):
        canvas.line(xscale(summary[a][0]), yscale(summary[a][1]), xscale(summary[b][0]), yscale(summary[b][1]),
                    stroke=INK, width=1.5, dash="4 3")
    for model, (spent, value) in summary.items():
        canvas.circle(xscale(spent), yscale(value), 7, colours.get(model, MUTED), stroke=INK,
                      tip=f"{model}: mean {spec.show(value)}, median {axis.shown(spent)}" + (" (frontier)" if model in front else ""))
    legend(canvas, WIDTH - RIGHT - 100, TOP + 10, [(m, colours[m]) for m in models if m in summary])
    return Plot(axis.plot, caption, canvas.to_svg())
