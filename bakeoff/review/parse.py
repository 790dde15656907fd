"""Reading a reviewer's answer: verdict, blamed line, confidence, reason.

The prompt asks for four labelled lines (VERDICT, LINE, CONFIDENCE, REASON).
Models decorate them (bold, headings, "Verdict - Problem", "85%"), so the
labels are matched loosely; the values strictly: a verdict is the word OK or
PROBLEM, a confidence a number from 0 to 100 (or a fraction from 0 to 1).
An answer whose first line is just OK or PROBLEM also counts as a verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DECORATION = r"[\s*_#>`\[\]()-]*"  # markdown around labels and values
_SEP = r"\s*[:=\-–]"


def _labelled(label: str, value: str) -> re.Pattern[str]:
    return re.compile(rf"^{_DECORATION}{label}{_DECORATION}{_SEP}{_DECORATION}{value}", re.IGNORECASE | re.MULTILINE)


# "VERDICT: OK or PROBLEM" is the template echoed back, not a verdict.
_VERDICT = _labelled("verdict", r"(?P<value>OK|PROBLEM)\b(?!\s*(?:or|/|\|)\s*(?:OK|PROBLEM)\b)")
# A first line that is nothing but the verdict ("PROBLEM", "**OK**."); "OK, let me see" is not one.
_LEADING_VERDICT = re.compile(rf"\A\s*{_DECORATION}(?P<value>OK|PROBLEM)[\s*_.!]*$", re.IGNORECASE | re.MULTILINE)
_LINE = _labelled("(?:blamed\\s+)?line", r"(?:line\s*|L)?(?P<value>\d+|none|n/?a|-)\b")
_LINE_MENTION = re.compile(r"\bline\s+(?P<value>\d+)\b", re.IGNORECASE)
_CONFIDENCE = _labelled("confidence", r"(?P<value>\d+(?:\.\d+)?)\s*(?P<percent>%?)")
_REASON = _labelled("(?:reason|explanation)", r"(?P<value>.*)")


@dataclass(frozen=True)
class ParsedAnswer:
    verdict: str | None  # "OK", "PROBLEM", or None when the answer gives none
    line: int | None  # the line the model blames
    confidence: float | None  # 0..100, the model's confidence in its own verdict
    reason: str


def parse_verdict(text: str) -> str | None:
    labelled = _VERDICT.search(text)
    if labelled:
        return labelled.group("value").upper()
    leading = _LEADING_VERDICT.search(text)
    return leading.group("value").upper() if leading else None


def has_verdict(text: str) -> bool:
    """The review task's verdict test, handed to the capture audit."""
    return parse_verdict(text) is not None


def parse_line(text: str) -> int | None:
    labelled = _LINE.search(text)
    if labelled:
        value = labelled.group("value")
        return int(value) if value.isdigit() else None
    # No LINE field: a "line 12" in the prose is still the model pointing at a line.
    mention = _LINE_MENTION.search(text)
    return int(mention.group("value")) if mention else None


def parse_confidence(text: str) -> float | None:
    match = _CONFIDENCE.search(text)
    if not match:
        return None
    value = float(match.group("value"))
    if not match.group("percent") and "." in match.group("value") and value <= 1.0:
        value *= 100  # "0.85" is a fraction
    return value if 0.0 <= value <= 100.0 else None


def parse_reason(text: str) -> str:
    match = _REASON.search(text)
    if match:
        return text[match.start("value"):].strip()
    return text.strip()


def parse_answer(text: str) -> ParsedAnswer:
    return ParsedAnswer(
        verdict=parse_verdict(text),
        line=parse_line(text),
        confidence=parse_confidence(text),
        reason=parse_reason(text),
    )
