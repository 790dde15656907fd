"""The interval grader as the simulation take-home uses it: its own key and columns, the scale-free relative
scores, grades by group; and an A/B grade is what it was (no relative keys unless asked for)."""

from __future__ import annotations

import json

import pytest

from scorer import interval_reading as r
from scorer.intervals import main, score_groups, score_results

TRUTH = "configuration,wait,band\nc1,0.5,light\nc2,10.0,heavy\nc3,100.0,heavy\n"
KEYS = ("estimate", "ci_low", "ci_high")
COLUMNS = ("configuration", "wait")


def _write(folder, results: dict[str, object]):
    folder.mkdir(exist_ok=True)
    for name, value in results.items():
        (folder / f"{name}.json").write_text(json.dumps(value), encoding="utf-8")
    (folder.parent / "truth.csv").write_text(TRUTH, encoding="utf-8")
    return folder, folder.parent / "truth.csv"


RESULTS = {
    "c1": {"estimate": 0.51, "ci_low": 0.45, "ci_high": 0.55},  # covers, width 0.1: relative 0.2
    "c2": {"estimate": 9.0, "ci_low": 8.5, "ci_high": 9.5},  # misses by 0.5: 1 + 40 * 0.5 = 21, relative 2.1
    "c3": {"estimate": 100.0, "ci_low": 90.0, "ci_high": 110.0},  # covers, width 20: relative 0.2
}


def test_relative_scores_divide_each_configuration_by_its_truth(tmp_path):
    score = score_results(*_write(tmp_path / "res", RESULTS), keys=KEYS, columns=COLUMNS, relative=True)
    assert score.winkler == pytest.approx((0.1 + 21 + 20) / 3)  # the absolute score: the largest wait's
    assert score.relative_winkler == pytest.approx((0.2 + 2.1 + 0.2) / 3)
    assert score.mean_rel_error == pytest.approx((0.02 + 0.1 + 0.0) / 3)
    data = score.to_dict()
    assert data["relative_winkler"] == score.relative_winkler
    assert data["experiments"][1]["estimate"] == 9.0 and "effect" not in data["experiments"][1]
    assert data["experiments"][1]["relative_winkler"] == pytest.approx(2.1)


def test_grades_by_group(tmp_path):
    score = score_results(*_write(tmp_path / "res", RESULTS), keys=KEYS, columns=COLUMNS, relative=True)
    groups = score_groups(score, {"c1": "light", "c2": "heavy", "c3": "heavy"})
    assert list(groups) == ["light", "heavy"]
    assert groups["heavy"].coverage == pytest.approx(0.5) and groups["heavy"].relative_winkler == pytest.approx(1.15)
    assert len(groups["light"].experiments) == 1 and groups["light"].relative


def test_a_result_with_the_other_tasks_key_is_missing_its_key(tmp_path):
    folder, truth = _write(tmp_path / "res", {"c1": {"effect": 0.5, "ci_low": 0.4, "ci_high": 0.6}})
    score = score_results(folder, truth, keys=KEYS, columns=COLUMNS, relative=True)
    assert score.errors == {r.MISSING_KEYS: 1, r.MISSING_FILE: 2}
    assert "estimate" in score.experiments[0].message


def test_an_interval_score_without_relative_keeps_its_keys(tmp_path):
    (tmp_path / "res").mkdir()
    (tmp_path / "res" / "e1.json").write_text(json.dumps({"effect": 0.01, "ci_low": 0.0, "ci_high": 0.02}))
    (tmp_path / "t.csv").write_text("experiment,effect\ne1,0.01\n")
    data = score_results(tmp_path / "res", tmp_path / "t.csv").to_dict()
    assert "relative_winkler" not in data and "mean_rel_error" not in data
    assert set(data["experiments"][0]) == {"experiment", "truth", "error", "message", "effect", "ci_low", "ci_high",
                                           "covered", "winkler"}


def test_the_command_line_names_the_columns_and_the_key(tmp_path, capsys):
    folder, truth = _write(tmp_path / "res", RESULTS)
    code = main(["--results", str(folder), "--truth", str(truth), "--truth-columns", "configuration,wait",
                 "--point-key", "estimate", "--relative", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["relative_winkler"] == pytest.approx(2.5 / 3)
    assert main(["--results", str(folder), "--truth", str(truth)]) == 2  # no experiment/effect columns
    assert "truth_invalid" in capsys.readouterr().err
