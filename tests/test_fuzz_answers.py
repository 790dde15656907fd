"""The answer parser, the reasoning split and requirement lines, fuzzed (hostile input round 2).

A model's answer and a submission's requirements.txt are untrusted text. Property of each reader: any text gives
a valid result (files with plain relative names, a claim in [0, 1], a capture verdict, a split whose parts come
from the text, a verdict for every requirement line), never an exception.
"""

from __future__ import annotations

from fuzz_support import FUZZ, Reach, hostile_names
from hypothesis import given
from hypothesis import strategies as st

from bakeoff.answers import audit, extract_blocks, extract_files, is_file_name, parse_expected_f1
from bakeoff.fences import closed_block_spans, find_unfenced
from bakeoff.models.base import Completion
from bakeoff.models.reasoning import (
    ReasoningFormat,
    detect_output_format,
    prompt_opens_reasoning,
    split_detected,
    split_output,
)
from sandbox.requirements_lines import FATES, MAX_LINE_CHARS, PENDING, parse_requirements, pinned_version

# Pieces a model's answer is made of, markers and fences among them, so that the fuzzer meets them often.
ANSWER_PIECES = ["\n", " ", "```", "```python", "~~~", "````", "# file: train.py", "# x.py", "### train.py",
                 "**File: predict.py**", "`a.py`:", "EXPECTED_F1: 0.8", "EXPECTED_F1 = 81%", "<think>", "</think>",
                 "[THINK]", "[/THINK]", "<|channel|>analysis<|message|>", "<|channel|>final<|message|>", "<|end|>",
                 "<|start|>assistant", "<|return|>", "print('x')", "../etc/passwd", "/abs.py", "\r\n", "\u2028", "\x00",
                 "\udc80", "OK", "PROBLEM", "é"]
answers = st.lists(st.sampled_from(ANSWER_PIECES) | st.text(max_size=8), max_size=40).map("".join)
formats = st.sampled_from(list(ReasoningFormat))


plain_file_names = st.from_regex(r"([a-z_][a-z0-9_]{0,6}/)?[a-z_][a-z0-9_]{0,8}\.(py|txt|toml|md)", fullmatch=True)
# Where an answer says a block's name: a label line above the fence, the block's first line, the fence's info.
NAME_FORMS = {"heading": "### {}\n```python\n", "bold": "**File: {}**\n```\n", "backticked": "Save this as `{}`:\n```python\n",
              "colon": "{}:\n```\n", "comment": "```python\n# file: {}\n", "info": "```python {}\n",
              "title": '```python title="{}"\n'}
LABEL_FORMS = ("heading", "bold", "backticked", "colon")
BODY_LINES = ["import os", "x = 1", "print('x')", "def f():", "    return 2", "# a comment", "", "EXPECTED_F1: 0.8"]
# The name is what a hostile answer aims at: it is changed three times as often as any other part.
ANSWER_CHANGES = ("none", "crlf", "claim", "name", "name", "name", "fence", "body", "unclosed", "detached")
ESCAPING_NAMES = ["../x.py", "../../etc/cron.py", "/etc/passwd.txt", "/abs.py", "a/../b.py", "./../x.py"]


@st.composite
def answers_with_a_file(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """(an answer, its change, the file name it was written with, the file's content).

    Valid: a line of prose, the file's name in one of NAME_FORMS, a fence, a body of code, the closing fence.
    Then one change: CRLF line ends, a claim line after it; or a hostile name (three times as often, since the
    name is what an attack aims at), a hostile fence or body line, the block left open, the label line
    separated from the fence by prose.
    """
    form = draw(st.sampled_from(sorted(NAME_FORMS)))
    name = draw(plain_file_names)
    body = "".join(line + "\n" for line in draw(st.lists(st.sampled_from(BODY_LINES), min_size=1, max_size=5)))
    body = body if body.strip() else "x = 1\n" + body
    change = draw(st.sampled_from(ANSWER_CHANGES))
    opening, closing, prose = NAME_FORMS[form], "```\n", "Here it is.\n"
    if change == "name":
        name = draw(st.sampled_from(ESCAPING_NAMES) | hostile_names)
    elif change == "fence":
        closing = draw(st.sampled_from(["``\n", "~~~\n", "```python\n", "  ```\n", " ```` x\n", "\x00```\n"]))
    elif change == "body":
        body += draw(st.sampled_from(ANSWER_PIECES) | st.text(max_size=8)) + "\n"
    elif change == "unclosed":
        closing = ""
    elif change == "detached" and form in LABEL_FORMS:
        opening = opening.replace("\n", "\nSome words between.\n\n\n", 1)
    text = prose + opening.format(name) + body + closing
    if change == "claim":
        text += "EXPECTED_F1: 0.75\n"
    if change == "crlf":
        text = text.replace("\n", "\r\n")
    return text, f"{change} ({form})", name, body


@FUZZ
@given(case=answers_with_a_file())
def _fuzz_answer_files(reach: Reach, case) -> None:
    text, change, name, body = case
    files = extract_files(text)
    reach.saw(bool(files), change)
    for found, content in files.items():
        assert is_file_name(found) and not found.startswith("/") and ".." not in found.split("/")
        assert content.strip()
    if not is_file_name(name):
        assert name not in files  # a name that is not a plain relative file name never names a file
    if change.split()[0] in ("none", "crlf", "claim"):  # changes that leave the file as it was
        assert files == {name: body}
    for block in extract_blocks(text):
        assert block.start_line >= 1
    claim = parse_expected_f1(text)
    assert claim is None or 0.0 <= claim <= 1.0
    completion = Completion(text=text, finish_reason="stop", prompt_tokens=1, completion_tokens=1, prompt_seconds=0.0,
                            generation_seconds=0.0, backend="fuzz")
    for expect in ("code", "verdict", "text"):
        assert audit(completion, expect=expect).status in ("captured", "uncaptured", "unusable")


def test_any_answer_parses_to_plain_files_and_a_claim_in_range():
    reach = Reach("answer -> files")
    _fuzz_answer_files(reach)
    reach.check()


@FUZZ
@given(answers, formats, st.booleans())
def test_any_output_splits_into_parts_of_itself(text, fmt, opened):
    split = split_output(text, fmt, opened)
    assert isinstance(split.reasoning, str) and isinstance(split.answer, str)
    assert len(split.answer) + len(split.reasoning) <= len(text)
    if fmt is not ReasoningFormat.HARMONY:  # harmony joins its final messages: the answer is their concatenation
        assert split.answer.strip() in text and split.reasoning.strip() in text
    if fmt is ReasoningFormat.NONE:
        assert split.answer == text and split.reasoning == ""
    detected = split_detected(text)
    assert len(detected.answer) <= len(text)
    assert detect_output_format(text)[0] in tuple(ReasoningFormat)
    assert isinstance(prompt_opens_reasoning(text, fmt), bool)


@FUZZ
@given(st.lists(st.sampled_from(["</think>", "<|end|>", "<|channel|>final<|message|>", "print(1)", "\n", "x = '",
                                 "'", "```"]), max_size=12).map("".join))
def test_a_plain_answer_keeps_whatever_markers_its_code_holds(code):
    """A fenced file whose code holds any markers: the whole answer stays the answer, the file whole."""
    body = "print(0)\n" + code.replace("```", "`` `")  # the code must not close its own block
    text = f"Here it is.\n# file: train.py\n```python\n{body}\n```\n"
    split = split_detected(text)
    assert split.answer == text and split.reasoning == "" and not split.unfinished
    assert extract_files(split.answer)["train.py"] == body + "\n"


@FUZZ
@given(answers, st.sampled_from(["</think>", "<|end|>", "```", "x"]))
def test_find_unfenced_never_returns_a_position_inside_a_closed_block(text, needle):
    spans = closed_block_spans(text)
    index = find_unfenced(text, needle, 0, spans)
    assert index == -1 or (text.startswith(needle, index) and not any(a <= index < b for a, b in spans))
    if index == -1:
        assert all(any(a <= i < b for a, b in spans) for i in range(len(text)) if text.startswith(needle, i))


REQUIREMENT_PIECES = ["numpy", "scikit-learn", "pandas==2.1.0", ">=1.0", "<2", ",", "[extra]", "; python_version<'4'",
                      " --hash=sha256:abc", "-r other.txt", "--index-url http://x", "-e .", "git+https://x/y.git",
                      "./local", "a.whl", "@ file:///x", "# comment", "sklearn", "json", "\n", " ", "\t", "(", ")", "~=",
                      "===", "*", "x" * 5000, "\x00", "é"]


@FUZZ
@given(st.lists(st.sampled_from(REQUIREMENT_PIECES) | st.text(max_size=6), max_size=30).map("".join))
def test_any_requirements_file_gets_a_verdict_for_every_line_and_no_option_reaches_pip(text):
    for line in parse_requirements(text):
        assert line.fate in (*FATES, PENDING)
        if line.fate == PENDING:  # what is handed to `pip download`, one argument per line
            assert not line.text.startswith("-") and " --" not in line.text and "://" not in line.text
            assert "\n" not in line.text and len(line.text) <= MAX_LINE_CHARS and line.name
            pinned_version(line)
        assert line.to_dict()["fate"] == line.fate
