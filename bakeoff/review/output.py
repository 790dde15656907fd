"""Writing a review's results: review.json and answers.jsonl, typed (bakeoff.review.records; docs/review.md).

answers.jsonl is written whole and atomically before review.json, and review.json last: a folder with a
review.json is a finished review, whose answers are all there. A finished folder is never overwritten.
"""

from __future__ import annotations

from pathlib import Path

from bakeoff import __version__
from bakeoff.batchfolder.files import write_atomic_text
from bakeoff.batchfolder.layout import ReviewLayout
from bakeoff.review.errors import ReviewError, ReviewOutputExists
from bakeoff.review.grading import ItemAnswer
from bakeoff.review.items import ReviewItem
from bakeoff.review.records import (
    AnswerRecord,
    BaselineSummary,
    ReviewNumbers,
    ReviewSummary,
    SettingsRecord,
    convert,
    encode,
    review_cost,
)
from bakeoff.review.records import read_summary as _read_summary
from bakeoff.review.runner import ReviewResult

SUMMARY_FILE = "review.json"
ANSWERS_FILE = "answers.jsonl"


def summary_record(result: ReviewResult, items_file: str, items_sha256: str, baseline: dict | None = None
                   ) -> ReviewSummary:
    """review.json; `baseline` is the cues reader's summary on the same items (bakeoff.review.cues)."""
    return ReviewSummary(
        model=result.backend,
        bakeoff_version=__version__,
        model_info=dict(result.model_info),
        items_file=items_file,
        items_sha256=items_sha256,
        settings=convert(result.settings.to_dict(), SettingsRecord, "the review's settings"),
        started_at=result.started_at,
        finished_at=result.finished_at,
        metrics=convert(result.metrics.to_dict(), ReviewNumbers, "the review's metrics"),
        baseline_cues=convert(baseline, BaselineSummary, "the cues baseline") if baseline is not None else None,
        cost=review_cost(result.answers, result.started_at, result.finished_at),
    )


def answer_record(item: ReviewItem, answer: ItemAnswer) -> AnswerRecord:
    """The answer with the item fields a reader needs to interpret it."""
    fields = {name: getattr(answer, name) for name in ItemAnswer.__struct_fields__}  # a reused answer is a record
    return AnswerRecord(**fields, expected=item.verdict, family=item.family, pair_id=item.pair_id,
                        flaw_lines=tuple(item.flaw_lines))


def answer_records(result: ReviewResult) -> list[AnswerRecord]:
    items = {item.id: item for item in result.items}
    return [answer_record(items[answer.item_id], answer) for answer in result.answers]


def check_output_free(out_dir: Path) -> None:
    """Refuse a destination that exists and is not an empty folder (results are never overwritten)."""
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise ReviewOutputExists(f"{out_dir} already exists and is not an empty folder; choose another --out")


def write_finished(layout: ReviewLayout, result: ReviewResult, items_file: str, items_sha256: str,
                   baseline: dict | None = None) -> Path:
    """answers.jsonl, then review.json (which marks the folder finished); returns the folder."""
    if layout.summary.exists():
        raise ReviewOutputExists(f"{layout.folder} already holds a finished review; choose another --out")
    try:
        layout.folder.mkdir(parents=True, exist_ok=True)
        write_atomic_text(layout.answers, "".join(encode(record) + "\n" for record in answer_records(result)))
        summary = summary_record(result, items_file, items_sha256, baseline)
        write_atomic_text(layout.summary, encode(summary, indent=2) + "\n")
    except OSError as exc:
        raise ReviewError(f"cannot write review results to {layout.folder}: {exc}") from None
    return layout.folder


def write_results(out_dir: Path, result: ReviewResult, items_file: str, items_sha256: str,
                  baseline: dict | None = None) -> Path:
    """A finished review into a new (or empty) folder; returns its path."""
    check_output_free(Path(out_dir))
    return write_finished(ReviewLayout(Path(out_dir)), result, items_file, items_sha256, baseline)


def read_summary(out_dir: Path) -> ReviewSummary:
    """The review.json of a results folder (what `bakeoff report` reads)."""
    return _read_summary(ReviewLayout(Path(out_dir)).summary)
