"""Code extraction and the claimed-F1 parser."""

from __future__ import annotations

import pytest

from bakeoff.answers import WorkMeter, extract_blocks, extract_files, is_file_name, parse_expected_f1


def test_name_in_fence_info_with_and_without_language():
    text = "```python train.py\nimport pandas\n```\n\n```predict.py\nprint(1)\n```\n"
    assert extract_files(text) == {"train.py": "import pandas\n", "predict.py": "print(1)\n"}


def test_name_as_title_attribute():
    text = '```python title="src/model.py"\nx = 1\n```'
    assert extract_files(text) == {"src/model.py": "x = 1\n"}


def test_file_comment_first_line_is_removed():
    text = "Here it is.\n```python\n# file: train.py\nimport os\n```\n"
    assert extract_files(text) == {"train.py": "import os\n"}


def test_bare_file_name_comment_names_the_block_and_stays():
    text = "```python\n# predict.py\nimport sys\n```\n```python\n# TODO.fix later\n```\n```python\n# just a comment\nx=1\n```"
    files = extract_files(text)
    assert files["predict.py"] == "# predict.py\nimport sys\n"
    assert len(files) == 1


def test_heading_and_bold_label_before_fence():
    text = (
        "### train.py\n```python\na = 1\n```\n"
        "**File: predict.py**\n\n```\nb = 2\n```\n"
        "1. `requirements.txt`:\n```text\npandas\nscikit-learn\n```\n"
    )
    files = extract_files(text)
    assert files == {"train.py": "a = 1\n", "predict.py": "b = 2\n", "requirements.txt": "pandas\nscikit-learn\n"}


def test_a_label_keeps_the_underscores_of_the_name_it_gives():
    """Emphasis marks around a name go, the name's own underscores stay (found by the answer fuzz, issue 35)."""
    for label, name in (("### __init__.py", "__init__.py"), ("**File: _private.py**", "_private.py"),
                        ("`__main__.py`:", "__main__.py"), ("_train.py_", "train.py"), ("**_a.py_**", "a.py")):
        assert extract_files(f"{label}\n```python\nx = 1\n```\n") == {name: "x = 1\n"}, label


def test_prose_with_one_backticked_name_ending_in_colon():
    text = "Now save this as `train.py`:\n```python\nfit()\n```"
    assert extract_files(text) == {"train.py": "fit()\n"}


def test_unnamed_block_is_not_a_file_but_is_a_block():
    text = "Some code:\n```python\nprint('hi')\n```\n"
    assert extract_files(text) == {}
    [block] = extract_blocks(text)
    assert block.language == "python" and block.name is None and block.content == "print('hi')\n"


def test_prose_mentioning_two_files_names_neither():
    text = "This uses `train.py` and `predict.py`:\n```python\nx = 1\n```"
    assert extract_files(text) == {}


def test_unclosed_block_is_not_a_file():
    text = "```python train.py\nimport os\nfor i in range("
    assert extract_files(text) == {}
    [block] = extract_blocks(text)
    assert block.closed is False and block.name == "train.py"


def test_tilde_fence_and_longer_fence_containing_backticks():
    text = "~~~python notes.py\na = 1\n~~~\n````markdown README.md\n```python\nx\n```\n````\n"
    files = extract_files(text)
    assert files["notes.py"] == "a = 1\n"
    assert files["README.md"] == "```python\nx\n```\n"


def test_later_block_with_same_name_wins():
    text = "```python train.py\nv1\n```\n```python train.py\nv2\n```"
    assert extract_files(text) == {"train.py": "v2\n"}


def test_empty_named_block_is_not_a_file():
    assert extract_files("```python train.py\n\n```") == {}


def test_strict_file_names():
    assert is_file_name("train.py") and is_file_name("src/a_b-c.py") and is_file_name("Dockerfile")
    for bad in ("/etc/passwd.txt", "../x.py", "a/../b.py", "my file.py", "python", "train", ""):
        assert not is_file_name(bad), bad


LABEL_LINES = ["### {}", "**File: {}**", "File: {}", "1. `{}`:", "Now save this as `{}`:", "{}:", "- {}", "## `{}`"]
ESCAPING_NAMES = ["../x.py", "../../etc/cron.py", "/etc/passwd.txt", "/abs.py", "a/../b.py", "./../x.py", "..", "/"]


@pytest.mark.parametrize("label", LABEL_LINES)
def test_a_label_line_names_the_block_after_it(label):
    """The other half of the next test: each label shape is read, so a refusal below is the name's, not the shape's."""
    text = "Here it is.\n" + label.format("src/train.py") + "\n```python\nfit()\n```\n"
    assert extract_files(text) == {"src/train.py": "fit()\n"}


@pytest.mark.parametrize("name", ESCAPING_NAMES)
@pytest.mark.parametrize("label", LABEL_LINES)
def test_a_label_line_never_names_a_file_outside_the_workspace(label, name):
    """The parser's own guard, tested alone: the runner refuses such a write again, but each layer must hold."""
    text = "Here it is.\n" + label.format(name) + "\n```python\nfit()\n```\n"
    [block] = extract_blocks(text)
    assert block.name is None and extract_files(text) == {}


def test_expected_f1_plain_and_decorated():
    assert parse_expected_f1("blah\nEXPECTED_F1: 0.812\n") == 0.812
    assert parse_expected_f1("- **EXPECTED_F1:** 0.75") == 0.75
    assert parse_expected_f1("EXPECTED_F1 = .9") == 0.9
    assert parse_expected_f1("EXPECTED_F1: 81.2%") == 0.812


def test_expected_f1_last_valid_line_wins_and_out_of_range_is_ignored():
    assert parse_expected_f1("EXPECTED_F1: 0.5\nepoch 2\nEXPECTED_F1: 0.7\nEXPECTED_F1: 7.0") == 0.7


def test_expected_f1_absent():
    assert parse_expected_f1("F1 was 0.8 on validation") is None
    assert parse_expected_f1("") is None
    assert parse_expected_f1("the EXPECTED_F1: 0.8 mid-sentence") is None


# --- pinned by mutation testing (bench/mutation.py) ------------------------------------------------------------


@pytest.mark.parametrize("label, name", [
    ("**Xa.py**", "Xa.py"),  # marks go, never a letter of the name
    ("_Xa.py_", "Xa.py"),  # underscores as emphasis, the name's own letters kept
    ("**notes.TeX:**", "notes.TeX"),  # only the colon goes from the end
    ("**Save this as `x.py`:**", "x.py"),  # a backticked name on a line that ends in a colon inside emphasis
    ("`File: x.py`", "x.py"),  # a label inside backticks
])
def test_a_label_line_loses_its_marks_and_nothing_of_the_name(label, name):
    assert extract_files(label + "\n```\nfit()\n```\n") == {name: "fit()\n"}


def test_a_backticked_name_counts_only_when_the_line_ends_with_the_colon():
    assert extract_files("Put this in `x.py`: X\n```\nfit()\n```\n") == {}


def test_a_block_at_the_first_line_has_no_label_line_above_it():
    # Nothing lies above line 1: the last line of the answer is not read as the label of the first block.
    assert extract_files("```\nprint(1)\n```\n### other.py") == {}


def test_a_first_line_too_long_to_be_a_name_stays_in_the_block():
    long_line = "# " + "x" * 600
    [block] = extract_blocks(f"```python train.py\n{long_line}\nfit()\n```\n")
    assert block.content == f"{long_line}\nfit()\n"
    [block] = extract_blocks(f"### train.py\n```python\n{long_line}\nfit()\n```\n")
    assert (block.name, block.content) == ("train.py", f"{long_line}\nfit()\n")


@pytest.mark.parametrize("info, language", [
    ("python a " + "x" * 600, "python"),  # too long to hold a name: the first word may still be the language
    ("p" * 255 + " " + "x" * 600, "p" * 255),  # the longest language word kept
    ("p" * 256 + " " + "x" * 600, ""),
    ("train.py " + "x" * 600, ""),  # a file name is never the language
    ('title="a.py"', ""),  # nor an attribute
])
def test_the_language_word_of_a_fence(info, language):
    [block] = extract_blocks(f"```{info}\nfit()\n```\n")
    assert block.language == language
    assert block.name == ("a.py" if info.startswith("title") else None)


def test_a_file_name_is_at_most_255_characters_and_braces_around_it_in_the_info_go():
    assert is_file_name("a" * 252 + ".py") and not is_file_name("a" * 253 + ".py")
    assert extract_files("```python {train.py}\nfit()\n```\n") == {"train.py": "fit()\n"}


def test_the_work_meter_adds_up_every_character_it_is_shown():
    meter = WorkMeter()
    assert meter.chars == 0 and meter.add("abc") == "abc" and meter.add("de") == "de"
    assert meter.chars == 5


def test_a_line_that_mentions_the_mark_without_a_value_does_not_end_the_search():
    assert parse_expected_f1("I report EXPECTED_F1 below.\nEXPECTED_F1: 0.8\n") == 0.8


def test_a_claim_of_zero_is_a_claim():
    assert parse_expected_f1("EXPECTED_F1: 0.5\nEXPECTED_F1: 0\n") == 0.0


def test_a_claim_of_one_is_a_claim_and_above_one_is_not():
    assert parse_expected_f1("EXPECTED_F1: 0.5\nEXPECTED_F1: 1\n") == 1.0
    assert parse_expected_f1("EXPECTED_F1: 0.5\nEXPECTED_F1: 1.5\n") == 0.5


def test_a_name_in_the_info_string_keeps_all_its_letters():
    assert extract_files("```python Xa.py\nfit()\n```\n") == {"Xa.py": "fit()\n"}
