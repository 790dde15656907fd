"""`bakeoff report DIR`: read a batch's records, summarise, write the report folder atomically.

The report folder (default DIR/report/) holds report.md, report.html, transcripts/<run>.html, summary.json,
plots/<name>.svg and tables/<name>.csv. It is assembled in a staging folder beside
its target and swapped into place whole (durable.staged_folder), so a report folder that exists is complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import durable
from bakeoff.analysis.admit import admit, refusal_lines
from bakeoff.analysis.core import CoreSummary, run_core, summarise_core
from bakeoff.analysis.cost import model_costs, run_costs
from bakeoff.analysis.leaderboard import LeaderRow, added_marks, batch_leaderboard
from bakeoff.analysis.margins import next_row_margins
from bakeoff.analysis.stats import INTERVAL_RULE
from bakeoff.analysis.why import batch_settings, why_lines
from bakeoff.batchfolder.layout import REPORT_DIR
from bakeoff.batchfolder.read import BatchRecords, read_batch
from bakeoff.report.capture import capture_reasons_table
from bakeoff.report.core import core_section, count
from bakeoff.report.cost import cost_plots, model_cost_table, run_cost_table
from bakeoff.report.leaderboard import glossary_lines, leaderboard_table, margin_note
from bakeoff.report.reasoning import reasoning_findings, reasoning_table
from bakeoff.report.render import Page, render_html, render_markdown
from bakeoff.report.review import review_tables
from bakeoff.report.sections import Plot, ReportSection
from bakeoff.report.tables import Table
from bakeoff.report.transcript_pages import link_transcripts, write_transcripts
from bakeoff.report.trust import transcript_notes, trust_of, trust_section
from bakeoff.scaffolds.registry import step_readers
from bakeoff.taskapi.plugin import CoreSection
from bakeoff.taskapi.task import Task


@dataclass(frozen=True)
class ReportFiles:
    folder: Path
    markdown: Path
    html: Path
    plots: tuple[Path, ...]
    tables: tuple[Path, ...]
    refused: tuple[str, ...] = ()  # a line per run left out (damaged, or a value its task cannot give)


__all__ = ["REPORT_DIR", "ReportFiles", "batch_board", "core_summary", "published_batch", "summary_dict",
           "write_report"]


def published_batch(batch_dir: Path, plugin: Task) -> BatchRecords:
    """The batch's records as far as they may be published: a damaged run, or one whose records do not fit its
    task (another task, a value its grader cannot give), left out by name (bakeoff.analysis.admit)."""
    return admit(read_batch(batch_dir, refuse_damaged_runs=True, step_readers=step_readers), plugin.headline, plugin.name)


def core_summary(records: BatchRecords, plugin: Task, bootstrap_seed: int = 0) -> CoreSummary:
    """What every task's report has, computed once (the exports read it too)."""
    grade = plugin.grade_type
    return summarise_core([run_core(run, grade) for run in records.runs], records.model_labels(), plugin.headline,
                          bootstrap_seed, grade)


def task_sections(records: BatchRecords, plugin: Task, bootstrap_seed: int,
                  core: CoreSummary | None = None) -> list[ReportSection]:
    """The plug-in's sections in its order, with the common part where it put its CoreSection."""
    core = core or core_summary(records, plugin, bootstrap_seed)
    sections = []
    for section in plugin.report_sections(records, core, bootstrap_seed):
        sections.append(core_section(core, section.findings) if isinstance(section, CoreSection) else section)
    return [s for s in sections if isinstance(s, ReportSection)]


def add_sections(sections: list[ReportSection], found: list[str], tables: list[Table],
                 plots: dict[str, tuple[str, str]]) -> None:
    """Append each section's findings, tables and plots (name -> (caption, svg)) to the report's."""
    for section in sections:
        found.extend(section.findings)
        tables.extend(section.tables)
        for plot in section.plots:
            plots[plot.name] = (plot.caption, plot.svg)


def _facts(records: BatchRecords, bootstrap_seed: int) -> list[str]:
    plan = records.plan
    finished = sum(r.finished for r in records.runs)
    facts = [
        f"Batch {records.folder.name}: {count(len(records.model_labels()), 'model')}, {count(len(records.runs), 'run')} "
        f"({finished} finished).",
        f"Task {plan.task or '?'}, sandbox {plan.sandbox or '?'}, corpus {plan.corpus or '?'}.",
        f"Intervals: {INTERVAL_RULE}; bootstrap seed {bootstrap_seed}. Uncaptured runs are never graded.",
    ]
    version = records.batch.code_version
    if version.version or version.git_commit:
        facts.append(f"bakeoff {version.version or '?'} at {(version.git_commit or '?')[:12]}.")
    return facts + [f"Left out: {line}." for line in refusal_lines(records)]


def extension_lines(records: BatchRecords) -> list[str]:
    return [f"Extension {n} ({ext.at}): the plan added {count(len(ext.added), 'run')}: {', '.join(ext.added)}."
            for n, ext in enumerate(records.batch.extensions, 1)]


def scores_table(records: BatchRecords, core: CoreSummary) -> Table:
    """The leaderboard this report opens with (what `bakeoff run` prints at its end), with each row's paired
    margin over the next row and the runs that would separate them."""
    rows = batch_leaderboard(records, core, added_marks(records))
    margins = next_row_margins([row.model for row in rows], core.pairs)
    return leaderboard_table(rows, core.headline, margins=margins)


def batch_board(batch_dir: Path, plugin: Task, bootstrap_seed: int = 0) -> tuple[LeaderRow, ...]:
    """The leaderboard rows of a batch folder, read afresh (what `bakeoff run` prints when the batch ends)."""
    records = published_batch(batch_dir, plugin)
    return batch_leaderboard(records, core_summary(records, plugin, bootstrap_seed), added_marks(records))


def cost_part(records: BatchRecords, core: CoreSummary) -> tuple[list[Table], list[Plot]]:
    """Cost beside quality: per model, per run, and the headline against model time (and money, where the plan
    prices a model) with its frontier."""
    costs = run_costs(records)
    labels = [m.model for m in core.models]
    by_model = model_costs(costs, labels)
    tables = [model_cost_table([by_model[label] for label in labels]), run_cost_table(costs, records.batch.added_later())]
    return tables, cost_plots(core.runs, costs, labels, core.headline)


def write_report(batch_dir: Path, plugin: Task, out_dir: Path | None = None, bootstrap_seed: int = 0) -> ReportFiles:
    """The report of the batch in `batch_dir`, whose task's plug-in is `plugin` (the command line resolves it)."""
    records = published_batch(batch_dir, plugin)
    target = Path(out_dir) if out_dir else Path(batch_dir) / REPORT_DIR
    title = f"bakeoff report: {Path(batch_dir).resolve().name}"
    core = core_summary(records, plugin, bootstrap_seed)
    scores = scores_table(records, core)
    found: list[str] = extension_lines(records)
    tables: list[Table] = []
    plots: dict[str, tuple[str, str]] = {}
    # Runs to check before trusting them come first (none: nothing added); then the task's own part from its
    # plug-in (its headline, its probes, its calibration); what follows is the same for every task.
    trust = trust_of(records, plugin, core)
    shown = trust_section(trust, core)
    add_sections([shown] if shown is not None else [], found, tables, plots)
    add_sections(task_sections(records, plugin, bootstrap_seed, core), found, tables, plots)
    cost_tables, cost_figures = cost_part(records, core)
    plots.update({plot.name: (plot.caption, plot.svg) for plot in cost_figures})
    tables += [*cost_tables, capture_reasons_table(records), *review_tables(records.reviews)]
    reasoning = reasoning_table(records)
    if reasoning.rows:  # a batch where no model reasoned has no reasoning section
        tables.append(reasoning)
    facts = _facts(records, bootstrap_seed)
    found += reasoning_findings(reasoning)
    why = why_lines(records, batch_settings(records, plugin), plugin.headline)
    page = Page(title, facts, scores, glossary_lines(), found, tables, plots, (margin_note(core.headline),), why)
    with durable.staged_folder(target) as staging:  # the old report, if any, is swapped out whole
        (staging / "plots").mkdir()
        (staging / "tables").mkdir()
        for name, (_, svg) in plots.items():
            durable.write_text(staging / "plots" / f"{name}.svg", svg)
        for table in (scores, *tables):
            durable.write_text(staging / "tables" / f"{table.name}.csv", table.to_csv())
        durable.write_text(staging / "report.md", render_markdown(page))
        # one page per run and review, linked from report.html; a run to check says why at its top
        pages = write_transcripts(records, plugin, staging, transcript_notes(trust))
        html = link_transcripts(render_html(page), pages)
        durable.write_text(staging / "report.html", html)
        durable.write_text(staging / "summary.json", durable.dumps(summary_dict([scores, *tables]), indent=1))
    return ReportFiles(
        folder=target,
        markdown=target / "report.md",
        html=target / "report.html",
        plots=tuple(target / "plots" / f"{name}.svg" for name in plots),
        tables=tuple(target / "tables" / f"{t.name}.csv" for t in (scores, *tables)),
        refused=tuple(refusal_lines(records)),
    )


def summary_dict(tables) -> dict:
    """The tables as JSON records, for tools that prefer JSON to CSV."""
    return {t.name: [dict(zip((c.name for c in t.columns), row, strict=False)) for row in t.rows] for t in tables}
