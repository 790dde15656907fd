"""The interval grader's every figure and refusal, exactly: each value below was worked out by hand (in the
comments), never by the code under test; the figures are chosen so that each side of each rule shows (a truth on
either bound, a miss below and above, a negative and a zero truth, each cap at its edge).

Written against the surviving mutants of `bench/mutation.py scorer-intervals` (docs/mutation.md).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from scorer import interval_reading as r
from scorer.intervals import (
    ExperimentScore,
    IntervalScore,
    TruthFileError,
    format_text,
    main,
    read_truth,
    score_experiments,
    score_groups,
    score_results,
)

# Level 0.5: the penalty 2 / (1 - 0.5) is exactly 4.
TRUTH = "experiment,effect\ne1,2.0\ne2,-4.0\ne3,8.0\ne4,0.0\ne5,3.0\ne6,1.0\n"
RESULTS = {
    "e1": {"effect": 2.5, "ci_low": 1, "ci_high": 3},  # covers; width 2, W 2; error 0.5; relative W 1, error 0.25
    "e2": {"effect": -3.5, "ci_low": -3, "ci_high": -2},  # truth 1 below: W 1 + 4 * 1 = 5; error 0.5; rel 1.25, 0.125
    "e3": {"effect": 6.0, "ci_low": 5, "ci_high": 6},  # truth 2 above: W 1 + 4 * 2 = 9; error 2; rel 1.125, 0.25
    "e4": {"effect": 0.25, "ci_low": 0, "ci_high": 0.5},  # truth 0 on the low bound: W 0.5; error 0.25; no relative
    "e5": {"effect": 3.0, "ci_low": 3.0, "ci_high": 3.0},  # a zero-width interval on the truth: W 0, error 0, rel 0, 0
    # e6: no file
}
# Over the 5 graded: coverage 3/5; mae (0.5+0.5+2+0.25+0)/5 = 0.65; width (2+1+1+0.5+0)/5 = 0.9;
# W (2+5+9+0.5+0)/5 = 3.3; relative W over the 4 nonzero truths (1+1.25+1.125+0)/4 = 0.84375; error 0.625/4 = 0.15625.


def _write(tmp_path: Path, results: dict[str, object] = RESULTS, truth: str = TRUTH) -> tuple[Path, Path]:
    folder = tmp_path / "res"
    folder.mkdir()
    for name, value in results.items():
        (folder / f"{name}.json").write_text(json.dumps(value), encoding="utf-8")
    (tmp_path / "truth.csv").write_text(truth, encoding="utf-8")
    return folder, tmp_path / "truth.csv"


def _truth(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "truth.csv"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def _result(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "e1.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# --- the figures -------------------------------------------------------------------------------------------


def test_each_figure_of_a_grade_at_level_one_half_matches_the_hand_computation(tmp_path):
    score = score_results(*_write(tmp_path), level=0.5, relative=True)
    assert [e.covered for e in score.experiments] == [True, False, False, True, True, False]
    assert [e.winkler(0.5) for e in score.experiments] == [2.0, 5.0, 9.0, 0.5, 0.0, None]
    assert [e.relative_winkler(0.5) for e in score.experiments] == [1.0, 1.25, 1.125, None, 0.0, None]
    assert [e.relative_error for e in score.experiments] == [0.25, 0.125, 0.25, None, 0.0, None]
    assert score.coverage == pytest.approx(0.6) and score.mean_abs_error == pytest.approx(0.65)
    assert score.mean_width == pytest.approx(0.9) and score.winkler == pytest.approx(3.3)
    assert score.relative_winkler == 0.84375 and score.mean_rel_error == 0.15625
    assert (score.level, score.relative, score.point, score.graded, score.failed) == (0.5, True, "effect", 5, 1)
    assert score.errors == {r.MISSING_FILE: 1}
    missing = score.experiments[5]
    assert (missing.experiment, missing.truth, missing.result, missing.error) == ("e6", 1.0, None, r.MISSING_FILE)
    assert missing.message == f"{tmp_path / 'res' / 'e6.json'} does not exist"


def test_the_penalty_is_two_over_alpha_for_a_miss_on_either_side():
    below = ExperimentScore("e", 0.0, r.IntervalResult(2.0, 1.0, 3.0))  # width 2, 1 below the interval
    above = ExperimentScore("e", 5.0, r.IntervalResult(2.0, 1.0, 3.0))  # width 2, 2 above it
    assert below.winkler(0.5) == 2 + 4 * 1 and above.winkler(0.5) == 2 + 4 * 2
    assert below.winkler(0.75) == 2 + 8 * 1 and above.winkler(0.75) == 2 + 8 * 2  # 2 / 0.25 = 8
    assert below.winkler(0.95) == pytest.approx(2 + 40 * 1) and not below.covered and not above.covered


def test_the_relative_figures_divide_by_the_size_of_a_negative_truth():
    score = ExperimentScore("e", -4.0, r.IntervalResult(-5.0, -6.0, -2.0))  # covers; width 4; error 1
    assert score.relative_winkler(0.5) == 1.0 and score.relative_error == 0.25
    assert ExperimentScore("e", -4.0, None).relative_winkler(0.5) is None
    assert ExperimentScore("e", -4.0, None).relative_error is None


def test_an_experiment_writes_its_point_bounds_and_figures_under_the_tasks_names():
    graded = ExperimentScore("c1", 2.0, r.IntervalResult(2.5, 1.0, 3.0))
    assert graded.to_dict(0.5) == {"experiment": "c1", "truth": 2.0, "error": None, "message": None, "effect": 2.5,
                                   "ci_low": 1.0, "ci_high": 3.0, "covered": True, "winkler": 2.0}
    assert graded.to_dict(0.5, "estimate", relative=True) == {
        "experiment": "c1", "truth": 2.0, "error": None, "message": None, "estimate": 2.5, "ci_low": 1.0,
        "ci_high": 3.0, "covered": True, "winkler": 2.0, "relative_winkler": 1.0, "relative_error": 0.25}
    failed = ExperimentScore("c2", 2.0, None, r.MISSING_FILE, "c2.json does not exist")
    assert failed.to_dict(0.5, "estimate", relative=True) == {
        "experiment": "c2", "truth": 2.0, "error": "missing_file", "message": "c2.json does not exist",
        "estimate": None, "ci_low": None, "ci_high": None, "covered": False, "winkler": None,
        "relative_winkler": None, "relative_error": None}


def test_the_whole_grade_writes_its_counts_figures_and_rows(tmp_path):
    data = score_results(*_write(tmp_path), level=0.5).to_dict()
    assert list(data) == ["level", "n", "graded", "failed", "errors", "coverage", "mean_abs_error", "mean_width",
                          "winkler", "experiments"]
    assert (data["level"], data["n"], data["graded"], data["failed"]) == (0.5, 6, 5, 1)
    assert data["errors"] == {"missing_file": 1} and data["coverage"] == pytest.approx(0.6)
    assert data["mean_abs_error"] == pytest.approx(0.65) and data["mean_width"] == pytest.approx(0.9)
    assert data["winkler"] == pytest.approx(3.3)
    assert [row["winkler"] for row in data["experiments"]] == [2.0, 5.0, 9.0, 0.5, 0.0, None]
    assert "relative_winkler" not in data["experiments"][0]
    relative = score_results(tmp_path / "res", tmp_path / "truth.csv", level=0.5, relative=True).to_dict()
    assert list(relative)[-3:] == ["relative_winkler", "mean_rel_error", "experiments"]
    assert (relative["relative_winkler"], relative["mean_rel_error"]) == (0.84375, 0.15625)
    assert [row["relative_error"] for row in relative["experiments"]] == [0.25, 0.125, 0.25, None, 0.0, None]


def test_errors_are_counted_per_name(tmp_path):
    folder, truth = _write(tmp_path, {"e1": [1, 2, 3], "e2": "not json"})
    (folder / "e3.json").write_text("{", encoding="utf-8")
    score = score_results(folder, truth)
    # e1 an array; e2 a JSON string; e3 broken; e4, e5, e6 absent
    assert score.errors == {r.NOT_AN_OBJECT: 2, r.MALFORMED_JSON: 1, r.MISSING_FILE: 3}
    assert score.graded == 0 and score.failed == 6
    assert (score.coverage, score.mean_abs_error, score.mean_width, score.winkler) == (None, None, None, None)


def test_the_defaults_are_the_ab_tests_level_key_and_absolute_figures(tmp_path):
    folder, truth = _write(tmp_path)
    score = score_results(folder, truth)
    assert (score.level, score.relative, score.point) == (0.95, False, "effect")
    assert score.winkler == pytest.approx((2 + 41 + 81 + 0.5 + 0) / 5)  # 2 / 0.05 = 40: e2 1 + 40, e3 1 + 80
    assert score.relative_winkler is None and score.mean_rel_error is None
    rows = list(score.experiments)
    again = score_experiments(rows)
    assert (again.level, again.relative, again.point, again.winkler) == (0.95, False, "effect", score.winkler)
    assert (again.relative_winkler, again.mean_rel_error) == (None, None)
    bare = IntervalScore(0.9, (), None, None, None, None)
    assert (bare.relative, bare.relative_winkler, bare.mean_rel_error, bare.point) == (False, None, None, "effect")
    assert "relative_winkler" not in bare.to_dict() and bare.to_dict()["n"] == 0


def test_groups_keep_the_level_key_and_relative_flag_and_leave_out_the_ungrouped(tmp_path):
    results = {name: {"estimate" if key == "effect" else key: value for key, value in result.items()}
               for name, result in RESULTS.items()}
    folder, truth = _write(tmp_path, results)
    score = score_results(folder, truth, level=0.5, keys=("estimate", "ci_low", "ci_high"), relative=True)
    groups = score_groups(score, {"e3": "far", "e2": "far", "e1": "near", "e6": "gone"})
    assert list(groups) == ["near", "far", "gone"]  # in the order the experiments come, not the mapping's
    far = groups["far"]
    assert [e.experiment for e in far.experiments] == ["e2", "e3"]
    assert (far.level, far.relative, far.point) == (0.5, True, "estimate")
    assert far.winkler == (5 + 9) / 2 and far.relative_winkler == (1.25 + 1.125) / 2 and far.coverage == 0.0
    assert "estimate" in far.to_dict()["experiments"][0]
    assert groups["near"].coverage == 1.0 and groups["gone"].coverage is None and groups["gone"].failed == 1
    assert score_groups(score, {}) == {}


@pytest.mark.parametrize("level", [0.0, 1.0, -0.5, 1.5])
def test_a_level_outside_zero_to_one_is_refused_by_name(tmp_path, level):
    with pytest.raises(TruthFileError) as caught:
        score_results(*_write(tmp_path), level=level)
    assert str(caught.value) == f"level must be in (0, 1), got {level}"


def test_a_level_just_inside_the_bounds_is_graded(tmp_path):
    folder, truth = _write(tmp_path)
    # e2 misses by 1 and e3 by 2: W = 1 + (2 / (1 - level)) * miss, whatever the level.
    for level in (1e-9, 1 - 1e-9):
        penalty = 2 / (1 - level)
        assert score_results(folder, truth, level=level).experiments[2].winkler(level) == pytest.approx(1 + 2 * penalty)


# --- the text line ---------------------------------------------------------------------------------------------


def test_the_text_line_names_each_figure_with_its_digits(tmp_path):
    folder, truth = _write(tmp_path)
    assert format_text(score_results(folder, truth, level=0.5, relative=True)) == (
        "relative winkler 0.8438  mean relative error 0.1562  winkler 3.300000  coverage 0.600  mae 0.650000  "
        "mean width 0.900000  graded 5 of 6  errors {'missing_file': 1}")
    (folder / "e6.json").write_text(json.dumps({"effect": 1.0, "ci_low": 1.0, "ci_high": 1.0}), encoding="utf-8")
    # e6 on its truth with width 0: the sums are unchanged over 6: W 16.5 / 6 = 2.75, mae 3.25 / 6, width 4.5 / 6
    assert format_text(score_results(folder, truth, level=0.5)) == (
        "winkler 2.750000  coverage 0.667  mae 0.541667  mean width 0.750000  graded 6 of 6")


def test_the_text_line_when_nothing_was_graded(tmp_path):
    folder, truth = _write(tmp_path, {"e1": [0]})
    assert format_text(score_results(folder, truth)) == (
        "no experiment graded (6 failed: {'not_an_object': 1, 'missing_file': 5})")


def test_the_text_line_of_a_relative_grade_whose_truths_are_all_zero(tmp_path):
    folder, truth = _write(tmp_path, {"z": {"effect": 0.5, "ci_low": 0, "ci_high": 1}}, "experiment,effect\nz,0\n")
    score = score_results(folder, truth, level=0.5, relative=True)
    assert score.relative_winkler is None and score.mean_rel_error is None
    assert format_text(score) == "winkler 1.000000  coverage 1.000  mae 0.500000  mean width 1.000000  graded 1 of 1"


def test_only_a_relative_grade_prints_its_relative_figures_and_only_when_both_exist():
    graded = (ExperimentScore("e", 2.0, r.IntervalResult(2.5, 1.0, 3.0)),)
    plain = "winkler 2.000000  coverage 1.000  mae 0.500000  mean width 2.000000  graded 1 of 1"
    assert format_text(IntervalScore(0.5, graded, 1.0, 0.5, 2.0, 2.0, False, 1.0, 0.25)) == plain
    assert format_text(IntervalScore(0.5, graded, 1.0, 0.5, 2.0, 2.0, True, None, 0.25)) == plain
    assert format_text(IntervalScore(0.5, graded, 1.0, 0.5, 2.0, 2.0, True, 1.0, None)) == plain
    assert format_text(IntervalScore(0.5, graded, 1.0, 0.5, 2.0, 2.0, True, 1.0, 0.25)) == (
        "relative winkler 1.0000  mean relative error 0.2500  " + plain)


# --- the truth file --------------------------------------------------------------------------------------------


def test_a_truth_file_with_a_bom_crlf_spaces_and_quoted_line_breaks_is_read_as_written(tmp_path):
    path = _truth(tmp_path, b'\xef\xbb\xbfexperiment,effect\r\n e1 ,1.5\r\n"a\r\nb",-2\r\nx.y,1e100\r\nz,-1e100\r\n')
    assert read_truth(path) == {"e1": 1.5, "a\r\nb": -2.0, "x.y": 1e100, "z": -1e100}


def test_a_truth_file_names_its_own_columns(tmp_path):
    path = _truth(tmp_path, "band,wait,configuration\nlight,0.5,c1\n")
    assert read_truth(path, ("configuration", "wait")) == {"c1": 0.5}
    with pytest.raises(TruthFileError) as caught:
        read_truth(path)
    assert str(caught.value) == f"{path} line 2 has no usable experiment and effect"


@pytest.mark.parametrize("text, line", [
    ("experiment,effect\ne1,1\ne2\n", 3),  # a short row: the value is None (TypeError)
    ("effect,experiment\n1,e1\n2\n", 3),  # a short row: the name is None (AttributeError)
    ("experiment,effect\ne1,1\ne2,0x1\n", 3),  # not a number (ValueError)
    ("experiment,effect\n,\n", 2),  # both empty (ValueError)
    ("experiment,value\ne1,1\n", 2),  # no effect column (KeyError)
])
def test_a_truth_row_without_a_usable_name_and_value_is_named_with_its_line(tmp_path, text, line):
    path = _truth(tmp_path, text)
    with pytest.raises(TruthFileError) as caught:
        read_truth(path)
    assert str(caught.value) == f"{path} line {line} has no usable experiment and effect"


@pytest.mark.parametrize("value", ["1.0000000000000002e100", "-1.0000000000000002e100", "1e101", "-1e101", "nan"])
def test_a_truth_past_the_magnitude_cap_is_refused_with_its_text(tmp_path, value):
    path = _truth(tmp_path, f"experiment,effect\ne1,1\ne2,{value}\n")
    with pytest.raises(TruthFileError) as caught:
        read_truth(path)
    assert str(caught.value) == f"{path} line 3: effect {value!r} is not a finite number within +-1e+100"


@pytest.mark.parametrize("name", ["", "e1", "a/b", ".e", ".."])
def test_a_truth_name_that_is_empty_repeated_or_not_plain_is_refused(tmp_path, name):
    path = _truth(tmp_path, f"experiment,effect\ne1,1\n{name},2\n")
    with pytest.raises(TruthFileError) as caught:
        read_truth(path)
    assert str(caught.value) == f"{path} line 3: experiment {name!r} is empty, repeated or not a plain name"


def test_a_truth_name_with_a_nul_byte_is_refused_not_a_traceback(tmp_path, capsys):
    """A bug found here: the name reached open() as a file name, whose ValueError escaped as a traceback."""
    path = _truth(tmp_path, "experiment,effect\ne1,1\ne\x002,2\n")
    with pytest.raises(TruthFileError) as caught:
        read_truth(path)
    assert str(caught.value) == f"{path} line 3: experiment 'e\\x002' is empty, repeated or not a plain name"
    (tmp_path / "res").mkdir()
    assert main(["--results", str(tmp_path / "res"), "--truth", str(path)]) == 2
    assert capsys.readouterr().err == f"error: truth_invalid: {caught.value}\n"


def test_a_truth_file_with_a_header_only_names_no_experiments(tmp_path):
    path = _truth(tmp_path, "experiment,effect\n")
    with pytest.raises(TruthFileError) as caught:
        read_truth(path)
    assert str(caught.value) == f"{path} names no experiments"


@pytest.mark.parametrize("content, reason", [
    (None, "Is a directory"),
    (b"experiment,effect\ne\xff,1\n", "can't decode byte 0xff"),
    ("experiment,effect\n" + "e" * 200_000 + ",1\n", "field larger than field limit"),
])
def test_a_truth_file_that_cannot_be_read_says_why(tmp_path, content, reason):
    path = tmp_path / "truth.csv"
    if content is None:
        path.mkdir()
    else:
        _truth(tmp_path, content)
    with pytest.raises(TruthFileError) as caught:
        read_truth(path)
    assert str(caught.value).startswith(f"{path} cannot be read: ") and reason in str(caught.value)


# --- one result file -------------------------------------------------------------------------------------------


def test_a_result_of_exactly_the_byte_cap_is_read_and_one_byte_more_is_too_large(tmp_path):
    body = '{"effect": 1, "ci_low": 0, "ci_high": 2}'
    path = _result(tmp_path, body + " " * (r.MAX_BYTES - len(body)))
    assert r.read_result(path) == r.IntervalResult(1.0, 0.0, 2.0)
    _result(tmp_path, body + " " * (r.MAX_BYTES + 1 - len(body)))
    with pytest.raises(r.ResultFileError) as caught:
        r.read_result(path)
    assert (caught.value.name, str(caught.value)) == (r.TOO_LARGE, f"{path} is over 1048576 bytes")


def test_a_result_with_a_bom_and_integer_bounds_is_read_as_floats(tmp_path):
    path = _result(tmp_path, b'\xef\xbb\xbf{"effect": 1, "ci_low": -1e100, "ci_high": 1e100, "notes": "ok"}')
    result = r.read_result(path)
    assert result == r.IntervalResult(1.0, -1e100, 1e100) and type(result.effect) is float


@pytest.mark.parametrize("content, name, says", [
    (b"\x80{}", r.UNDECODABLE_BYTES, "{path} is not UTF-8 text (byte 0: invalid start byte)"),
    (" \n\t ", r.EMPTY_FILE, "{path} is empty"),
    ('"text"', r.NOT_AN_OBJECT, "{path} holds a JSON str, not an object"),
    ("[]", r.NOT_AN_OBJECT, "{path} holds a JSON list, not an object"),
    ('{"ci_low": 0}', r.MISSING_KEYS, "{path} lacks effect, ci_high"),
    ('{"effect": 0, "ci_low": 0.3, "ci_high": 0.2}', r.INVERTED_INTERVAL, "{path}: ci_low 0.3 is above ci_high 0.2"),
    ('{"effect": 0, "ci_low": 0, "ci_high": false}', r.BAD_NUMBER, "{path}: ci_high is False, not a finite number"),
    ('{"effect": null, "ci_low": 0, "ci_high": 1}', r.BAD_NUMBER, "{path}: effect is None, not a finite number"),
    ('{"effect": 1e101, "ci_low": 0, "ci_high": 1}', r.OUT_OF_RANGE, "{path}: effect is 1e+101, beyond +-1e+100"),
    ('{"effect": 0, "ci_low": -1.0000000000000002e100, "ci_high": 1}', r.OUT_OF_RANGE,
     "{path}: ci_low is -1e+100, beyond +-1e+100"),
    ('{"effect": 0, "ci_low": 0, "ci_high": 1e999}', r.BAD_NUMBER, "{path}: 1e999 is too large for a finite number"),
])
def test_each_defect_of_a_result_is_named_and_says_what_it_found(tmp_path, content, name, says):
    path = _result(tmp_path, content)
    with pytest.raises(r.ResultFileError) as caught:
        r.read_result(path)
    assert (caught.value.name, str(caught.value)) == (name, says.format(path=path))


def test_a_long_value_is_shortened_in_its_message(tmp_path):
    path = _result(tmp_path, json.dumps({"effect": "x" * 100, "ci_low": 0, "ci_high": 1}))
    with pytest.raises(r.ResultFileError) as caught:
        r.read_result(path)
    # repr is a quote and 100 x's: shortened to its first 57 characters and "..." (60 in all)
    assert str(caught.value) == f"{path}: effect is '{'x' * 56}..., not a finite number"


def test_a_parse_error_is_named_and_its_message_capped_at_200_characters(tmp_path):
    deep = tmp_path / ("d" * 120) / ("e" * 120)
    deep.mkdir(parents=True)
    for content, name in (('{"effect": 1' + "0" * 150 + "}", r.BAD_NUMBER), ("{effect: 1}", r.MALFORMED_JSON)):
        path = deep / "e1.json"
        path.write_text(content, encoding="utf-8")
        with pytest.raises(r.ResultFileError) as caught:
            r.read_result(path)
        assert caught.value.name == name and len(str(caught.value)) == 200 and str(caught.value).endswith("...")
        assert str(caught.value).startswith(str(deep)[:190])  # the path first, cut with the rest


@pytest.mark.parametrize("value, says", [(math.inf, "inf"), (-math.inf, "-inf"), (math.nan, "nan")])
def test_the_number_check_refuses_a_value_that_is_not_finite_on_its_own(tmp_path, value, says):
    """A second layer: the JSON reader refuses these first (tested above), so only a direct call reaches it."""
    with pytest.raises(r.ResultFileError) as caught:
        r._number(value, "ci_high", tmp_path / "e1.json")
    assert (caught.value.name, str(caught.value)) == (
        r.BAD_NUMBER, f"{tmp_path / 'e1.json'}: ci_high is {says}, not a finite number")


def test_the_parse_step_names_a_text_over_the_byte_cap_on_its_own(tmp_path):
    """A second layer: the file reader refuses an oversized file first, so only a direct call reaches it."""
    with pytest.raises(r.ResultFileError) as caught:
        r._parse(" " * (r.MAX_BYTES + 1), tmp_path / "e1.json")
    assert (caught.value.name, str(caught.value)) == (r.TOO_LARGE, f"{tmp_path / 'e1.json'} is over 1048576 bytes")


def test_a_result_names_its_point_by_the_tasks_key(tmp_path):
    path = _result(tmp_path, '{"estimate": 1.5, "ci_low": 1, "ci_high": 2}')
    assert r.read_result(path, ("estimate", "ci_low", "ci_high")) == r.IntervalResult(1.5, 1.0, 2.0)
    with pytest.raises(r.ResultFileError) as caught:
        r.read_result(path)
    assert str(caught.value) == f"{path} lacks effect"


def test_a_missing_and_an_unreadable_result_say_so(tmp_path):
    with pytest.raises(r.ResultFileError) as caught:
        r.read_result(tmp_path / "e1.json")
    assert (caught.value.name, str(caught.value)) == (r.MISSING_FILE, f"{tmp_path / 'e1.json'} does not exist")
    with pytest.raises(r.ResultFileError) as caught:
        r.read_result(tmp_path)
    assert (caught.value.name, str(caught.value)) == (r.UNREADABLE_FILE, f"{tmp_path} cannot be read: Is a directory")


# --- the command line ------------------------------------------------------------------------------------------


def test_the_command_line_prints_the_text_line_at_the_level_asked(tmp_path, capsys):
    folder, truth = _write(tmp_path)
    assert main(["--results", str(folder), "--truth", str(truth), "--level", "0.5", "--relative"]) == 1
    assert capsys.readouterr().out == (
        "relative winkler 0.8438  mean relative error 0.1562  winkler 3.300000  coverage 0.600  mae 0.650000  "
        "mean width 0.900000  graded 5 of 6  errors {'missing_file': 1}\n")
    (folder / "e6.json").write_text(json.dumps({"effect": 1.0, "ci_low": 1.0, "ci_high": 1.0}), encoding="utf-8")
    assert main(["--results", str(folder), "--truth", str(truth), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["level"] == 0.95 and data["winkler"] == pytest.approx((2 + 41 + 81 + 0.5) / 6)
    assert "relative_winkler" not in data and data["experiments"][0]["effect"] == 2.5


def test_the_command_line_reads_the_columns_and_point_key_it_is_given(tmp_path, capsys):
    truth = "configuration,wait\n" + "".join(f"{line.replace('e', 'c', 1)}\n" for line in TRUTH.splitlines()[1:])
    results = {name.replace("e", "c"): {"estimate" if key == "effect" else key: value for key, value in row.items()}
               for name, row in RESULTS.items()}
    folder, truth_path = _write(tmp_path, results, truth)
    code = main(["--results", str(folder), "--truth", str(truth_path), "--truth-columns", "configuration,wait",
                 "--point-key", "estimate", "--level", "0.5", "--json", "--relative"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["winkler"] == pytest.approx(3.3) and data["relative_winkler"] == 0.84375
    assert data["experiments"][1] == {"experiment": "c2", "truth": -4.0, "error": None, "message": None,
                                      "estimate": -3.5, "ci_low": -3.0, "ci_high": -2.0, "covered": False,
                                      "winkler": 5.0, "relative_winkler": 1.25, "relative_error": 0.125}


def test_the_command_line_refuses_an_unusable_truth_with_its_reason(tmp_path, capsys):
    folder, truth = _write(tmp_path, {}, "experiment,effect\n")
    assert main(["--results", str(folder), "--truth", str(truth)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"error: truth_invalid: {truth} names no experiments\n"
    assert main(["--results", str(folder), "--truth", str(truth), "--level", "1"]) == 2
    assert capsys.readouterr().err == "error: truth_invalid: level must be in (0, 1), got 1.0\n"


@pytest.mark.parametrize("argv, says", [
    (["--truth-columns", "a,b,c"], "--truth-columns takes two names: NAME,VALUE"),
    (["--truth-columns", "a"], "--truth-columns takes two names: NAME,VALUE"),
    (["--level", "high"], "argument --level: invalid float value: 'high'"),
])
def test_the_command_line_refuses_bad_arguments_with_usage(tmp_path, capsys, argv, says):
    folder, truth = _write(tmp_path)
    with pytest.raises(SystemExit) as caught:
        main(["--results", str(folder), "--truth", str(truth), *argv])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.startswith("usage: python -m scorer.intervals ")
    assert err.endswith(f"python -m scorer.intervals: error: {says}\n")


@pytest.mark.parametrize("left_out", ["--results", "--truth"])
def test_the_command_line_needs_results_and_truth(tmp_path, capsys, left_out):
    folder, truth = _write(tmp_path)
    argv = {"--results": str(folder), "--truth": str(truth)}
    del argv[left_out]
    with pytest.raises(SystemExit) as caught:
        main([item for pair in argv.items() for item in pair])
    assert caught.value.code == 2 and f"the following arguments are required: {left_out}" in capsys.readouterr().err


def test_the_command_lines_help_says_what_each_option_is(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines at the terminal's width
    assert caught.value.code == 0
    assert text.startswith("usage: python -m scorer.intervals [-h] --results RESULTS --truth TRUTH [--level LEVEL] "
                           "[--truth-columns TRUTH_COLUMNS] [--point-key POINT_KEY] [--relative] [--json] ")
    for said in ("Grading interval results against known true values: the interval take-homes' grader (ab_test, "
                 "simulation).", "--results RESULTS folder of <experiment>.json results",
                 "--truth TRUTH CSV with a name and a value column",
                 "--truth-columns TRUTH_COLUMNS the truth file's name and value columns (default: experiment,effect)",
                 "--point-key POINT_KEY what a result calls its point estimate (default: effect)",
                 "--relative also the scores over |truth| (scale-free)"):
        assert said in text
