"""The part of the report every task has: how graded runs ended (crash taxonomy), what repair turns did,
paired headline comparisons on shared seeds, and a table per breakdown its grade declares (load band, family:
bakeoff.taskapi.grade), as tables, plots and sentences (bakeoff.analysis.core).

A task's plug-in says where this part goes among its own sections (bakeoff.taskapi.CoreSection).
"""

from __future__ import annotations

from collections.abc import Sequence

from bakeoff.analysis.core import CoreSummary, ModelCore, PairedComparison
from bakeoff.analysis.stats import Estimate, rate
from bakeoff.report.plots import crash_taxonomy, repair_transitions
from bakeoff.report.scaffolds import scaffold_findings, scaffold_tables
from bakeoff.report.sections import Plot, ReportSection
from bakeoff.report.tables import Column, Table, cols
from bakeoff.taskapi.grade import Breakdown
from bakeoff.taskapi.headline import HeadlineSpec


def count(n: int, noun: str) -> str:
    """'1 run', '3 runs'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def crash_table(summary: CoreSummary) -> Table:
    rows = []
    for m in summary.models:
        for crash_class, runs in sorted(m.crash_taxonomy.items(), key=lambda item: -item[1]):
            rows.append((m.model, crash_class, runs, rate(runs, m.graded)))
    return Table("crash_taxonomy", "Crash taxonomy", cols("model crash_class runs:int share_of_graded:pct"), tuple(rows))


def repair_table(summary: CoreSummary) -> Table:
    rows = [
        (m.model, t.turn, t.granted, t.rescued, t.regressed, t.unchanged, t.rescue_rate, t.regression_rate)
        for m in summary.models
        for t in m.turns
    ]
    columns = cols("model turn:int granted:int rescued:int regressed:int unchanged:int rescue_rate:pct regression_rate:pct")
    return Table("repair_turns", "Repair turns", columns, tuple(rows))


def cells(estimate: Estimate | None, interval: bool = True) -> tuple[float | None, ...]:
    """An estimate's cells: its mean, and with `interval` its bounds (none from too few runs)."""
    if estimate is None:
        return (None, None, None) if interval else (None,)
    return (estimate.mean, *estimate.bounds) if interval else (estimate.mean,)


def breakdown_table(summary: CoreSummary, breakdown: Breakdown) -> Table:
    """Per model and group of a breakdown the grade declares: each of its metrics with its interval."""
    columns = [Column("model"), Column(breakdown.column)]
    for metric in breakdown.metrics:
        columns += [Column(f"{metric.name}{end}", metric.kind) for end in ("", "_low", "_high")]
    rows = []
    for m in summary.grades:
        for group in breakdown.order:
            if m.has_group(breakdown.field, group):
                rows.append((m.model, group, *(cell for metric in breakdown.metrics
                                                for cell in cells(m.in_group(breakdown.field, group, metric.name)))))
    return Table(breakdown.table, breakdown.title, tuple(columns), tuple(rows))


def breakdown_tables(summary: CoreSummary) -> tuple[Table, ...]:
    return tuple(breakdown_table(summary, b) for b in summary.grade.breakdowns) if summary.grade else ()


def failures_counted(spec: HeadlineSpec) -> str:
    """How runs that were graded but never scored enter the headline's averages, in words."""
    if spec.failed_value is None:
        return "scored runs only"
    return "crashes as zero" if spec.failed_value == 0 else f"crashes as {spec.failed_value:g}"


def pairs_title(spec: HeadlineSpec) -> str:
    if spec.higher_is_better:
        return f"Paired comparisons ({spec.label} of a minus b, {failures_counted(spec)})"
    return f"Paired comparisons ({spec.label} of b minus a: positive when a is better; {failures_counted(spec)})"


def pairs_table(summary: CoreSummary) -> Table:
    rows = []
    for p in summary.pairs:
        d = p.difference
        low, high = d.bounds if d else (None, None)  # no interval from too few shared seeds
        rows.append((p.model_a, p.model_b, len(p.seeds), d.mean if d else None, low, high, p.a_wins, p.b_wins, p.ties))
    kind = "f4" if "4f" in summary.headline.fmt else "f3"
    columns = cols(f"model_a model_b shared_seeds:int {summary.headline.name}_difference:{kind} low:{kind} high:{kind} "
                   "a_wins:int b_wins:int ties:int")
    return Table("paired_comparisons", pairs_title(summary.headline), columns, tuple(rows))


def pair_findings(pairs: Sequence[PairedComparison], spec: HeadlineSpec) -> list[str]:
    """A pair is called only when its interval excludes zero; otherwise the data cannot tell them apart.

    Every number in a sentence is oriented like the sentence: "X beats Y by d" gives the interval of X's
    advantage over Y (d inside it, both positive), whichever of the pair X is and whichever way the headline
    points (a pair's difference is a's advantage over b: a - b when higher is better, b - a when lower is).
    From fewer shared seeds than an interval needs, the sentence says so instead."""
    lines = []
    show = spec.show
    for pair in pairs:
        d = pair.difference
        if d is None:
            continue
        if not d.has_interval:
            lines.append(f"{pair.model_a} and {pair.model_b}: too few shared seeds ({d.n}) for a paired interval.")
            continue
        if d.low > 0 or d.high < 0:
            a_better = d.mean > 0
            better, worse = (pair.model_a, pair.model_b) if a_better else (pair.model_b, pair.model_a)
            low, high = (d.low, d.high) if a_better else (-d.high, -d.low)
            lines.append(
                f"{better} beats {worse} by {show(abs(d.mean))} {spec.label} on {d.n} shared seeds "
                f"(95% interval of {better}'s advantage: [{show(low)}, {show(high)}])."
            )
        else:
            sign = "+" if d.mean >= 0 else "-"
            lines.append(
                f"{pair.model_a} and {pair.model_b} cannot be told apart on {d.n} shared seeds "
                f"({pair.model_a}'s advantage: {sign}{show(abs(d.mean))}, interval [{show(d.low)}, {show(d.high)}])."
            )
    return lines


def uncaptured_line(m: ModelCore) -> str:
    """A model with no graded run: every run's code answer never came back. Said as "every answer" only where
    every call was uncaptured; otherwise how its calls ended (the report's why lines say why, with the setting)."""
    if m.uncaptured_calls >= m.calls:
        return f"{m.model}: every answer was uncaptured ({m.uncaptured_runs} runs); it is not scored, not scored as zero."
    return (f"{m.model}: no run was graded: the answer meant to hold the code never came back in any of its "
            f"{count(m.uncaptured_runs, 'run')}, while {m.captured_calls} of its {m.calls} calls were captured, "
            f"{m.uncaptured_calls} uncaptured and {m.unusable_calls} unusable; it is not scored, not scored as zero.")


def left_out_line(m: ModelCore) -> str | None:
    if not (m.uncaptured_runs or m.harness_failed_runs):
        return None
    return f"{m.model}: {m.uncaptured_runs} uncaptured and {m.harness_failed_runs} harness-failed runs left out of the scores."


def regression_lines(m: ModelCore) -> list[str]:
    return [f"{m.model}: repair turn {turn.turn} broke {turn.regressed} of {turn.granted} pipelines."
            for turn in m.turns if turn.regressed]


def headline_line(m: ModelCore, spec: HeadlineSpec) -> str | None:
    """The model's mean headline with its interval, over graded runs where failures count, else scored ones."""
    e = m.with_failures if spec.counts_failures else m.over_scored
    if e is None:
        return None
    over = count(e.n, "graded run") if spec.counts_failures else count(e.n, "scored run")
    interval = f"[{spec.show(e.low)}, {spec.show(e.high)}]" if e.has_interval else "(too few runs for an interval)"
    return (f"{m.model}: mean {spec.label} {spec.show(e.mean)} {interval} over {over}"
            + (f" ({failures_counted(spec)}); {m.scored} scored." if spec.counts_failures else "."))


def core_findings(summary: CoreSummary) -> list[str]:
    lines: list[str] = []
    for m in summary.models:
        if m.all_uncaptured:
            lines.append(uncaptured_line(m))
            continue
        lines += [line for line in (headline_line(m, summary.headline), left_out_line(m)) if line]
        lines += regression_lines(m)
    return lines + pair_findings(summary.pairs, summary.headline)


def core_section(summary: CoreSummary, findings: bool = True) -> ReportSection:
    plots = (
        Plot("crash_taxonomy", "How graded runs ended: scored, or the crash class that stopped them.", crash_taxonomy(summary)),
        Plot("repair_transitions", "What each repair turn did to the progress ladder.", repair_transitions(summary)),
    )
    tables: tuple[Table, ...] = (crash_table(summary), repair_table(summary), pairs_table(summary),
                                 *breakdown_tables(summary))
    found = tuple(core_findings(summary)) if findings else ()
    if summary.has_scaffolds:  # a model under another scaffold than the six stages: what each scaffold did
        tables += scaffold_tables(summary)
        found += tuple(scaffold_findings(summary))  # no task writes these within its own findings
    return ReportSection(
        "Every task: crashes, repair turns, paired comparisons",
        findings=found,
        tables=tables,
        plots=plots,
    )
