"""The report of a batch written by the old code (commit 3f06060) says what its raw records say.

Every expected figure here is recomputed in the test from the JSON files on disk (tests/data/batch_before_records/
batch, read with the json module, not through bakeoff's readers or its analysis), by the rules the report states in
its "Words" section: a run is graded when it ended (its run.json is there, with no harness error); its headline is
the holdout F1 of its outcome, a graded run that was not scored counting as zero; a crash's class is its last
check's crash class, or the check's status where the scorer gave no class; a repair turn rescues a run whose
implement check was not scored and whose repair check is, and regresses the opposite. The report bakeoff writes of
the folder must show those figures. tests/test_report_change_detector.py holds the same report to its snapshot.
"""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from pathlib import Path
from statistics import mean

import pytest

from bakeoff.tasks import report_batch as write_report

BATCH = Path(__file__).parent / "data" / "batch_before_records" / "batch"


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("old-batch") / "report"
    write_report(BATCH, out)
    return out


def _table(report: Path, name: str) -> list[dict[str, str]]:
    with (report / "tables" / f"{name}.csv").open(newline="", encoding="utf-8") as rows:
        return list(csv.DictReader(rows))


def _finished_runs() -> dict[str, dict]:
    """run_id -> run.json, for the runs that ended without a harness error (the graded ones)."""
    runs = {}
    for record in sorted(BATCH.glob("runs/*/run.json")):
        run = _read(record)
        if run["error"] is None:
            runs[run["run_id"]] = run
    return runs


def _checks(run_id: str) -> dict[str, dict]:
    """stage name -> that stage's check (the grade of the code after it), for the stages that have one."""
    stages = (_read(path) for path in sorted((BATCH / "runs" / run_id / "stages").glob("*.json")))
    return {stage["stage"]: stage["check"] for stage in stages if stage["check"] is not None}


def _last_check(run_id: str) -> dict:
    stages = sorted((BATCH / "runs" / run_id / "stages").glob("*.json"), key=lambda p: int(p.name.split("-")[0]))
    return [c for c in (_read(p)["check"] for p in stages) if c is not None][-1]


def test_the_fixture_holds_what_the_checks_below_need():
    runs = _finished_runs()
    assert sorted(runs) == ["alpha-r01", "alpha-r02", "beta-r01", "gamma-r01", "gamma-r02"]  # beta-r02 unfinished
    assert not (BATCH / "runs" / "beta-r02" / "run.json").exists()


def test_each_models_headline_is_the_mean_of_its_runs_f1_crashes_as_zero(report):
    by_model: dict[str, list[float]] = defaultdict(list)
    for run in _finished_runs().values():
        outcome = run["outcome"]
        by_model[run["model"]["label"]].append(outcome["f1"] if outcome["status"] == "scored" else 0.0)
    assert by_model["alpha"] == [pytest.approx(0.7389162561576355), pytest.approx(0.7572815533980582)]
    leaderboard = {row["model"]: row for row in _table(report, "leaderboard")}
    assert set(leaderboard) == set(by_model)
    for model, values in by_model.items():
        assert float(leaderboard[model]["f1"]) == pytest.approx(mean(values)), model
        assert int(leaderboard[model]["graded"]) == len(values), model
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert f"| 1 | alpha | {mean(by_model['alpha']):.3f} |" in markdown


def test_a_runs_outcome_is_its_last_checks_grade(report):
    """The run record's F1 and status are those of the last stage that graded the code (a second raw source)."""
    runs_table = {row["run_id"]: row for row in _table(report, "runs")}
    for run_id, run in _finished_runs().items():
        last = _last_check(run_id)
        assert (run["outcome"]["status"], run["outcome"]["f1"]) == (last["status"], last["f1"]), run_id
        shown = runs_table[run_id]
        assert shown["status"] == last["status"], run_id
        assert (float(shown["f1"]) if shown["f1"] else None) == last["f1"], run_id


def test_the_crash_table_counts_each_class_of_the_runs_that_were_not_scored(report):
    crashes: Counter[tuple[str, str]] = Counter()
    graded: Counter[str] = Counter()
    for run_id, run in _finished_runs().items():
        model = run["model"]["label"]
        graded[model] += 1
        last = _last_check(run_id)
        if last["status"] != "scored":
            crashes[model, last["crash_class"] or last["status"]] += 1
    assert crashes == {("gamma", "bad_output"): 2}  # what the fixture was made to hold
    shown = {(row["model"], row["crash_class"]): row for row in _table(report, "crash_taxonomy")}
    assert set(shown) == set(crashes)
    for (model, crash_class), runs in crashes.items():
        assert int(shown[model, crash_class]["runs"]) == runs
        assert float(shown[model, crash_class]["share_of_graded"]) == pytest.approx(runs / graded[model])
    leaderboard = {row["model"]: row for row in _table(report, "leaderboard")}
    for model in graded:
        crashed = sum(n for (m, _), n in crashes.items() if m == model)
        assert float(leaderboard[model]["crash_rate"]) == pytest.approx(crashed / graded[model]), model


def test_the_repair_table_counts_rescues_and_regressions_from_the_checks_before_and_after(report):
    turns: dict[str, Counter[str]] = defaultdict(Counter)
    for run_id, run in _finished_runs().items():
        checks = _checks(run_id)
        if "repair" not in checks or checks["implement"]["status"] == "scored":
            continue  # no repair turn was needed, so none was granted
        before, after = checks["implement"]["status"] == "scored", checks["repair"]["status"] == "scored"
        effect = "rescued" if after and not before else "regressed" if before and not after else "unchanged"
        turns[run["model"]["label"]].update(["granted", effect])
    assert turns == {"alpha": {"granted": 2, "rescued": 2}, "gamma": {"granted": 2, "unchanged": 2}}
    shown = {row["model"]: row for row in _table(report, "repair_turns")}
    assert set(shown) == set(turns)
    for model, counts in turns.items():
        for column in ("granted", "rescued", "regressed", "unchanged"):
            assert int(shown[model][column]) == counts[column], (model, column)
