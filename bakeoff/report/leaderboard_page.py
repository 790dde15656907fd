"""`bakeoff leaderboard`'s files: one self-contained HTML page (tables and the Pareto plot of each task),
Markdown, and a CSV per task, written into a folder swapped in whole (durable.staged_folder)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from html import escape
from pathlib import Path

import durable
from bakeoff.analysis.leaderboard import PooledBoard, describe_differences
from bakeoff.report.core import pair_findings, pairs_table
from bakeoff.report.cost import pareto_plot
from bakeoff.report.leaderboard import glossary_lines, leaderboard_table
from bakeoff.report.render import CSS, html_table_part, md_table_part
from bakeoff.report.tables import Table
from bakeoff.textsafe import markdown_text as _md


@dataclass(frozen=True)
class LeaderboardFiles:
    folder: Path
    markdown: Path
    html: Path
    tables: tuple[Path, ...]
    plots: tuple[Path, ...]


def _tables(board: PooledBoard) -> tuple[Table, Table]:
    title = f"{board.task}: pooled over {len(board.batches)} batches"
    scores = leaderboard_table(board.rows, board.spec, name=f"leaderboard-{board.task}",
                               title=f"{title} ({board.spec.label}, {'higher' if board.spec.higher_is_better else 'lower'} "
                                     "is better)")
    paired = replace(pairs_table(replace(board.core, pairs=board.pairs())), name=f"paired-{board.task}")
    return scores, paired


def _notes(board: PooledBoard) -> list[str]:
    notes = [f"Batches: {', '.join(board.batches)}."]
    if board.mixed:
        notes.append(f"Pooled with --allow-mixed although they differ: {describe_differences(board.mixed)}; "
                     "each row's marks say what its batches were.")
    notes += pair_findings(board.pairs(), board.spec) or ["No two rows share a batch and a seed: no paired comparison."]
    return notes


def write_leaderboard(boards: Sequence[PooledBoard], out_dir: Path, refused: Sequence[str] = (),
                      extra: Sequence[Table] = ()) -> LeaderboardFiles:
    """The files; `refused` lists the batches and runs left out (bakeoff.analysis.admit), said on the page too;
    `extra` are boards of their own (the claim review's, pooled by bakeoff.review.pool)."""
    parts_md = ["# bakeoff leaderboard", ""]
    parts_html: list[str] = []
    if refused:
        parts_md += ["## Left out", "", *[f"- {_md(line)}" for line in refused], ""]
        parts_html.append('<section id="refused"><h2>Left out</h2>' + "".join(f"<p>{escape(line)}</p>" for line in refused)
                          + "</section>")
    written_tables: list[tuple[Table, ...]] = []
    svgs: dict[str, str] = {}
    for board in boards:
        scores, paired = _tables(board)
        plot = pareto_plot(board.core.runs, board.run_costs, [r.model for r in board.rows], board.spec)
        name = f"pareto-{board.task}"
        svgs[name] = plot.svg
        written_tables.append((scores, paired))
        notes = _notes(board)
        parts_md += [f"## {_md(board.task)}", "", *[f"- {_md(n)}" for n in notes]]
        parts_md += md_table_part(scores, "###") + md_table_part(paired, "###")
        parts_md += ["", f"Plot: `plots/{name}.svg`: {_md(plot.caption)}", ""]
        parts_html.append(
            f'<section id="task-{escape(board.task)}"><h2>{escape(board.task)}</h2>'
            + "".join(f"<p>{escape(n)}</p>" for n in notes)
            + f'<div id="table-{escape(scores.name)}"><h3>{escape(scores.title)}</h3>{html_table_part(scores)}</div>'
            + f'<figure id="plot-{escape(name)}">{plot.svg}<figcaption>{escape(plot.caption)}</figcaption></figure>'
            + f'<div id="table-{escape(paired.name)}"><h3>{escape(paired.title)}</h3>{html_table_part(paired)}</div>'
            + "</section>"
        )
    for table in extra:
        written_tables.append((table,))
        parts_md += md_table_part(table, "##") + [""]
        parts_html.append(f'<section id="table-{escape(table.name)}"><h2>{escape(table.title)}</h2>'
                          f"{html_table_part(table)}</section>")
    words = glossary_lines()
    parts_md += ["## Words", "", *[f"- {_md(w)}" for w in words], ""]
    glossary = "".join(f"<dt>{escape(w.split(': ', 1)[0])}</dt><dd>{escape(w.split(': ', 1)[-1])}</dd>" for w in words)
    html = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bakeoff leaderboard</title>"
            f"<style>{CSS}</style></head><body><header><h1>bakeoff leaderboard</h1></header>{''.join(parts_html)}"
            f'<section id="glossary"><h2>Words</h2><dl class="glossary">{glossary}</dl></section></body></html>\n')
    with durable.staged_folder(out_dir) as staging:
        (staging / "tables").mkdir()
        (staging / "plots").mkdir()
        for tables in written_tables:
            for table in tables:
                durable.write_text(staging / "tables" / f"{table.name}.csv", table.to_csv())
        for name, svg in svgs.items():
            durable.write_text(staging / "plots" / f"{name}.svg", svg)
        durable.write_text(staging / "leaderboard.md", "\n".join(parts_md))
        durable.write_text(staging / "leaderboard.html", html)
    return LeaderboardFiles(out_dir, out_dir / "leaderboard.md", out_dir / "leaderboard.html",
                            tuple(out_dir / "tables" / f"{t.name}.csv" for ts in written_tables for t in ts),
                            tuple(out_dir / "plots" / f"{n}.svg" for n in svgs))
