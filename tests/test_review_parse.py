"""Reading reviewers' answers: the verdict, the blamed line, the confidence, the reason."""

from __future__ import annotations

import pytest

from bakeoff.review.items import load_items
from bakeoff.review.parse import parse_answer
from bakeoff.review.prompt import load_template, numbered_code


def test_the_requested_format_is_read_field_by_field():
    answer = parse_answer("VERDICT: PROBLEM\nLINE: 10\nCONFIDENCE: 85\nREASON: The selector sees every fold.")
    assert (answer.verdict, answer.line, answer.confidence) == ("PROBLEM", 10, 85.0)
    assert answer.reason == "The selector sees every fold."


@pytest.mark.parametrize(
    "text, verdict",
    [
        ("**Verdict:** ok\n**Line:** none", "OK"),
        ("### Verdict - Problem\nthe scaler leaks", "PROBLEM"),
        ("PROBLEM\nThe split is by visit, not patient.", "PROBLEM"),
        ("**OK**\nLooks fine.", "OK"),
        ("VERDICT: OK or PROBLEM\nLINE: none", None),  # the template echoed back
        ("OK, let me look at this code.", None),  # conversational "OK" is not a verdict
        ("Okay. The code is fine.", None),
        ("I think there might be a leak somewhere.", None),
        ("", None),
    ],
)
def test_verdicts_are_read_loosely_around_the_label_and_strictly_in_value(text, verdict):
    assert parse_answer(text).verdict == verdict


@pytest.mark.parametrize(
    "text, line",
    [
        ("LINE: 12", 12),
        ("**Line**: line 7", 7),
        ("LINE: L3", 3),
        ("LINE: none", None),
        ("LINE: n/a\nthough line 4 is odd", None),  # an explicit none wins over prose
        ("VERDICT: PROBLEM\nThe fit on line 9 uses all rows.", 9),  # no LINE field: a mention counts
    ],
)
def test_blamed_line(text, line):
    assert parse_answer(text).line == line


@pytest.mark.parametrize(
    "text, confidence",
    [
        ("CONFIDENCE: 85", 85.0),
        ("Confidence: 70%", 70.0),
        ("confidence = 0.9", 90.0),
        ("CONFIDENCE: 1", 1.0),  # an integer is read on the 0-100 scale
        ("CONFIDENCE: 250", None),
        ("CONFIDENCE: high", None),
        ("nothing here", None),
    ],
)
def test_confidence_on_a_0_to_100_scale(text, confidence):
    assert parse_answer(text).confidence == confidence


def test_the_prompt_numbers_code_lines_as_flaw_lines_count_them():
    item = next(item for item in load_items() if item.flaw_lines)
    messages = load_template().messages(item)
    assert [m.role for m in messages] == ["system", "user"]
    user = messages[1].content
    assert item.claim in user
    flaw = item.flaw_lines[0]
    width = len(str(len(item.code_lines)))
    assert f"{flaw:>{width}} | {item.code_lines[flaw - 1]}".rstrip() in user
    assert "VERDICT:" in user and "CONFIDENCE:" in user
    assert "$" not in user.replace(item.code, "").replace(numbered_code(item.code), "").replace(item.claim, "")
