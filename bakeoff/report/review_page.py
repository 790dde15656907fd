"""`bakeoff report OUT` of a review folder on its own (`bakeoff review --out OUT`): the same claim-review
tables a batch's report shows (figures, flaw families, cost), its transcript page, and a CSV per table,
written into a folder swapped in whole (durable.staged_folder) like every report."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

import durable
from bakeoff.batchfolder.layout import ReviewLayout
from bakeoff.report.render import CSS, html_table_part, md_table_part
from bakeoff.report.review import summary_tables
from bakeoff.report.transcript import TRANSCRIPT_DIR
from bakeoff.report.transcript_review import read_review, render_review_transcript
from bakeoff.review.records import read_summary
from bakeoff.textsafe import markdown_text as _md

TRANSCRIPT_PAGE = f"{TRANSCRIPT_DIR}/review.html"


@dataclass(frozen=True)
class ReviewReportFiles:
    folder: Path
    markdown: Path
    html: Path


def write_review_report(folder: Path, out: Path | None = None) -> ReviewReportFiles:
    """The report of the finished review in `folder` (OUT/report by default)."""
    folder = Path(folder)
    out = Path(out) if out is not None else folder / "report"
    summary = read_summary(ReviewLayout(folder).summary)
    review = read_review(folder, folder.name, summary)
    tables = summary_tables(((folder.name, summary),))
    title = f"claim review: {folder.name}"
    facts = [f"model: {review.model}", f"answers: {len(review.answers)}",
             f"items: {summary.items_file or 'unknown'} (sha256 {summary.items_sha256 or 'unknown'})"]
    facts += [f"not read: {line}" for line in review.unreadable]
    markdown = [f"# {_md(title)}", "", *[f"- {_md(fact)}" for fact in facts]]
    for table in tables:
        markdown += md_table_part(table, "##")
    markdown += ["", f"Transcript: `{TRANSCRIPT_PAGE}`", ""]
    body = "".join(f"<p>{escape(fact)}</p>" for fact in facts) + "".join(
        f'<section id="table-{escape(t.name)}"><h2>{escape(t.title)}</h2>{html_table_part(t)}</section>' for t in tables)
    html = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{CSS}</style></head><body><header><h1>{escape(title)}</h1></header>{body}"
            f'<p><a href="{TRANSCRIPT_PAGE}">every answer beside the truth</a></p></body></html>\n')
    with durable.staged_folder(out) as staging:
        (staging / "tables").mkdir()
        (staging / TRANSCRIPT_DIR).mkdir()
        for table in tables:
            durable.write_text(staging / "tables" / f"{table.name}.csv", table.to_csv())
        durable.write_text(staging / TRANSCRIPT_PAGE, render_review_transcript(review))
        durable.write_text(staging / "report.md", "\n".join(markdown))
        durable.write_text(staging / "report.html", html)
    return ReviewReportFiles(out, out / "report.md", out / "report.html")
