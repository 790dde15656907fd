"""Splitting a raw generation into reasoning and answer, in every supported format.

The fixtures are written here from the formats' published descriptions: a
`<think>` block, a bracketed `[THINK]` block, and harmony's channels.
"""

from __future__ import annotations

import pytest

from bakeoff.answers import extract_files, parse_expected_f1
from bakeoff.models.reasoning import (
    ReasoningFormat,
    detect_output_format,
    prompt_opens_reasoning,
    split_detected,
    split_output,
)

THINK, BRACKET, HARMONY, NONE = (ReasoningFormat.THINK, ReasoningFormat.THINK_BRACKET, ReasoningFormat.HARMONY,
                                 ReasoningFormat.NONE)

DRAFT = "Maybe a first version:\n# file: utils.py\n```python\nDRAFT = True\n```\nEXPECTED_F1: 0.99\n"
FINAL = "# file: train.py\n```python\nprint('final')\n```\nEXPECTED_F1: 0.81\n"


def tagged(opening, closing, reasoning, answer):
    return f"{opening}\n{reasoning}{closing}\n\n{answer}"


@pytest.mark.parametrize("fmt,opening,closing", [(THINK, "<think>", "</think>"), (BRACKET, "[THINK]", "[/THINK]")])
def test_closed_reasoning_with_a_draft_file_is_kept_out_of_the_answer(fmt, opening, closing):
    split = split_output(tagged(opening, closing, DRAFT, FINAL), fmt)
    assert split.answer == FINAL and not split.unfinished
    assert "DRAFT = True" in split.reasoning and "EXPECTED_F1: 0.99" in split.reasoning
    # What is read from the answer alone: no utils.py, the final claim only.
    assert extract_files(split.answer) == {"train.py": "print('final')\n"}
    assert parse_expected_f1(split.answer) == pytest.approx(0.81)


@pytest.mark.parametrize("fmt,opening", [(THINK, "<think>"), (BRACKET, "[THINK]")])
def test_unclosed_reasoning_is_all_reasoning_and_unfinished(fmt, opening):
    split = split_output(f"{opening}\nstill weighing the options, {DRAFT}", fmt)
    assert split.answer == "" and split.unfinished
    assert split.reasoning.startswith("still weighing")
    assert extract_files(split.answer) == {}


@pytest.mark.parametrize("fmt,opening,closing", [(THINK, "<think>", "</think>"), (BRACKET, "[THINK]", "[/THINK]")])
def test_empty_reasoning_leaves_the_answer(fmt, opening, closing):
    split = split_output(f"{opening}\n\n{closing}\n\nThe answer is 4.", fmt)
    assert split == type(split)("", "The answer is 4.", False)


def test_template_opened_reasoning_only_shows_the_closing_tag():
    raw = f"The model starts thinking here.\n{DRAFT}</think>\n{FINAL}"
    split = split_output(raw, THINK, opened_in_prompt=True)
    assert split.answer == FINAL and "DRAFT = True" in split.reasoning
    unfinished = split_output("Thinking and thinking, never done", THINK, opened_in_prompt=True)
    assert unfinished.unfinished and unfinished.answer == "" and unfinished.reasoning.startswith("Thinking")
    # The opening tag may still be written by the model: it is not kept as reasoning text.
    assert split_output("<think>x</think>y", THINK, opened_in_prompt=True).reasoning == "x"


def test_an_answer_that_mentions_the_tags_stays_whole():
    answer = "Reasoning models wrap their thoughts in <think> ... </think>; this answer does not."
    assert split_output(answer, THINK) == type(split_output(answer, THINK))("", answer, False)
    # After a real reasoning block, the first closing tag ends it; later mentions belong to the answer.
    raw = "<think>plan it</think>Write `<think>` and `</think>` around thoughts."
    split = split_output(raw, THINK)
    assert split.reasoning == "plan it" and split.answer == "Write `<think>` and `</think>` around thoughts."


def harmony(*messages, end="<|end|>"):
    parts = [f"<|channel|>{channel}<|message|>{content}" for channel, content in messages]
    return (end + "<|start|>assistant").join(parts)


def test_harmony_analysis_is_reasoning_final_is_the_answer():
    raw = harmony(("analysis", DRAFT), ("final", FINAL)) + "<|return|>"
    split = split_output(raw, HARMONY)
    assert split.answer == FINAL.strip() and "DRAFT = True" in split.reasoning
    assert "<|channel|>" not in split.answer and "<|message|>" not in split.answer
    assert extract_files(split.answer) == {"train.py": "print('final')\n"}


def test_harmony_cut_inside_analysis_is_unfinished():
    split = split_output("<|channel|>analysis<|message|>I should start by reading", HARMONY)
    assert split.unfinished and split.answer == "" and split.reasoning == "I should start by reading"
    header_only = split_output("<|channel|>analysis<|message|>done<|end|><|start|>assistant<|channel|>fin", HARMONY)
    assert header_only.answer == "" and header_only.reasoning == "done"


def test_harmony_empty_analysis_and_commentary():
    split = split_output(harmony(("analysis", ""), ("commentary", "a tool thought"), ("final", "Done.")), HARMONY)
    assert split.reasoning == "a tool thought" and split.answer == "Done." and not split.unfinished
    # Markers dropped by the renderer: nothing can be told apart, the text is the answer.
    assert split_output("just text", HARMONY).answer == "just text"


def test_no_format_is_the_whole_text():
    raw = tagged("<think>", "</think>", DRAFT, FINAL)
    assert split_output(raw, NONE).answer == raw


@pytest.mark.parametrize(
    "raw,expected",
    [
        (harmony(("analysis", "a"), ("final", "b")), (HARMONY, False)),
        ("  <think>a</think>b", (THINK, False)),
        ("a</think>b", (THINK, True)),
        ("[THINK]a[/THINK]b", (BRACKET, False)),
        ("a[/THINK]b", (BRACKET, True)),
        ("Tags like <think>x</think> are markup.", (NONE, False)),
        ("plain answer", (NONE, False)),
    ],
)
def test_format_detected_from_the_output_markers(raw, expected):
    assert detect_output_format(raw) == expected


def test_split_detected_on_markup_left_in_content():
    assert split_detected("<think>hmm</think>42").answer == "42"
    assert split_detected("hmm</think>42").reasoning == "hmm"
    assert split_detected("Tags like <think>x</think> are markup.").reasoning == ""


def test_prompt_opens_reasoning_looks_at_the_last_tag():
    assert prompt_opens_reasoning("<|user|>hi<|assistant|><think>\n", THINK)
    assert not prompt_opens_reasoning("<|assistant|><think>\n\n</think>\n\n", THINK)
    assert not prompt_opens_reasoning("<|assistant|>", BRACKET)
    assert not prompt_opens_reasoning("<think>", HARMONY)


# --- what the split trusts (hostile input, round 2, rows 13 and 14) -------------------------------------------

CODE_WITH_MARKERS = ("Here is the parser.\n# file: parse.py\n```python\nCLOSE = '</think>'\nEND = '<|end|>'\n"
                     "HEAD = '<|channel|>final<|message|>'\nprint(CLOSE, END)\n```\nEXPECTED_F1: 0.7\n")


def test_markers_in_a_plain_answers_code_are_code():
    """Row 13: the `</think>` in the code was taken as the end of template-opened reasoning."""
    assert detect_output_format(CODE_WITH_MARKERS) == (NONE, False)
    split = split_detected(CODE_WITH_MARKERS)
    assert split.reasoning == "" and split.answer == CODE_WITH_MARKERS and not split.unfinished
    assert "CLOSE = '</think>'" in extract_files(split.answer)["parse.py"]
    # Outside code, a closing tag with nothing opened before it still means the template opened the reasoning.
    assert split_detected("weighing it</think>\n" + CODE_WITH_MARKERS).answer == CODE_WITH_MARKERS


def test_a_harmony_final_whose_code_prints_an_end_marker_keeps_its_code():
    """Row 14: the final message was cut at the `<|end|>` inside its code."""
    raw = harmony(("analysis", "plan it"), ("final", CODE_WITH_MARKERS)) + "<|return|>"
    split = split_output(raw, HARMONY)
    assert split.answer == CODE_WITH_MARKERS.strip() and split.reasoning == "plan it"
    assert extract_files(split.answer)["parse.py"].count("<|end|>") == 1


def test_an_unclosed_fence_in_the_analysis_hides_no_real_marker():
    raw = harmony(("analysis", "draft:\n```python\nx = 1\n"), ("final", "# file: a.py\n```python\nprint(1)\n```\n"))
    split = split_output(raw + "<|return|>", HARMONY)
    assert split.answer.startswith("# file: a.py") and "draft" in split.reasoning
    assert extract_files(split.answer) == {"a.py": "print(1)\n"}


def test_only_a_prompt_that_ends_inside_an_opened_block_opens_reasoning():
    assert prompt_opens_reasoning("<|user|>what is <think> for?<|assistant|>", THINK) is False  # a quoted tag
    assert prompt_opens_reasoning("<|user|>hi<|assistant|><think>\n", THINK)
    assert prompt_opens_reasoning("<|user|>hi<|assistant|>[THINK]", BRACKET)
