"""Rendering the report as Markdown and as one self-contained HTML page (inline CSS and SVG, no script)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

from bakeoff.analysis.why import WHY_HEADING
from bakeoff.report.tables import Table, display
from bakeoff.textsafe import markdown_text, printable

PLOT_SECTION_ID = "plots"
# Fixed geometry: the page places plot i at a position a test (or a reader) can compute. Above the plots, the
# first screen (one box of fixed height) holds the header, the scores and the findings one after the other, each
# as tall as its text: the findings take what is left (at least FINDINGS_MIN_H, scrolled inside when they hold
# more), so no block of fixed height stands empty under a short header or a short table.
FIGURE_W, FIGURE_H, GAP, HEADER_H = 600, 380, 20, 160
PLOTS_TOP = 760  # the first screen's height: the plots begin under it
FINDINGS_MIN_H = 140


@dataclass(frozen=True)
class Page:
    """Everything the report's two renderings show, in their order: the scores first."""

    title: str
    facts: Sequence[str]
    scores: Table  # the leaderboard
    glossary: Sequence[str]
    findings: Sequence[str]
    tables: Sequence[Table]
    plots: Mapping[str, tuple[str, str]]  # name -> (caption, svg)
    score_notes: Sequence[str] = ()  # under the scores: what their margin columns mean
    why: Sequence[str] = ()  # under the scores: per model that scored nothing or little, why (bakeoff.analysis.why)

CSS = f"""
body {{ margin: 0; font-family: Helvetica, Arial, sans-serif; color: #222; background: #fafafa; }}
header {{ max-height: {HEADER_H}px; box-sizing: border-box; padding: 16px {GAP}px 0 {GAP}px; overflow: hidden; flex: none; }}
#first-screen {{ height: {PLOTS_TOP}px; display: flex; flex-direction: column; overflow: hidden; }}
header h1 {{ margin: 0 0 8px 0; font-size: 24px; }}
header p {{ margin: 2px 0; font-size: 13px; color: #555; }}
#scores {{ flex: 0 1 auto; min-height: 0; box-sizing: border-box; overflow: auto; }}
#findings {{ flex: 1 0 {FINDINGS_MIN_H}px; box-sizing: border-box; overflow: auto; }}
#scores h2, #findings h2 {{ margin: 4px 0 8px 0; }}
details summary {{ cursor: pointer; font-size: 12px; color: #555; margin: 4px 0; }}
dl.glossary dt {{ font-weight: bold; font-size: 13px; }}
dl.glossary dd {{ margin: 0 0 4px 16px; font-size: 13px; }}
#{PLOT_SECTION_ID} {{ display: grid; grid-template-columns: {FIGURE_W}px {FIGURE_W}px; gap: {GAP}px; padding: 0 {GAP}px; }}
figure {{ margin: 0; width: {FIGURE_W}px; }}
figure svg {{ display: block; width: {FIGURE_W}px; height: {FIGURE_H}px; }}
figcaption {{ font-size: 12px; color: #555; height: 48px; overflow: hidden; }}
section {{ padding: 8px {GAP}px; }}
table {{ border-collapse: collapse; font-size: 12px; background: #fff; }}
th, td {{ border: 1px solid #ccc; padding: 3px 6px; text-align: right; white-space: nowrap; }}
th:first-child, td:first-child {{ text-align: left; }}
.scroll {{ overflow-x: auto; max-width: 100%; }}
ul.findings li {{ margin: 2px 0; }}
"""


def plot_box(index: int) -> tuple[int, int, int, int]:
    """(left, top, width, height) in CSS pixels of the index-th plot in the page."""
    column, row = index % 2, index // 2
    left = GAP + column * (FIGURE_W + GAP)
    top = PLOTS_TOP + row * (FIGURE_H + 48 + GAP)  # 48: the caption under each plot
    return left, top, FIGURE_W, FIGURE_H


def _md(text: object) -> str:
    """Record text inside Markdown: control characters escaped, markup shown as text (raw <script> stays inert)."""
    return markdown_text(text)


def _md_cell(text: object) -> str:
    return _md(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(table: Table) -> str:
    head = "| " + " | ".join(_md_cell(c.name) for c in table.columns) + " |"
    rule = "| " + " | ".join("---" for _ in table.columns) + " |"
    body = ["| " + " | ".join(_md_cell(display(v, c.kind)) for v, c in zip(row, table.columns, strict=False)) + " |"
            for row in table.rows]
    if not body:
        return "(none)"
    return "\n".join([head, rule, *body])


def md_table_part(table: Table, heading: str) -> list[str]:
    """A table's short view, and the whole of a wide one folded under it (GitHub and most viewers fold <details>)."""
    parts = ["", f"{heading} {_md(table.title)}", "", markdown_table(table.view())]
    if table.is_wide:
        parts += ["", f"<details><summary>all {len(table.columns)} columns</summary>", "", markdown_table(table), "",
                  "</details>"]
    return parts + ["", f"CSV: `tables/{printable(table.name)}.csv`"]


def render_markdown(page: Page) -> str:
    parts = [f"# {_md(page.title)}", "", *[f"- {_md(f)}" for f in page.facts]]
    parts += md_table_part(page.scores, "## Scores:")  # "## Scores: Leaderboard (<headline>, ...)"
    parts += [part for note in page.score_notes for part in ("", _md(note))]
    if page.why:
        parts += ["", WHY_HEADING, "", *[f"- {_md(line)}" for line in page.why]]
    parts += ["", "## Findings", ""]
    parts += [f"- {_md(line)}" for line in page.findings] or ["- (no runs)"]
    parts += ["", "## Words", "", *[f"- {_md(line)}" for line in page.glossary]]
    for table in page.tables:
        parts += md_table_part(table, "##")
    parts += ["", "## Plots", ""]
    parts += [f"- `plots/{printable(name)}.svg`: {_md(caption)}" for name, (caption, _) in page.plots.items()]
    parts += ["", "The HTML report (`report.html`) shows the plots inline.", ""]
    return "\n".join(parts)


def _scores_notes_html(page: Page) -> str:
    """Under the scores table: the why lines first, then the notes on how to read the table. The scores part
    is one screen's height, so what comes first is what the first screen shows."""
    why = ""
    if page.why:
        why = f"<p>{escape(WHY_HEADING)}</p><ul class=\"why\">" + "".join(
            f"<li>{escape(line)}</li>" for line in page.why) + "</ul>"
    return why + "".join(f"<p><small>{escape(note)}</small></p>" for note in page.score_notes)


def html_table(table: Table) -> str:
    if not table.rows:
        return "<p>(none)</p>"
    head = "".join(f"<th>{escape(c.name)}</th>" for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(display(v, c.kind))}</td>" for v, c in zip(row, table.columns, strict=False)) + "</tr>"
        for row in table.rows
    )
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def html_table_part(table: Table) -> str:
    body = html_table(table.view())
    if table.is_wide:
        body += f"<details><summary>all {len(table.columns)} columns</summary>{html_table(table)}</details>"
    return body + f"<p><small>CSV: tables/{escape(table.name)}.csv</small></p>"


def render_html(page: Page) -> str:
    figures = "".join(
        f'<figure id="plot-{escape(name)}">{svg}<figcaption>{escape(caption)}</figcaption></figure>'
        for name, (caption, svg) in page.plots.items()
    )
    items = "".join(f"<li>{escape(line)}</li>" for line in page.findings) or "<li>(no runs)</li>"
    sections = "".join(
        f'<section id="table-{escape(t.name)}"><h2>{escape(t.title)}</h2>{html_table_part(t)}</section>'
        for t in page.tables
    )
    words = "".join(f"<dt>{escape(line.split(': ', 1)[0])}</dt><dd>{escape(line.split(': ', 1)[-1])}</dd>"
                    for line in page.glossary)
    header = "".join(f"<p>{escape(f)}</p>" for f in page.facts)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(page.title)}</title><style>{CSS}</style></head><body>"
        f'<div id="first-screen"><header><h1>{escape(page.title)}</h1>{header}</header>'
        f'<section id="scores"><h2>Scores</h2><p><small>{escape(page.scores.title)}</small></p>'
        f'{html_table_part(page.scores)}{_scores_notes_html(page)}</section>'
        f'<section id="findings"><h2>Findings</h2><ul class="findings">{items}</ul></section></div>'
        f'<div id="{PLOT_SECTION_ID}">{figures}</div>'
        f'<section id="glossary"><h2>Words</h2><dl class="glossary">{words}</dl></section>'
        f"{sections}</body></html>\n"
    )
