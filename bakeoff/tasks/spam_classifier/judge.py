"""An optional second opinion on the design's stance, from a model acting as judge.

Reported apart, beside the rules' answer, and never in its place: the rules are the
measurement; the judge is a cross-check whose agreement rate says how far to trust them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bakeoff.records.codec import decode
from bakeoff.records.enums import CaptureStatus
from bakeoff.tasks.spam_classifier import design as rules

JUDGE_KEY = "judge#1"
# longest first, so "excluded_without_reason" is not read as "excluded_with_reason"
_CHOICES = sorted(rules.STANCES, key=len, reverse=True)
_CHOICE = re.compile("|".join(re.escape(c) for c in _CHOICES))

PROMPT = """You review a data-science design document for a spam classifier that scores each message the moment
it arrives, before any person has looked at it. The training data has a column `moderator_flagged`, which
moderators set after a message arrives.

What does the document below decide about `moderator_flagged`? Answer with exactly one of these words:
- excluded_with_reason: it drops the column and says why
- excluded_without_reason: it drops the column without a reason
- asserted_available: it claims the column is available when a message is scored
- kept: it uses the column as a feature
- mentioned_only: it names the column but decides nothing about it
- not_mentioned: it never names the column

Document:
<<<
{design}
>>>

Answer:"""


@dataclass(frozen=True)
class JudgeOpinion:
    stance: str | None  # one of design.STANCES, or None when the answer names none
    capture: CaptureStatus  # as the capture audit says
    reason: str
    backend: str
    answer: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JudgeOpinion:
        """Back from `to_dict` (analysis.json's design_judge) by the records' library."""
        return decode(cls, data)


def parse_stance(text: str) -> str | None:
    match = _CHOICE.search(text.lower())
    return match.group(0) if match else None


def judge_stance(backend, design_text: str | None, max_chars: int = 6000) -> JudgeOpinion:
    """Ask `backend` (a ModelBackend) for the stance of `design_text`; the judge's own failures are recorded."""
    from bakeoff.answers import audit
    from bakeoff.models.base import GenerationSettings, Message

    text = design_text or ""
    if not text.strip():
        return JudgeOpinion(rules.NOT_MENTIONED, CaptureStatus.CAPTURED, "no design document", backend.identity, "")
    prompt = PROMPT.format(design=text[:max_chars])
    completion = backend.chat([Message("user", prompt)], key=JUDGE_KEY, settings=GenerationSettings(max_tokens=24))
    capture = audit(completion, expect="text")
    captured = capture.status == CaptureStatus.CAPTURED
    stance = parse_stance(completion.text) if captured else None
    status = CaptureStatus(capture.status) if stance is not None or not captured else CaptureStatus.UNUSABLE
    reason = capture.reason if stance is not None or not captured else "no_stance"
    return JudgeOpinion(stance, status, reason, backend.identity, completion.text[:200])
