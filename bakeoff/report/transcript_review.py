"""A review's transcript page: every answer with the model's verdict, reason, blamed line and
confidence next to the truth. Also the reader of a review folder's answers (the exporters use it).

The items themselves (claim, code, explanation) are not in a results folder; they are read
from the items file review.json names, and used only when its sha256 is the one recorded, so
the page never shows an item that is not the one the model was asked about.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bakeoff.report.transcript_html import Raw, esc, fold, kv, number, page
from bakeoff.review.items import ReviewItem
from bakeoff.review.records import AnswerRecord, ReviewSummary, read_answer_lines

ANSWERS_FILE = "answers.jsonl"


@dataclass(frozen=True)
class ReviewRecords:
    source: str  # the folder, relative to the batch
    folder: Path
    summary: ReviewSummary  # review.json
    answers: tuple[AnswerRecord, ...]  # answers.jsonl, in order
    items: Mapping[str, ReviewItem]  # by id, when the items file matches its recorded digest
    unreadable: tuple[str, ...] = ()  # what could not be read (a missing answers file, lines that are not answers)

    @property
    def model(self) -> str:
        return self.summary.model or self.source


def _items(summary: ReviewSummary) -> Mapping[str, ReviewItem]:
    from bakeoff.review.errors import ReviewError
    from bakeoff.review.items import bank_digest, load_items

    path = summary.items_file
    if not path:
        return {}
    try:  # the items file and its key, if it has one, must be the ones the review was asked about
        if bank_digest(Path(path)) != summary.items_sha256:
            return {}
        return {item.id: item for item in load_items(Path(path))}
    except ReviewError:
        return {}


def read_review(folder: Path, source: str, summary: ReviewSummary) -> ReviewRecords:
    answers, unreadable = read_answer_lines(Path(folder) / ANSWERS_FILE)
    return ReviewRecords(source, Path(folder), summary, answers, _items(summary), unreadable)


def truth_words(answer: AnswerRecord) -> str:
    lines = answer.flaw_lines
    where = f", flaw at line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}" if lines else ""
    return f"{answer.expected}{where}" + (f" ({answer.family})" if answer.family else "")


def _answer(answer: AnswerRecord, item: ReviewItem | None) -> str:
    correct = answer.correct
    mark = "right" if correct else "not graded (uncaptured)" if correct is None else "wrong"
    css = "good" if correct else "bad" if correct is False else ""
    rows = kv([
        ("truth", truth_words(answer)),
        ("verdict", Raw(f'<span class="{css}">{esc(answer.verdict or "no verdict")}: {esc(mark)}</span>')),
        ("blamed line", answer.blamed_line if answer.blamed_line is not None else "none"),
        ("localized", answer.localized),
        ("confidence", number(answer.confidence, 0)),
        ("reason", answer.reason),
        ("capture", " ".join(str(v) for v in (answer.capture, answer.capture_reason) if v)),
        ("finish reason", answer.finish_reason), ("error", answer.error),
    ])
    parts = [rows]
    if item is not None:
        parts.append(kv([("claim", item.claim)]))
        parts.append(fold("code as numbered in the prompt", _numbered(item.code), open_=False))
        parts.append(fold("why the truth is what it is", item.explanation, open_=False))
    if answer.reasoning:
        parts.append(fold("reasoning", answer.reasoning, open_=False))
    parts.append(fold("answer", answer.text))
    ident = f"{answer.item_id}-{answer.sample}"
    return (f'<section class="item" id="item-{esc(ident)}"><h2>{esc(answer.item_id)}, sample '
            f'{esc(answer.sample + 1)}</h2>{"".join(parts)}</section>')


def _numbered(code: str) -> str:
    from bakeoff.review.prompt import numbered_code

    return numbered_code(code)


def render_review_transcript(review: ReviewRecords, back: str | None = "../report.html") -> str:
    metrics = review.summary.metrics
    head = kv([("model", review.model), ("folder", review.source),
               ("answers", len(review.answers)), ("not read", "; ".join(review.unreadable) or None),
               ("items file", review.summary.items_file if review.items else
                "not readable or changed since the review: claims and code not shown"),
               *((name, number(getattr(metrics, name))) for name in ("accuracy", "problem_recall", "ok_specificity",
                                                                  "pair_accuracy"))])
    body = f'<section id="summary"><h2>Summary</h2>{head}</section>' + "".join(
        _answer(a, review.items.get(a.item_id)) for a in review.answers)
    return page(f"review transcript: {review.source}", body, back)
