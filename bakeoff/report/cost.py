"""Cost beside quality, in every report: per run and per model (time, tokens, speed, memory, sandbox CPU, what
the model is), and the headline against model time per run with the Pareto frontier of the models."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bakeoff.analysis.core import RunCore
from bakeoff.analysis.cost import ModelCost, RunCost
from bakeoff.report.plots import BOTTOM, HEIGHT, RIGHT, TOP, WIDTH, model_colours
from bakeoff.report.sections import Plot
from bakeoff.report.svg import INK, MUTED, Canvas, Scale, empty_note, legend, x_axis, y_axis
from bakeoff.report.tables import Table, cols
from bakeoff.taskapi.headline import HeadlineSpec

MIB = 1024**2
PARETO_LEFT = 70  # a numeric y axis needs less room than model names


def _mib(value: int | None) -> float | None:
    return None if value is None else value / MIB


def run_cost_table(costs: Sequence[RunCost], added: Mapping[str, int] | None = None) -> Table:
    """Per run: its wall and model time, tokens (in, cached, answer, reasoning), speed, peaks, sandbox CPU;
    `added` marks the runs a plan extension added (run id -> extension number)."""
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
    return Table("cost_runs", "Cost per run", columns, tuple(rows),
                 short=("run_id", "wall_s", "model_s", "tokens_in", "tokens_out", "tokens_per_s", "sandbox_cpu_s",
                        "engine_peak_mib", "added_later"))


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
    return Table("cost_models", "Cost per model", columns, rows,
                 short=("model", "quantization", "parameters_m", "median_wall_s", "median_model_s",
                        "tokens_in_per_run", "answer_tokens_per_run", "reasoning_tokens_per_run", "tokens_per_s"))


def pareto_front(points: Mapping[str, tuple[float, float]], higher_is_better: bool) -> list[str]:
    """The models no other beats on both model time (less) and headline (better), by ascending time."""
    def better(a: tuple[float, float], b: tuple[float, float]) -> bool:  # a dominates b
        at_least = a[0] <= b[0] and (a[1] >= b[1] if higher_is_better else a[1] <= b[1])
        strictly = a[0] < b[0] or a[1] != b[1]
        return at_least and strictly

    front = [m for m, p in points.items() if not any(better(q, p) for n, q in points.items() if n != m)]
    return sorted(front, key=lambda m: points[m][0])


def pareto_points(runs: Sequence[RunCore], costs: Sequence[RunCost], spec: HeadlineSpec) -> list[tuple[str, str, float, float]]:
    """(model, run id, model seconds, headline as counted) of every graded run that counts for a value."""
    seconds = {c.run_id: c.model_s for c in costs}
    found = []
    for run in runs:
        value = run.counted(spec) if run.graded else None
        if value is not None and run.run_id in seconds:
            found.append((run.model, run.run_id, seconds[run.run_id], value))
    return found


def pareto_plot(runs: Sequence[RunCore], costs: Sequence[RunCost], models: Sequence[str], spec: HeadlineSpec) -> Plot:
    canvas = Canvas(WIDTH, HEIGHT, f"{spec.label} against model time per run")
    points = pareto_points(runs, costs, spec)
    caption = (f"Each dot a run: its {spec.label} against the seconds spent waiting for the model; the ringed dot "
               f"is a model's median time and mean {spec.label}, the line joins the models no other beats on both.")
    if not points:
        empty_note(canvas, "no run has a value to place")
        return Plot("pareto", caption, canvas.to_svg())
    colours = model_colours(models)
    xs_max = max(p[2] for p in points) or 1.0
    ys = [p[3] for p in points]
    lo, hi = min(ys), max(ys)
    pad = (hi - lo) * 0.1 or 0.05
    xscale = Scale(0.0, xs_max * 1.05, PARETO_LEFT, WIDTH - RIGHT - 110)
    yscale = Scale(lo - pad, hi + pad, HEIGHT - BOTTOM, TOP + 10)
    x_axis(canvas, xscale, HEIGHT - BOTTOM, "model time per run (s)", fmt="{:.0f}")
    y_axis(canvas, yscale, PARETO_LEFT, spec.label, fmt="{:.2f}", grid_to=WIDTH - RIGHT - 110)
    for model, run_id, seconds, value in points:
        canvas.circle(xscale(seconds), yscale(value), 3.5, colours.get(model, MUTED),
                      tip=f"{run_id}: {spec.show(value)} in {seconds:.0f} s")
    summary: dict[str, tuple[float, float]] = {}
    for model in models:
        mine = sorted(p for p in points if p[0] == model)
        if mine:
            times = sorted(p[2] for p in mine)
            summary[model] = (times[len(times) // 2], sum(p[3] for p in mine) / len(mine))
    front = pareto_front(summary, spec.higher_is_better)
    for a, b in zip(front, front[1:], strict=False):
        canvas.line(xscale(summary[a][0]), yscale(summary[a][1]), xscale(summary[b][0]), yscale(summary[b][1]),
                    stroke=INK, width=1.5, dash="4 3")
    for model, (seconds, value) in summary.items():
        canvas.circle(xscale(seconds), yscale(value), 7, colours.get(model, MUTED), stroke=INK,
                      tip=f"{model}: mean {spec.show(value)}, median {seconds:.0f} s" + (" (frontier)" if model in front else ""))
    legend(canvas, WIDTH - RIGHT - 100, TOP + 10, [(m, colours[m]) for m in models if m in summary])
    return Plot("pareto", caption, canvas.to_svg())
