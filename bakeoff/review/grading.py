"""Grading one answer: the capture audit, the parsed fields, right or wrong, localized or not."""

from __future__ import annotations

import msgspec

from bakeoff.answers import audit
from bakeoff.models.base import Completion
from bakeoff.records.enums import CaptureStatus
from bakeoff.review.items import PROBLEM, ReviewItem
from bakeoff.review.parse import ParsedAnswer, has_verdict, parse_answer

LOCALIZATION_TOLERANCE = 1  # a blamed line within one line of a flaw line counts as found


class ItemAnswer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One sample of one item: what came back and how it was graded (on disk: bakeoff.review.records)."""

    item_id: str
    sample: int  # 0-based
    key: str  # the conversation key the backend was asked with
    capture: str  # "captured", "uncaptured" or "unusable" (bakeoff.answers.audit)
    capture_reason: str
    verdict: str | None  # as parsed, even from an unusable answer (which is graded as no verdict)
    blamed_line: int | None
    confidence: float | None  # 0..100, in the model's own verdict
    reason: str
    correct: bool | None  # None for uncaptured answers: they are never graded
    localized: bool | None  # set only for usable PROBLEM answers to PROBLEM items
    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    prompt_seconds: float
    generation_seconds: float
    error: str | None = None
    error_kind: str | None = None  # with key, text and finish_reason: answers.jsonl replays as scripted:FILE
    # The model's reasoning, kept beside the answer and never graded (older answers.jsonl lack it).
    reasoning: str = ""
    reasoning_tokens: int = 0

    @property
    def graded(self) -> bool:
        return self.capture != CaptureStatus.UNCAPTURED

    @property
    def usable(self) -> bool:
        return self.capture == CaptureStatus.CAPTURED

    @property
    def graded_verdict(self) -> str | None:
        """The verdict that counts: an unusable answer has none."""
        return self.verdict if self.usable else None

    def p_problem(self) -> float | None:
        """The model's probability that the code has a problem, read from its confidence."""
        if not self.usable or self.verdict is None or self.confidence is None:
            return None
        share = self.confidence / 100.0
        return share if self.verdict == PROBLEM else 1.0 - share

    def to_dict(self) -> dict:
        return msgspec.structs.asdict(self)


def is_localized(item: ReviewItem, line: int | None) -> bool:
    if line is None:
        return False
    return any(abs(line - flaw) <= LOCALIZATION_TOLERANCE for flaw in item.flaw_lines)


def grade(item: ReviewItem, sample: int, key: str, completion: Completion) -> ItemAnswer:
    capture = audit(completion, expect="verdict", has_verdict=has_verdict)
    parsed = parse_answer(completion.text) if capture.status != CaptureStatus.UNCAPTURED else ParsedAnswer(None, None, None, "")
    usable = capture.status == CaptureStatus.CAPTURED
    verdict = parsed.verdict if usable else None
    return ItemAnswer(
        item_id=item.id,
        sample=sample,
        key=key,
        capture=capture.status,
        capture_reason=capture.reason,
        verdict=parsed.verdict,
        blamed_line=parsed.line,
        confidence=parsed.confidence,
        reason=parsed.reason,
        correct=None if capture.status == CaptureStatus.UNCAPTURED else verdict == item.verdict,
        localized=is_localized(item, parsed.line) if usable and item.is_problem and verdict == PROBLEM else None,
        text=completion.text,
        finish_reason=completion.finish_reason,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        prompt_seconds=completion.prompt_seconds,
        generation_seconds=completion.generation_seconds,
        error=completion.error,
        error_kind=completion.error_kind,
        reasoning=completion.reasoning,
        reasoning_tokens=completion.reasoning_tokens,
    )
