"""The report's scaffold part, in a batch where a model ran under more than the six fixed stages: per (model,
scaffold) row the headline with its interval, the rung reached and the steps and tokens used, how the loops
ended and whether the model ran its own code before the end; per run of a loop its steps; and each model's
staged row against its other scaffolds, paired on shared seeds (bakeoff.analysis.core)."""

from __future__ import annotations

from bakeoff.analysis.core import CoreSummary, ModelCore, PairedComparison, RunCore
from bakeoff.report.tables import Table, cols
from bakeoff.report.transcript import transcript_path
from bakeoff.scaffolds.registry import scaffold_names, scaffold_plugin


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _estimate(m: ModelCore | None, summary: CoreSummary):
    if m is None:
        return None
    return m.with_failures if summary.headline.counts_failures else m.over_scored


def scaffolds_table(summary: CoreSummary) -> Table:
    rows = []
    for row in summary.rows:
        e = _estimate(summary.model(row.row), summary)
        low, high = e.bounds if e else (None, None)  # none from too few runs (MIN_INTERVAL_N), as everywhere
        rows.append((row.row, row.model, row.scaffold, row.graded, e.mean if e else None, low, high, row.mean_rung,
                     row.mean_steps, row.mean_tokens, _counts(row.ended_by),
                     row.ran_own_code_rate, row.mean_own_code_runs, _counts(row.unusable_steps)))
    kind = "f4" if "4f" in summary.headline.fmt else "f3"
    name = summary.headline.name
    columns = cols(f"row model scaffold graded:int {name}:{kind} low:{kind} high:{kind} mean_rung:d2 mean_steps:d1 "
                   "mean_tokens:d0 loop_ended_by ran_own_code:pct own_code_runs:d1 unusable_steps")
    return Table("scaffolds", "Scaffolds: each model under each scaffold", columns, tuple(rows))


def loop_stage(scaffold: str) -> str | None:
    """The stage a scaffold runs its loop in (its `step_stage`), the word its loops go by on the page; None for
    a scaffold without a loop, or one this bakeoff does not know."""
    return scaffold_plugin(scaffold).step_stage if scaffold in scaffold_names() else None


def loop_runs_table(summary: CoreSummary, scaffold: str) -> Table:
    """Per run of the loop scaffold `scaffold`, its steps; the table is named after the loop's stage."""
    rows = []
    for run in summary.runs:
        loop = run.loop
        if loop is None or run.scaffold != scaffold:
            continue
        rows.append((run.run_id, run.base_model, run.grading, loop.steps, loop.ended_by or "", run.tokens,
                     loop.wall_s, loop.cpu_s, loop.own_code_runs, loop.first_own_run, _counts(loop.unusable_steps),
                     run.rung, run.headline, run.crash_class, loop.tool_syntax, transcript_path(run.run_id)))
    kind = "f4" if "4f" in summary.headline.fmt else "f3"
    columns = cols(f"run model grading steps:int ended_by tokens:int wall_s:d1 cpu_s:d1 own_code_runs:int "
                   f"first_own_run:int unusable_steps rung:int {summary.headline.name}:{kind} crash_class tool_syntax "
                   "transcript")
    stage = loop_stage(scaffold) or scaffold
    return Table(f"{stage}_runs", f"{stage.capitalize()} runs: the loop, step by step in each transcript", columns,
                 tuple(rows))


def loop_runs_tables(summary: CoreSummary) -> tuple[Table, ...]:
    """One table per loop scaffold the batch ran, in the order the rows name them."""
    ran = dict.fromkeys(row.scaffold for row in summary.rows)
    return tuple(loop_runs_table(summary, scaffold) for scaffold in ran if loop_stage(scaffold))


def scaffold_pairs_table(summary: CoreSummary) -> Table:
    by_row = {r.row: r for r in summary.rows}
    rows = []
    for p in summary.scaffold_pairs:
        d = p.difference
        a, b = by_row[p.model_a], by_row[p.model_b]
        low, high = d.bounds if d else (None, None)
        rows.append((a.model, a.scaffold, b.scaffold, len(p.seeds), d.mean if d else None, low, high, p.a_wins,
                     p.b_wins, p.ties))
    kind = "f4" if "4f" in summary.headline.fmt else "f3"
    columns = cols(f"model scaffold_a scaffold_b shared_seeds:int {summary.headline.name}_difference:{kind} "
                   f"low:{kind} high:{kind} a_wins:int b_wins:int ties:int")
    direction = "a minus b" if summary.headline.higher_is_better else "b minus a: positive when a is better"
    return Table("scaffold_pairs", f"One model, two scaffolds ({summary.headline.label} of {direction})", columns,
                 tuple(rows))


def _pair_line(pair: PairedComparison, summary: CoreSummary) -> str | None:
    by_row = {r.row: r for r in summary.rows}
    a, b, d, show = by_row[pair.model_a], by_row[pair.model_b], pair.difference, summary.headline.show
    if d is None:
        return f"{a.model}: {a.scaffold} and {b.scaffold} share no graded seed; they are not compared."
    if not d.has_interval:
        return (f"{a.model}: {a.scaffold} and {b.scaffold}: too few shared seeds ({d.n}) for a paired interval "
                f"(difference {show(d.mean)}).")
    if d.low > 0 or d.high < 0:
        better, worse = (a.scaffold, b.scaffold) if d.mean > 0 else (b.scaffold, a.scaffold)
        return (f"{a.model}: {better} beats {worse} by {show(abs(d.mean))} {summary.headline.label} on {d.n} "
                f"shared seeds (95% interval [{show(d.low)}, {show(d.high)}]).")
    return (f"{a.model}: {a.scaffold} and {b.scaffold} cannot be told apart on {d.n} shared seeds "
            f"(difference {show(d.mean)}, interval [{show(d.low)}, {show(d.high)}]).")


def _loop_line(row, runs: list[RunCore]) -> str | None:
    loops = [r.loop for r in runs if r.loop is not None and r.graded]
    if not loops:
        return None
    word = loop_stage(row.scaffold) or row.scaffold
    return (f"{row.row}: {len(loops)} {word} loops ended by {_counts(row.ended_by)}; {row.ran_own_code} ran their own "
            f"code before the end; {row.mean_steps or 0:.1f} steps and {row.mean_tokens or 0:,.0f} generated tokens "
            "on average.")


def scaffold_findings(summary: CoreSummary) -> list[str]:
    lines = []
    for row in summary.rows:
        line = _loop_line(row, [r for r in summary.runs if r.model == row.row])
        if line:
            lines.append(line)
    lines += [line for pair in summary.scaffold_pairs if (line := _pair_line(pair, summary))]
    return lines


def scaffold_tables(summary: CoreSummary) -> tuple[Table, ...]:
    return scaffolds_table(summary), *loop_runs_tables(summary), scaffold_pairs_table(summary)
