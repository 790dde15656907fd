"""The review benchmark's records on disk, typed and versioned (docs/review.md).

    OUT/answers.jsonl   one AnswerRecord per answer (an ItemAnswer and the item fields a reader needs)
    OUT/review.json     the ReviewSummary, written last: a folder with it is a finished review
    OUT/resume.json     the ResumeHeader: what must not change between the starts of one review

Each is a msgspec Struct read through one decoder (`decode`): the JSON is parsed by durable's reader within
the batch folder's caps (size, nesting, digits, no NaN), then converted to the record's class, which names a
field that is missing, unknown or of the wrong type. Old records read as the current ones: an answer line of
the first format has no `schema` tag, and a summary written before costs were recorded has no `cost`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import msgspec

import durable
from bakeoff.batchfolder.files import RECORD_LIMITS, read_json_object
from bakeoff.records.errors import DamagedRecord
from bakeoff.review.errors import ReviewError
from bakeoff.review.grading import ItemAnswer

RESULT_KIND = "claim_review"
SUMMARY_SCHEMA = 1  # `cost` was added within it: a summary written before has none
ANSWER_SCHEMA = "bakeoff.review.answer/1"
T = TypeVar("T")


class ReviewRecordDamaged(ReviewError):
    """A review record (a review.json, an answers.jsonl line, resume.json) cannot be read as its class."""


class AnswerRecord(ItemAnswer, frozen=True, forbid_unknown_fields=True):
    """One line of answers.jsonl: the answer, and the item's truth beside it."""

    expected: str = ""
    family: str | None = None
    pair_id: str | None = None
    flaw_lines: tuple[int, ...] = ()
    schema: str = ANSWER_SCHEMA


class FamilyNumbers(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    answers: int | None = None
    recall: float | None = None
    localization: float | None = None
    specificity: float | None = None
    youden_j: float | None = None


class ReviewNumbers(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """bakeoff.review.metrics.ReviewMetrics as written; a figure with nothing to compute is null (None)."""

    items: int | None = None
    answers: int | None = None
    captured: int | None = None
    uncaptured: int | None = None
    unusable: int | None = None
    accuracy: float | None = None
    problem_recall: float | None = None
    ok_specificity: float | None = None
    youden_j: float | None = None
    pair_accuracy: float | None = None
    pairs_scored: int | None = None
    localization: float | None = None
    brier: float | None = None
    brier_answers: int | None = None
    agreement: float | None = None
    per_family: dict[str, FamilyNumbers] = {}
    uncaptured_reasons: dict[str, int] = {}
    unusable_reasons: dict[str, int] = {}


class BaselineSummary(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The cues reader's figures on the same items (bakeoff.review.cues.baseline_summary)."""

    model: str
    label: str
    metrics: ReviewNumbers


class SettingsRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    samples: int = 1
    max_tokens: int = 200
    temperature: float = 0.0
    seed: int = 0
    timeout_s: float = 300.0


class ReviewCost(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a review cost: the take-homes' cost words (tokens in and out, model and wall time), summed."""

    answers: int
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    model_seconds: float  # prompt processing and generation, summed over answers
    wall_seconds: float | None  # started_at to finished_at (a resumed review: its first start to its end)

    @property
    def tokens_per_s(self) -> float | None:
        return self.completion_tokens / self.model_seconds if self.model_seconds > 0 else None


class ReviewSummary(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """review.json."""

    model: str
    kind: str = RESULT_KIND
    schema: int = SUMMARY_SCHEMA
    bakeoff_version: str | None = None
    model_info: dict[str, Any] = {}
    items_file: str | None = None
    items_sha256: str | None = None
    settings: SettingsRecord = SettingsRecord()
    started_at: str | None = None
    finished_at: str | None = None
    metrics: ReviewNumbers = ReviewNumbers()
    baseline_cues: BaselineSummary | None = None
    cost: ReviewCost | None = None

    @property
    def identity(self) -> str:
        """Who answered: the model file's sha256 where the backend reported it, else its spec."""
        sha = self.model_info.get("sha256") if isinstance(self.model_info, Mapping) else None
        return str(sha) if sha else self.model


class ResumeHeader(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """resume.json: a restart with anything else here is another review (ReviewResumeMismatch)."""

    model: str
    items_sha256: str
    samples: int
    temperature: float
    max_tokens: int
    seed: int
    started_at: str | None = None

    def differences(self, other: ResumeHeader) -> list[str]:
        names = [name for name in self.__struct_fields__ if name != "started_at"]
        return [f"{name} {getattr(self, name)!r} -> {getattr(other, name)!r}" for name in names
                if getattr(self, name) != getattr(other, name)]


def convert(data: Any, cls: type[T], where: str) -> T:
    """A parsed JSON value as the record `cls`; ReviewRecordDamaged naming `where` and the field otherwise."""
    try:
        return msgspec.convert(data, cls)
    except msgspec.ValidationError as exc:
        raise ReviewRecordDamaged(f"{where} is not a {cls.__name__} record: {exc}") from None


def decode(text: str, cls: type[T], where: str) -> T:
    """JSON text as the record `cls`: the one decoder of the review's records."""
    try:
        data = durable.loads(text, limits=RECORD_LIMITS, what=where)
    except durable.UntrustedJSON as exc:
        raise ReviewRecordDamaged(f"{where} cannot be read: {exc}") from None
    return convert(data, cls, where)


def read_record(path: Path, cls: type[T]) -> T:
    """A record file as `cls`, read by the batch folder's capped reader (no link followed, no file past the cap)."""
    try:
        data = read_json_object(path)
    except DamagedRecord as exc:
        raise ReviewRecordDamaged(str(exc)) from None
    except OSError as exc:
        raise ReviewRecordDamaged(f"cannot read {path}: {exc.strerror or exc}") from None
    return convert(data, cls, str(path))


def read_summary(path: Path) -> ReviewSummary:
    """A review.json, refused by name when it is not a claim review's (another kind, a damaged file)."""
    summary = read_record(path, ReviewSummary)
    if summary.kind != RESULT_KIND:
        raise ReviewRecordDamaged(f"{path} is not a claim-review result (kind {summary.kind!r})")
    return summary


def summary_from(data: Mapping[str, Any], where: str) -> ReviewSummary | None:
    """A review.json already parsed (a batch folder's reader hands these over); None when it is another kind."""
    if data.get("kind") != RESULT_KIND:
        return None
    return convert(data, ReviewSummary, where)


def read_answer_lines(path: Path) -> tuple[tuple[AnswerRecord, ...], tuple[str, ...]]:
    """The answers of answers.jsonl in order, and what could not be read (a missing file, a line not an answer)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeError) as exc:
        return (), (f"{path.name}: {getattr(exc, 'strerror', None) or exc}",)
    answers: list[AnswerRecord] = []
    unreadable: list[str] = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            try:
                answers.append(decode(line, AnswerRecord, f"{path.name} line {number}"))
            except ReviewRecordDamaged as exc:
                unreadable.append(str(exc))
    return tuple(answers), tuple(unreadable)


def encode(record: msgspec.Struct, indent: int | None = None) -> str:
    """A record as JSON text (durable's writer: never NaN); one line unless `indent`."""
    return durable.dumps(msgspec.to_builtins(record), ensure_ascii=False, indent=indent)


def review_cost(answers: Sequence[ItemAnswer], started_at: str | None, finished_at: str | None) -> ReviewCost:
    return ReviewCost(
        answers=len(answers),
        prompt_tokens=sum(a.prompt_tokens for a in answers),
        completion_tokens=sum(a.completion_tokens for a in answers),
        reasoning_tokens=sum(a.reasoning_tokens for a in answers),
        model_seconds=sum(a.prompt_seconds + a.generation_seconds for a in answers),
        wall_seconds=seconds_between(started_at, finished_at),
    )


def seconds_between(start: str | None, end: str | None) -> float | None:
    """Seconds from one ISO 8601 time to another; None when either is missing or not a time."""
    try:
        return (dt.datetime.fromisoformat(end) - dt.datetime.fromisoformat(start)).total_seconds() if start and end else None
    except (TypeError, ValueError):
        return None
