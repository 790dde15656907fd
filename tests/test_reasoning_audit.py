"""The capture audit with reasoning: runaway thinking, thinking with no answer, and who cut the answer."""

from __future__ import annotations

from bakeoff.answers import audit
from bakeoff.models.base import Completion

FILE = "# file: train.py\n```python\nprint(1)\n```\n"


def completion(text="", reasoning="", finish_reason="stop", completion_tokens=10, token_budget=None):
    return Completion(text=text, reasoning=reasoning, finish_reason=finish_reason, prompt_tokens=5,
                      completion_tokens=completion_tokens, prompt_seconds=0.0, generation_seconds=0.0, backend="t",
                      reasoning_tokens=len(reasoning.split()), token_budget=token_budget)


def outcome(capture):
    return capture.status, capture.reason, capture.budget_cut


def test_out_of_tokens_while_reasoning_is_runaway_not_cut_off_nor_empty():
    thinking = "let me think " * 20
    assert outcome(audit(completion(reasoning=thinking, finish_reason="length", completion_tokens=60, token_budget=60),
                         expect="code")) == ("unusable", "runaway_reasoning", True)
    # The context filled up before the harness's budget did: still runaway, not the harness's cut.
    assert outcome(audit(completion(reasoning=thinking, finish_reason="length", completion_tokens=50, token_budget=60),
                         expect="code")) == ("unusable", "runaway_reasoning", False)
    assert "reasoning tokens" in audit(completion(reasoning=thinking, finish_reason="length")).detail


def test_reasoning_then_stopping_without_an_answer_is_unusable_not_uncaptured():
    assert outcome(audit(completion(reasoning="hmm", text="  "), expect="code")) == ("unusable", "no_answer", None)
    assert outcome(audit(completion(text=""), expect="code")) == ("uncaptured", "empty", None)


def test_an_answer_cut_off_records_whose_budget_cut_it():
    cut = completion(text="# file: train.py\n```python\nprint(", finish_reason="length", completion_tokens=30)
    assert outcome(audit(cut, expect="code", token_budget=30)) == ("unusable", "cut_off", True)
    assert outcome(audit(cut, expect="code", token_budget=100)) == ("unusable", "cut_off", False)
    assert outcome(audit(cut, expect="code")) == ("unusable", "cut_off", None)  # budget unknown


def test_files_in_the_reasoning_do_not_count_as_code():
    assert outcome(audit(completion(text="Done, see above.", reasoning=FILE), expect="code")) == (
        "unusable", "no_code", None)
    assert outcome(audit(completion(text=FILE, reasoning="plan"), expect="code")) == ("captured", "ok", None)
    assert outcome(audit(completion(text="no verdict here", reasoning="VERDICT: OK"), expect="verdict"))[1] == "no_verdict"
