"""Writing the transcript pages beside report.html, and linking them from it.

report.html is rendered from tables whose cells are escaped text; the runs table's
`transcript` cell holds the page's relative path, and here that exact cell becomes a
link. Review pages, which have no per-run row, get a short list of links at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import durable
from bakeoff.batchfolder.read import BatchRecords
from bakeoff.report.review import typed_reviews
from bakeoff.report.transcript import TRANSCRIPT_DIR, render_run_transcript, transcript_name, transcript_path
from bakeoff.report.transcript_html import esc
from bakeoff.report.transcript_review import read_review, render_review_transcript
from bakeoff.taskapi.task import Task


def review_page_path(source: str) -> str:
    return f"{TRANSCRIPT_DIR}/{transcript_name('review-' + source.replace('/', '-'))}"


def write_transcripts(records: BatchRecords, plugin: Task, report_dir: Path,
                      notes: Mapping[str, Sequence[str]] | None = None) -> dict[str, str]:
    """Write every run's and review's page under report_dir/transcripts/ (a run's `notes`, what to check before
    trusting it, at the top of its page); returns {title: relative path}."""
    folder = Path(report_dir) / TRANSCRIPT_DIR
    folder.mkdir(exist_ok=True)
    pages: dict[str, str] = {}
    for run in records.runs:
        path = transcript_path(run.run_id)
        found = (notes or {}).get(run.run_id, ())
        durable.write_text(Path(report_dir) / path, render_run_transcript(run, plugin, check_first=found))
        pages[f"run {run.run_id}"] = path
    for source, summary in typed_reviews(records.reviews):
        review = read_review(records.folder / source, source, summary)
        path = review_page_path(source)
        durable.write_text(Path(report_dir) / path, render_review_transcript(review))
        pages[f"review {source}"] = path
    return pages


def link_transcripts(html: str, pages: dict[str, str]) -> str:
    """The runs table's path cells become links; a list of every page is added before </body>."""
    for path in pages.values():
        cell = f"<td>{esc(path)}</td>"
        html = html.replace(cell, f'<td><a href="{esc(path)}">transcript</a></td>')
    if not pages:
        return html
    items = "".join(f'<li><a href="{esc(path)}">{esc(title)}</a></li>' for title, path in pages.items())
    section = f'<section id="transcripts"><h2>Transcripts</h2><ul>{items}</ul></section>'
    head, sep, tail = html.rpartition("</body>")
    return f"{head}{section}{sep}{tail}" if sep else html + section
