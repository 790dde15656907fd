"""Reading requirements.txt: every line gets a fate, decided before anything is downloaded."""

from __future__ import annotations

import pytest

from sandbox.requirements_lines import (
    IGNORED,
    INVALID_LINE,
    PENDING,
    PROVIDED_BY_IMAGE,
    UNAVAILABLE,
    normalize_name,
    parse_requirements,
    pinned_version,
)


def only(text: str):
    lines = parse_requirements(text)
    assert len(lines) == 1
    return lines[0]


def test_blank_lines_and_comments_are_not_requirements():
    assert parse_requirements("\n# a comment\n   \n") == ()
    line = only("tabulate>=0.9  # for tables\n")
    assert (line.text, line.name, line.fate) == ("tabulate>=0.9", "tabulate", PENDING)


@pytest.mark.parametrize(
    "text, name",
    [
        ("numpy", "numpy"),
        ("Scikit_Learn>=1.3,<2", "scikit-learn"),
        ("pandas == 2.1.0", "pandas"),
        ("tabulate[widechars]~=0.9", "tabulate"),
        ('xgboost; python_version >= "3.8"', "xgboost"),
    ],
)
def test_valid_requirements_wait_for_resolution(text, name):
    line = only(text)
    assert (line.name, line.fate) == (name, PENDING)


@pytest.mark.parametrize("text", ["scikit-learn 1.2", "pandas=1.5", "numpy>=", "!!!"])
def test_lines_pip_cannot_read_are_invalid(text):
    assert only(text).fate == INVALID_LINE


@pytest.mark.parametrize("text", ["git+https://github.com/x/y.git", "./vendor/pkg", "pkg @ https://x.org/p.whl"])
def test_url_and_path_requirements_are_unavailable(text):
    assert only(text).fate == UNAVAILABLE


@pytest.mark.parametrize("text", ["-r base.txt", "--index-url https://example.org/simple", "-e ."])
def test_pip_options_are_ignored_with_a_reason(text):
    line = only(text)
    assert line.fate == IGNORED
    assert "option" in line.reason


@pytest.mark.parametrize("text", ["os", "json", "typing", "dataclasses", "pickle"])
def test_standard_library_names_are_ignored_not_installed(text):
    line = only(text)
    assert line.fate == IGNORED
    assert "standard-library" in line.reason


def test_sklearn_alias_means_the_images_scikit_learn():
    line = only("sklearn")
    assert (line.name, line.fate) == ("scikit-learn", PROVIDED_BY_IMAGE)


def test_line_numbers_follow_the_file():
    lines = parse_requirements("# head\nnumpy\n\nos\n")
    assert [line.line_number for line in lines] == [2, 4]


def test_pinned_version_and_name_normalization():
    assert pinned_version(only("pandas==1.5.3")) == "1.5.3"
    assert pinned_version(only("pandas>=1.5")) is None
    assert normalize_name("Python.Dateutil") == normalize_name("python_dateutil") == "python-dateutil"
