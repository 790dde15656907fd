"""The interval grader: hand-computed metrics, and every malformed result named."""

from __future__ import annotations

import json

import pytest

from scorer import interval_reading as r
from scorer.intervals import TruthFileError, main, read_truth, score_results

TRUTH = "experiment,effect\ne1,0.0\ne2,0.01\ne3,0.02\n"


def _write(folder, results: dict[str, object], truth: str = TRUTH):
    folder.mkdir(exist_ok=True)
    for name, value in results.items():
        text = value if isinstance(value, (str, bytes)) else json.dumps(value)
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(folder / f"{name}.json", mode) as out:
            out.write(text)
    (folder.parent / "truth.csv").write_text(truth, encoding="utf-8")
    return folder, folder.parent / "truth.csv"


def test_hand_computed_coverage_error_width_and_winkler(tmp_path):
    results = {
        "e1": {"effect": 0.001, "ci_low": -0.004, "ci_high": 0.006},  # covers, width 0.010
        "e2": {"effect": 0.02, "ci_low": 0.015, "ci_high": 0.025},  # misses below by 0.005, width 0.010
        "e3": {"effect": 0.01, "ci_low": 0.0, "ci_high": 0.03},  # covers, width 0.030
    }
    score = score_results(*_write(tmp_path / "res", results))
    assert score.coverage == pytest.approx(2 / 3)
    assert score.mean_abs_error == pytest.approx((0.001 + 0.01 + 0.01) / 3)
    assert score.mean_width == pytest.approx((0.010 + 0.010 + 0.030) / 3)
    # Winkler at 95%: width + 40 * miss; e2 pays 0.010 + 40 * 0.005 = 0.210.
    assert score.winkler == pytest.approx((0.010 + 0.210 + 0.030) / 3)
    assert score.graded == 3 and score.failed == 0 and score.errors == {}
    assert [e.covered for e in score.experiments] == [True, False, True]


def test_the_winkler_score_punishes_too_narrow_and_too_wide(tmp_path):
    def winkler(half_width: float) -> float:
        results = {name: {"effect": 0.012, "ci_low": 0.012 - half_width, "ci_high": 0.012 + half_width}
                   for name in ("e1", "e2", "e3")}
        return score_results(*_write(tmp_path / f"w{half_width}", results)).winkler

    assert winkler(0.001) > winkler(0.012) < winkler(0.2)


@pytest.mark.parametrize(
    "content, name",
    [
        (None, r.MISSING_FILE),
        ("", r.EMPTY_FILE),
        (b"\xff\xfe{", r.UNDECODABLE_BYTES),
        ("{effect: 1}", r.MALFORMED_JSON),
        ('{"effect": NaN, "ci_low": 0, "ci_high": 1}', r.MALFORMED_JSON),
        ("[0.1, 0.0, 0.2]", r.NOT_AN_OBJECT),
        ({"effect": 0.1, "ci_low": 0.0}, r.MISSING_KEYS),
        ({"effect": "0.1", "ci_low": 0.0, "ci_high": 0.2}, r.BAD_NUMBER),
        ({"effect": True, "ci_low": 0.0, "ci_high": 0.2}, r.BAD_NUMBER),
        ('{"effect": 0.1, "ci_low": 0, "ci_high": 1e999}', r.BAD_NUMBER),
        ({"effect": 0.1, "ci_low": 0.3, "ci_high": 0.2}, r.INVERTED_INTERVAL),
        (" " * (r.MAX_BYTES + 1), r.TOO_LARGE),
    ],
)
def test_malformed_results_are_named_errors_and_the_rest_still_graded(tmp_path, content, name):
    results = {"e2": {"effect": 0.01, "ci_low": 0.0, "ci_high": 0.02}, "e3": {"effect": 0.02, "ci_low": 0.01, "ci_high": 0.03}}
    if content is not None:
        results["e1"] = content
    score = score_results(*_write(tmp_path / "res", results))
    assert score.errors == {name: 1}
    assert score.failed == 1 and score.graded == 2
    assert score.experiments[0].error == name and score.experiments[0].winkler(0.95) is None
    assert score.coverage == 1.0 and score.winkler == pytest.approx(0.02)


def test_a_folder_in_place_of_a_result_is_unreadable(tmp_path):
    folder, truth = _write(tmp_path / "res", {})
    (folder / "e1.json").mkdir()
    assert score_results(folder, truth).errors == {r.UNREADABLE_FILE: 1, r.MISSING_FILE: 2}


@pytest.mark.parametrize("text", ["", "experiment,effect\n", "experiment\ne1\n", "experiment,effect\ne1,x\n",
                                  "experiment,effect\ne1,0\ne1,0\n", "experiment,effect\n../e,0\n"])
def test_an_unusable_truth_file_raises(tmp_path, text):
    path = tmp_path / "truth.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TruthFileError):
        read_truth(path)


def test_command_line_exit_codes_and_json(tmp_path, capsys):
    folder, truth = _write(tmp_path / "res", {"e1": {"effect": 0, "ci_low": -1, "ci_high": 1}})
    assert main(["--results", str(folder), "--truth", str(truth), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == {"missing_file": 2} and report["coverage"] == 1.0 and report["winkler"] == 2.0
    (tmp_path / "bad.csv").write_text("nothing\n", encoding="utf-8")
    assert main(["--results", str(folder), "--truth", str(tmp_path / "bad.csv")]) == 2
    assert "truth_invalid" in capsys.readouterr().err


def _strict_json(text: str):
    """json.loads that refuses NaN and Infinity, as any JSON reader but Python's does."""
    def refuse(token):
        raise ValueError(f"{token} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("text, name", [
    ('{"effect": 1' + "0" * 400 + ', "ci_low": 0, "ci_high": 1}', r.BAD_NUMBER),  # 401 digits: float() overflows
    ('{"effect": 0.0, "ci_low": -1.7e308, "ci_high": 1.7e308}', "out_of_range"),  # finite, but the width is not
    ('{"effect": -1.7e308, "ci_low": -1.7e308, "ci_high": -1.6e308}', "out_of_range"),  # the mean error would not be
    ('{"effect": 0, "ci_low": 0, "ci_high": 1, "notes": ' + "[" * 40 + "]" * 40 + "}", r.MALFORMED_JSON),
])
def test_numbers_that_would_overflow_the_grade_are_named_errors_of_that_result(tmp_path, capsys, text, name):
    """Hostile input round 2, rows 6 and 7: OverflowError from math.isfinite, Infinity in `--json`."""
    results = {"e1": text, "e2": {"effect": 0.01, "ci_low": 0.0, "ci_high": 0.02},
               "e3": {"effect": 0.02, "ci_low": 0.01, "ci_high": 0.03}}
    folder, truth = _write(tmp_path / "res", results)
    score = score_results(folder, truth)
    assert score.errors == {name: 1} and score.graded == 2 and score.winkler == pytest.approx(0.02)
    assert main(["--results", str(folder), "--truth", str(truth), "--json"]) == 1
    report = _strict_json(capsys.readouterr().out)
    assert report["errors"] == {name: 1} and report["experiments"][0]["winkler"] is None


@pytest.mark.parametrize("value", ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_a_truth_that_is_not_a_finite_number_is_refused(tmp_path, value):
    """float() reads each of these; a truth of NaN would make every interval miss it and a Winkler score NaN."""
    path = tmp_path / "truth.csv"
    path.write_text(f"experiment,effect\ne1,0.5\ne2,{value}\n", encoding="utf-8")
    with pytest.raises(TruthFileError, match="line 3: effect .* is not a finite number"):
        read_truth(path)


def test_a_truth_beyond_the_magnitude_cap_is_the_graders_fault(tmp_path):
    path = tmp_path / "truth.csv"
    path.write_text("experiment,effect\ne1,1.7e308\n", encoding="utf-8")
    with pytest.raises(TruthFileError, match="within"):
        read_truth(path)
