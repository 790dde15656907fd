"""The answer parser, the reasoning split and requirement lines, fuzzed (hostile input round 2).

A model's answer and a submission's requirements.txt are untrusted text. Property of each reader: any text gives
a valid result (files with plain relative names, a claim in [0, 1], a capture verdict, a split whose parts come
from the text, a verdict for every requirement line), never an exception. Each search starts from valid input (an
answer with a name line, fence and body; an output as its format writes it; a requirements file pip takes) with one
part changed, and asserts its reach (fuzz_support.Reach).
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


# A raw output as each format writes it: the reasoning, then the answer; `{o}` is the opening tag, which a template
# that opens the reasoning itself leaves out of the output.
WRITTEN = {ReasoningFormat.NONE: "{a}", ReasoningFormat.THINK: "{o}{r}</think>\n\n{a}",
           ReasoningFormat.THINK_BRACKET: "{o}{r}[/THINK]\n\n{a}",
           ReasoningFormat.HARMONY: "<|channel|>analysis<|message|>{r}<|end|><|start|>assistant<|channel|>final"
                                    "<|message|>{a}<|return|>"}
OPENING = {ReasoningFormat.THINK: "<think>", ReasoningFormat.THINK_BRACKET: "[THINK]"}
REASONINGS = ["Spam is rare, so F1.", "Read the data first.\nThen fit a model.", "Hmm."]
PLAIN_ANSWERS = ["Metric: F1.", "# file: train.py\n```python\nprint('</think>')\n```\n", "OK"]
SPLIT_CHANGES = ("none", "none", "space", "reasoning", "answer", "marker", "cut")
MARKERS = ["<think>", "</think>", "[THINK]", "[/THINK]", "<|channel|>", "<|message|>", "<|end|>", "<|start|>", "<|return|>"]
hostile_pieces = st.sampled_from(ANSWER_PIECES) | st.text(max_size=8)


def _insert(draw: st.DrawFn, text: str, piece: str) -> str:
    at = draw(st.integers(0, len(text)))
    return text[:at] + piece + text[at:]


@st.composite
def written_outputs(draw: st.DrawFn) -> tuple[str, ReasoningFormat, bool, str, str, str]:
    """(a raw output, its format, whether the prompt opened its reasoning, the reasoning and answer it was written
    with, its change). Valid: a reasoning and an answer in WRITTEN's layout; then one change: blanks before it; a
    hostile piece in the reasoning or the answer; one marker dropped; the output cut short."""
    fmt = draw(formats)
    opened = fmt in OPENING and draw(st.booleans())
    reasoning, answer = draw(st.sampled_from(REASONINGS)), draw(st.sampled_from(PLAIN_ANSWERS))
    change = draw(st.sampled_from(SPLIT_CHANGES))
    if change == "reasoning":
        reasoning = _insert(draw, reasoning, draw(hostile_pieces))
    elif change == "answer":
        answer = _insert(draw, answer, draw(hostile_pieces))
    text = WRITTEN[fmt].format(o="" if opened else OPENING.get(fmt, ""), r=reasoning, a=answer)
    if change == "space":
        text = draw(st.sampled_from(["\n", "  ", "\n\n \t"])) + text
    elif change == "marker":
        present = [marker for marker in MARKERS if marker in text] or [""]
        marker = draw(st.sampled_from(present))
        text = text.replace(marker, "", 1) if marker else text
    elif change == "cut":
        text = text[:draw(st.integers(0, len(text)))]
    return text, fmt, opened, reasoning, answer, change


@FUZZ
@given(case=written_outputs())
def _fuzz_split(reach: Reach, case) -> None:
    text, fmt, opened, reasoning, answer, change = case
    split = split_output(text, fmt, opened)
    assert isinstance(split.reasoning, str) and isinstance(split.answer, str)
    assert len(split.answer) + len(split.reasoning) <= len(text)
    if fmt is not ReasoningFormat.HARMONY:  # harmony joins its final messages: the answer is their concatenation
        assert split.answer.strip() in text and split.reasoning.strip() in text
    if fmt is ReasoningFormat.NONE:
        assert split.answer == text and split.reasoning == ""
        parts = ("", answer.strip())
    else:
        parts = (reasoning.strip(), answer.strip())
    reach.saw((split.reasoning, split.answer.strip()) == parts and not split.unfinished, change)
    if change in ("none", "space"):  # the output as its format writes it: split into what it was written with
        assert (split.reasoning, split.answer.strip()) == parts and not split.unfinished
    detected = split_detected(text)
    assert len(detected.answer) <= len(text)
    assert detect_output_format(text)[0] in tuple(ReasoningFormat)
    assert isinstance(prompt_opens_reasoning(text, fmt), bool)


def test_any_output_splits_into_parts_of_itself():
    reach = Reach("reasoning split")
    _fuzz_split(reach)
    reach.check()


CODE_MARKERS = ["</think>", "<|end|>", "<|channel|>final<|message|>", "print(1)", "\n", "x = '", "'", "```"]


@FUZZ
@given(st.lists(st.sampled_from(CODE_MARKERS), max_size=12).map("".join), st.sampled_from(["none", "none", "fence"]),
       st.data())
def _fuzz_plain_answer(reach: Reach, code: str, change: str, data: st.DataObject) -> None:
    body = "print(0)\n" + code.replace("```", "`` `")  # the code must not close its own block
    if change == "fence":  # ... but here it does: a fence line somewhere in the code
        body = data.draw(st.integers(0, len(body)).map(lambda at: body[:at] + "\n```\n" + body[at:]))
    text = f"Here it is.\n# file: train.py\n```python\n{body}\n```\n"
    split = split_detected(text)
    assert split.answer.strip() in text and split.reasoning.strip() in text
    whole = split.answer == text and split.reasoning == "" and not split.unfinished
    kept = whole and extract_files(split.answer).get("train.py") == body + "\n"
    reach.saw(kept, change)
    if change == "none":
        assert kept


def test_a_plain_answer_keeps_whatever_markers_its_code_holds():
    """A fenced file whose code holds any markers: the whole answer stays the answer, the file whole."""
    reach = Reach("plain answer with markers")
    _fuzz_plain_answer(reach)
    reach.check()


NEEDLES = ["</think>", "<|end|>", "```", "x"]
UNFENCED_CHANGES = ("none", "none", "piece", "piece", "unclosed", "fence", "unfenced", "crlf")


@st.composite
def texts_with_a_needle(draw: st.DrawFn) -> tuple[str, str, int, str]:
    """(a text, the needle, where its first unfenced occurrence was written, the change). Valid: a closed block
    holding the needle, then a line of prose holding it; then one change: a hostile piece anywhere, the block left
    open, its closing fence changed, the prose's needle gone, CRLF line ends."""
    needle = draw(st.sampled_from(NEEDLES))
    change = draw(st.sampled_from(UNFENCED_CHANGES))
    closing = "```\n"
    if change == "unclosed":
        closing = ""
    elif change == "fence":
        closing = draw(st.sampled_from(["``\n", "~~~\n", "    ```\n", "``` x\n", "````\n"]))
    block = f"```python\ns = '{needle}'\n{closing}"
    prose = "Then: " + ("" if change == "unfenced" else needle) + " done.\n"
    text = "Some words.\n" + block + prose
    expected = text.find(needle, len("Some words.\n") + len(block)) if change != "unfenced" else -1
    if change == "piece":
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(hostile_pieces) + text[at:]
        expected = -2  # unknown: the piece may open a block, or hold the needle
    elif change == "crlf":
        text = text.replace("\n", "\r\n")
        expected = text.rfind(needle)
    return text, needle, expected, change


@FUZZ
@given(case=texts_with_a_needle())
def _fuzz_find_unfenced(reach: Reach, case) -> None:
    text, needle, expected, change = case
    spans = closed_block_spans(text)
    index = find_unfenced(text, needle, 0, spans)
    assert index == -1 or (text.startswith(needle, index) and not any(a <= index < b for a, b in spans))
    if index == -1:
        assert all(any(a <= i < b for a, b in spans) for i in range(len(text)) if text.startswith(needle, i))
    found_written = index != -1 and index == (expected if expected != -2 else text.rfind(needle))
    reach.saw(found_written, change)
    if change in ("none", "crlf"):
        assert index == expected


def test_find_unfenced_never_returns_a_position_inside_a_closed_block():
    reach = Reach("find unfenced")
    _fuzz_find_unfenced(reach)
    reach.check()


REQUIREMENT_PIECES = ["numpy", "scikit-learn", "pandas==2.1.0", ">=1.0", "<2", ",", "[extra]", "; python_version<'4'",
                      " --hash=sha256:abc", "-r other.txt", "--index-url http://x", "-e .", "git+https://x/y.git",
                      "./local", "a.whl", "@ file:///x", "# comment", "sklearn", "json", "\n", " ", "\t", "(", ")", "~=",
                      "===", "*", "x" * 5000, "\x00", "é"]
# Lines pip takes, each a requirement bakeoff resolves (name as normalized), and lines that hold none.
VALID_REQUIREMENTS = {"numpy==1.26.4": "numpy", "scikit-learn>=1.3,<2": "scikit-learn", "lightgbm~=4.0": "lightgbm",
                      "pandas[performance]==2.1.0": "pandas", "scipy (>=1.10)": "scipy", "XGBoost": "xgboost",
                      "requests ; python_version > '3.8'": "requests", "torch==2.1.0 --hash=sha256:abc": "torch"}
NOT_REQUIREMENTS = ["", "# pinned for the run", "   "]
REQUIREMENT_CHANGES = ("none", "none", "crlf", "comment", "line", "piece", "option", "reference")


@st.composite
def requirements_files(draw: st.DrawFn) -> tuple[str, list[str], str]:
    """(a requirements.txt, the names its lines were written with, its change). Valid: one to six requirement lines
    pip takes, blanks and comments between; then one change: CRLF, a comment after a line; or one line replaced by
    hostile pieces, a hostile piece inside a line, a line made a pip option or a URL or path reference."""
    lines = draw(st.lists(st.sampled_from(sorted(VALID_REQUIREMENTS)), min_size=1, max_size=6))
    names = [VALID_REQUIREMENTS[line] for line in lines]
    change = draw(st.sampled_from(REQUIREMENT_CHANGES))
    which = draw(st.integers(0, len(lines) - 1))
    if change == "comment":
        lines[which] += "  # why"
    elif change == "line":
        lines[which] = draw(st.lists(st.sampled_from(REQUIREMENT_PIECES) | st.text(max_size=6), max_size=8).map("".join))
    elif change == "piece":
        lines[which] = _insert(draw, lines[which], draw(st.sampled_from(REQUIREMENT_PIECES) | st.text(max_size=6)))
    elif change == "option":
        lines[which] = draw(st.sampled_from(["-r ", "--index-url ", "-e ", "--extra-index-url=http://x "])) + lines[which]
    elif change == "reference":
        lines[which] = draw(st.sampled_from(["{} @ https://x/y.whl", "git+https://x/{}.git", "./{}", "{}.whl",
                                             "/abs/{}"])).format(names[which])
    others = draw(st.lists(st.sampled_from(NOT_REQUIREMENTS), min_size=len(lines), max_size=len(lines)))
    text = "".join(f"{other}\n{line}\n" for other, line in zip(others, lines, strict=True))
    return text.replace("\n", "\r\n") if change == "crlf" else text, names, change


@FUZZ
@given(case=requirements_files())
def _fuzz_requirements(reach: Reach, case) -> None:
    text, names, change = case
    parsed = parse_requirements(text)
    for line in parsed:
        assert line.fate in (*FATES, PENDING)
        if line.fate == PENDING:  # what is handed to `pip download`, one argument per line
            assert not line.text.startswith("-") and " --" not in line.text and "://" not in line.text
            assert "\n" not in line.text and len(line.text) <= MAX_LINE_CHARS and line.name
            pinned_version(line)
        assert line.to_dict()["fate"] == line.fate
    resolved = [line.name for line in parsed if line.fate == PENDING] == names and len(parsed) == len(names)
    reach.saw(resolved, change)
    if change in ("none", "crlf", "comment"):  # every line as pip takes it: each one a requirement to resolve
        assert resolved


def test_any_requirements_file_gets_a_verdict_for_every_line_and_no_option_reaches_pip():
    reach = Reach("requirements")
    _fuzz_requirements(reach)
    reach.check()
