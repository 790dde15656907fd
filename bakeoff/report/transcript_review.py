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
from typing import Any

import durable
from bakeoff.report.transcript_html import Raw, esc, fold, kv, number, page

ANSWERS_FILE = "answers.jsonl"


@dataclass(frozen=True)
class ReviewRecords:
    source: str  # the folder, relative to the batch
    folder: Path
    summary: Mapping[str, Any]  # review.json
    answers: tuple[Mapping[str, Any], ...]  # answers.jsonl, in order
    items: Mapping[str, Any]  # item id -> ReviewItem, when the items file matches its recorded digest
    unreadable: tuple[str, ...] = ()  # what could not be read (a missing answers file, lines that are not JSON)

    @property
    def model(self) -> str:
        return str(self.summary.get("model") or self.source)


def _items(summary: Mapping[str, Any]) -> Mapping[str, Any]:
    from bakeoff.review.errors import ReviewError
    from bakeoff.review.items import bank_digest, load_items

    path = summary.get("items_file")
    if not isinstance(path, str) or not path:
        return {}
    try:  # the items file and its key, if it has one, must be the ones the review was asked about
        if bank_digest(Path(path)) != summary.get("items_sha256"):
            return {}
        return {item.id: item for item in load_items(Path(path))}
    except ReviewError:
        return {}


def read_review(folder: Path, source: str, summary: Mapping[str, Any]) -> ReviewRecords:
    path = Path(folder) / ANSWERS_FILE
    answers, unreadable = [], []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        lines, unreadable = [], [f"{ANSWERS_FILE}: {exc.strerror or exc}"]
    for number_, line in enumerate(lines, 1):
        if line.strip():
            try:
                answers.append(durable.loads(line, what=f"{ANSWERS_FILE} line {number_}"))
            except durable.UntrustedJSON:
                unreadable.append(f"{ANSWERS_FILE} line {number_} is not JSON")
    return ReviewRecords(source, Path(folder), summary, tuple(answers), _items(summary), tuple(unreadable))


def truth_words(answer: Mapping[str, Any]) -> str:
    lines = answer.get("flaw_lines") or []
    where = f", flaw at line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}" if lines else ""
    return f"{answer.get('expected')}{where}" + (f" ({answer['family']})" if answer.get("family") else "")


def _answer(answer: Mapping[str, Any], item: Any) -> str:
    correct = answer.get("correct")
    mark = "right" if correct else "not graded (uncaptured)" if correct is None else "wrong"
    css = "good" if correct else "bad" if correct is False else ""
    rows = kv([
        ("truth", truth_words(answer)),
        ("verdict", Raw(f'<span class="{css}">{esc(answer.get("verdict") or "no verdict")}: {esc(mark)}</span>')),
        ("blamed line", answer.get("blamed_line") if answer.get("blamed_line") is not None else "none"),
        ("localized", answer.get("localized")),
        ("confidence", number(answer.get("confidence"), 0)),
        ("reason", answer.get("reason")),
        ("capture", " ".join(str(v) for v in (answer.get("capture"), answer.get("capture_reason")) if v)),
        ("finish reason", answer.get("finish_reason")), ("error", answer.get("error")),
    ])
    parts = [rows]
    if item is not None:
        parts.append(kv([("claim", item.claim)]))
        parts.append(fold("code as numbered in the prompt", _numbered(item.code), open_=False))
        parts.append(fold("why the truth is what it is", item.explanation, open_=False))
    if answer.get("reasoning"):
        parts.append(fold("reasoning", answer["reasoning"], open_=False))
    parts.append(fold("answer", answer.get("text") or ""))
    ident = f"{answer.get('item_id')}-{answer.get('sample')}"
    return (f'<section class="item" id="item-{esc(ident)}"><h2>{esc(answer.get("item_id"))}, sample '
            f'{esc((answer.get("sample") or 0) + 1)}</h2>{"".join(parts)}</section>')


def _numbered(code: str) -> str:
    from bakeoff.review.prompt import numbered_code

    return numbered_code(code)


def render_review_transcript(review: ReviewRecords, back: str | None = "../report.html") -> str:
    metrics = review.summary.get("metrics") or {}
    head = kv([("model", review.model), ("folder", review.source),
               ("answers", len(review.answers)), ("not read", "; ".join(review.unreadable) or None),
               ("items file", review.summary.get("items_file") if review.items else
                "not readable or changed since the review: claims and code not shown"),
               *((name, number(metrics.get(name))) for name in ("accuracy", "problem_recall", "ok_specificity",
                                                                  "pair_accuracy"))])
    body = f'<section id="summary"><h2>Summary</h2>{head}</section>' + "".join(
        _answer(a, review.items.get(str(a.get("item_id")))) for a in review.answers)
    return page(f"review transcript: {review.source}", body, back)
