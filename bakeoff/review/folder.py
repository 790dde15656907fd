"""A review's output folder as a batch folder: the batch's lock, journal and resume rules (docs/review.md).

`bakeoff review --out DIR` writes into DIR from its first answer on. DIR/resume.json holds the settings the
answers are asked under; DIR/answers.jsonl gets one AnswerRecord per answer, fsynced before the next question
(durable's journal: a line cut by a crash is dropped, a damaged earlier one refused by name); DIR/events.jsonl
is the batch journal (bakeoff.batchfolder.files.Journal); DIR/batch.lock keeps a second writer out. A start
with the same settings asks only the answers still missing; review.json, written last, marks the folder
finished, and no reader takes a folder without one for results.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec

import durable
from bakeoff.batchfolder.files import Journal, read_json_object, write_json
from bakeoff.batchfolder.layout import ReviewLayout
from bakeoff.batchfolder.lock import batch_lock
from bakeoff.review.errors import ReviewError, ReviewOutputExists, ReviewResumeMismatch
from bakeoff.review.grading import ItemAnswer
from bakeoff.review.items import ReviewItem
from bakeoff.review.output import answer_record, write_finished
from bakeoff.review.records import AnswerRecord, ResumeHeader, ReviewRecordDamaged, convert, read_record
from bakeoff.review.runner import PriorAnswers, ReviewResult
from bakeoff.review.settings import ReviewSettings


def resume_header(model_spec: str, items_sha256: str, settings: ReviewSettings, started_at: str) -> ResumeHeader:
    """What must not change between a review's starts: the answers were asked under exactly this."""
    return ResumeHeader(model=model_spec, items_sha256=items_sha256, samples=settings.samples,
                        temperature=settings.temperature, max_tokens=settings.max_tokens, seed=settings.seed,
                        started_at=started_at)


class ReviewFolder:
    """One review's output folder, opened by `open_review` (checked) and written under `writing()` (locked)."""

    def __init__(self, layout: ReviewLayout, header: ResumeHeader, items: tuple[ReviewItem, ...]) -> None:
        self.layout = layout
        self.header = header
        self.items = {item.id: item for item in items}
        self.events = Journal(layout.events)

    @property
    def folder(self) -> Path:
        return self.layout.folder

    def prior(self) -> PriorAnswers:
        """The answers already recorded, by (item id, sample): each is asked again only if it is missing."""
        answers: dict[tuple[str, int], ItemAnswer] = {}
        for number, line in enumerate(_answer_lines(self.layout.answers), 1):
            answer = convert(line, AnswerRecord, f"{self.layout.answers} line {number}")
            answers.setdefault((answer.item_id, answer.sample), answer)
        model_info = read_json_object(self.layout.model_info) if self.layout.model_info.is_file() else {}
        return PriorAnswers(answers, model_info, self.header.started_at)

    @contextmanager
    def writing(self) -> Iterator[None]:
        """The folder's writer lock, held while answers are asked; the header written, the start journalled."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReviewError(f"cannot create the review folder {self.folder}: {exc}") from None
        with batch_lock(self.folder):
            write_json(self.layout.resume, msgspec.to_builtins(self.header))
            self.events.append("review_started", model=self.header.model, items_sha256=self.header.items_sha256)
            yield

    def record(self, answer: ItemAnswer, model_info: dict) -> None:
        """Append one answer durably (and the model's description, the first time there is one)."""
        try:
            if model_info and not self.layout.model_info.exists():
                write_json(self.layout.model_info, model_info)
            record = answer_record(self.items[answer.item_id], answer)
            durable.Journal(self.layout.answers).append(record.to_dict(), ensure_ascii=False)
        except OSError as exc:
            raise ReviewError(f"cannot record an answer in {self.folder}: {exc}") from None

    def finish(self, result: ReviewResult, items_file: str, items_sha256: str, baseline: dict | None) -> Path:
        """The answers in their order and review.json, which marks the review finished."""
        written = write_finished(self.layout, result, items_file, items_sha256, baseline)
        self.events.append("review_finished", answers=len(result.answers))
        return written


def _answer_lines(path: Path) -> list:
    """Complete lines only: a line cut by a crash (no newline yet) is dropped (durable's journal rule)."""
    try:
        return durable.Journal(path).entries()
    except durable.JournalDamaged as exc:
        raise ReviewError(f"{exc}; or move the file away to start the review afresh") from None


def open_review(out_dir: Path, header: ResumeHeader, items: tuple[ReviewItem, ...]) -> ReviewFolder:
    """The folder `out_dir` checked before the model loads: a finished review, a folder that is not a review's,
    an unfinished review of other settings (its answers kept) and a partial folder of an older bakeoff are
    refused by name."""
    layout = ReviewLayout(Path(out_dir))
    if layout.old_partial().exists():
        raise ReviewError(
            f"{layout.old_partial()} holds answers of an unfinished review written by an older bakeoff; finish it "
            "with that version, or remove that folder to start the review afresh")
    if layout.summary.exists():
        raise ReviewOutputExists(f"{layout.folder} already holds a finished review; choose another --out")
    if not layout.resume.is_file():
        if layout.folder.exists() and (not layout.folder.is_dir() or _holds_more_than_the_lock(layout)):
            raise ReviewOutputExists(f"{layout.folder} already exists and is not an empty folder nor an "
                                     "unfinished review; choose another --out")
        return ReviewFolder(layout, header, items)
    stored = _stored_header(layout)
    changed = stored.differences(header)
    if changed and _answer_lines(layout.answers):
        raise ReviewResumeMismatch(
            f"{layout.folder} holds answers of an unfinished review with other settings ({', '.join(changed)}); "
            f"rerun with the same settings to continue it, or choose another --out")
    return ReviewFolder(layout, header if changed else stored, items)  # no answer yet: nothing to keep


def _holds_more_than_the_lock(layout: ReviewLayout) -> bool:
    """A folder with nothing but the writer's lock is free: a start stopped before its header was written."""
    return any(path != layout.lock for path in layout.folder.iterdir())


def _stored_header(layout: ReviewLayout) -> ResumeHeader:
    try:
        return read_record(layout.resume, ResumeHeader)
    except ReviewRecordDamaged as exc:
        raise ReviewRecordDamaged(f"{exc}; remove the folder to start the review afresh") from None
