"""The answers of an unfinished review, kept on disk so that a restart continues it (docs/review.md).

They live in `.<out name>.partial/` beside `--out`: a hidden name without
review.json, so neither a reader nor `bakeoff report` can take it for results.
`resume.json` holds the settings the answers were asked under; `answers.jsonl`
is a durable.Journal with one line per answer, fsynced before the next question,
so an interruption loses at most the answer being generated.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import durable
from bakeoff.review.errors import ReviewError, ReviewResumeMismatch
from bakeoff.review.grading import ItemAnswer
from bakeoff.review.runner import PriorAnswers
from bakeoff.review.settings import ReviewSettings

HEADER_FILE = "resume.json"
ANSWERS_FILE = "answers.jsonl"
MODEL_INFO_FILE = "model_info.json"
ANSWER_FIELDS = tuple(field.name for field in dataclasses.fields(ItemAnswer))


def partial_dir(out_dir: Path) -> Path:
    return Path(out_dir).parent / f".{Path(out_dir).name}.partial"


def resume_header(model_spec: str, items_sha256: str, settings: ReviewSettings) -> dict:
    """What must not change between a review's starts: the answers were asked under exactly this."""
    return {
        "model": model_spec,
        "items_sha256": items_sha256,
        "samples": settings.samples,
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "seed": settings.seed,
    }


def _read_lines(path: Path) -> list[dict]:
    """Complete lines only: a line cut by a crash (no newline yet) is dropped (durable's journal rule)."""
    try:
        return durable.Journal(path).entries()
    except durable.JournalDamaged as exc:
        raise ReviewError(f"{exc}; or move the file away to start the review afresh") from None


class Journal:
    """The partial folder of one review: created or reopened by `open_journal`."""

    def __init__(self, folder: Path, header: dict) -> None:
        self.folder = folder
        self.header = header

    def prior(self) -> PriorAnswers:
        answers: dict[tuple[str, int], ItemAnswer] = {}
        for record in _read_lines(self.folder / ANSWERS_FILE):
            try:
                answer = ItemAnswer(**{name: record[name] for name in ANSWER_FIELDS if name in record})
            except TypeError as exc:  # a line that is JSON but not an answer: someone edited the file
                raise ReviewError(f"{self.folder / ANSWERS_FILE} has a line that is not an answer: {exc}") from None
            answers.setdefault((answer.item_id, answer.sample), answer)
        info_path = self.folder / MODEL_INFO_FILE
        model_info = durable.read_json(info_path) if info_path.exists() else {}
        return PriorAnswers(answers, model_info, self.header.get("started_at"))

    def record(self, answer: ItemAnswer, model_info: dict) -> None:
        """Append one answer durably (and the model's description, the first time there is one)."""
        try:
            if not (self.folder / HEADER_FILE).exists():
                self._create()
            if model_info and not (self.folder / MODEL_INFO_FILE).exists():
                durable.write_json(self.folder / MODEL_INFO_FILE, model_info)
            durable.Journal(self.folder / ANSWERS_FILE).append(answer.to_dict(), ensure_ascii=False)
        except OSError as exc:
            raise ReviewError(f"cannot record an answer in {self.folder}: {exc}") from None

    def _create(self) -> None:
        # Made with the first answer, not at start: a review refused before asking anything leaves nothing.
        self.folder.mkdir(parents=True, exist_ok=True)
        durable.write_json(self.folder / HEADER_FILE, self.header)

    def discard(self) -> None:
        """Called once the finished folder is in place: its answers now live there."""
        shutil.rmtree(self.folder, ignore_errors=True)


def open_journal(out_dir: Path, header: dict, started_at: str) -> Journal:
    """Reopen the partial folder of `out_dir` if its header matches `header`, else prepare a new one.

    A header that differs raises ReviewResumeMismatch and leaves the recorded answers alone.
    """
    folder = partial_dir(out_dir)
    path = folder / HEADER_FILE
    if path.exists():
        try:
            stored = durable.read_json(path)
        except (OSError, durable.UntrustedJSON) as exc:
            raise ReviewError(f"cannot read {path}: {exc}") from None
        changed = sorted(k for k in header if stored.get(k) != header[k])
        if changed:
            shown = ", ".join(f"{k} {stored.get(k)!r} -> {header[k]!r}" for k in changed)
            raise ReviewResumeMismatch(
                f"{folder} holds answers of an unfinished review with other settings ({shown}); "
                f"rerun with the same settings to continue it, or choose another --out"
            )
        return Journal(folder, stored)
    return Journal(folder, {**header, "started_at": started_at})
