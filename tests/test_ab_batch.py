"""Acceptance: a scripted batch on ab_test in the real Docker sandbox, graded, probed, repaired and reported.

Three scripted models, one run each, so the sandbox work is paid once:
- by_user: analyses by user from the start and says so (UNIT: user);
- by_visit: says UNIT: user but analyses every visit as an independent trial (the silent failure);
- crashing: its first analyze.py imports a package that does not exist; the repair turn fixes it (by user).
"""

from __future__ import annotations

import csv
import math

import pytest
from ab_runner_support import BY_USER, BY_VISIT, CRASHING, TINY_AB, ab_answers, implementation, make_tiny_ab_data
from interval_runner_support import probed_batch
from interval_runner_support import stage_record as _stage

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("ab-batch")
    scripts = {
        "by_user": ab_answers(implementation(BY_USER)),
        "by_visit": ab_answers(implementation(BY_VISIT)),
        "crashing": ab_answers(implementation(CRASHING), implementation(BY_USER)),
    }
    return probed_batch(root, "ab_test", make_tiny_ab_data(root / "data"), scripts)


def test_every_run_is_graded_on_every_hidden_experiment(batch):
    folder, records, _ = batch
    for label, record in records.items():
        assert record["status"] == "finished", (label, record.get("error"))
        outcome = record["outcome"]
        assert outcome["status"] == "scored", (label, outcome)
        metrics = _stage(folder, record["run_id"], 5, "evaluate")["check"]["metrics"]
        assert metrics["n"] == metrics["graded"] == TINY_AB["experiments"] and metrics["failed"] == 0
    by = {label: _stage(folder, r["run_id"], 5, "evaluate")["check"]["metrics"] for label, r in records.items()}
    assert by["by_visit"]["mean_width"] < 0.75 * by["by_user"]["mean_width"]  # visits treated as independent
    assert by["by_visit"]["winkler"] > by["by_user"]["winkler"]  # and the misses cost more than the width saved


def test_the_probe_tells_user_from_visit_and_the_divergence_from_the_design(batch):
    folder, records, _ = batch
    probes = {label: _stage(folder, r["run_id"], 5, "evaluate")["extras"]["unit_probe"] for label, r in records.items()}
    assert {label: p["unit"] for label, p in probes.items()} == {"by_user": "user", "by_visit": "visit", "crashing": "user"}
    assert probes["by_user"]["width_ratio"] == pytest.approx(1.0, abs=0.03)
    assert probes["by_visit"]["width_ratio"] == pytest.approx(1 / math.sqrt(2), abs=0.03)
    assert probes["by_user"]["experiment"] == "exp_000"
    assert all(a["ok"] for p in probes.values() for a in p["attempts"])


def test_the_crash_is_repaired_by_the_repair_turn(batch):
    folder, records, _ = batch
    run_id = records["crashing"]["run_id"]
    implement = _stage(folder, run_id, 3, "implement")
    assert implement["attribution"] == "model_error" and implement["check"]["crash_class"] == "module_not_found"
    assert not implement["check"]["visible_ok"] and "checkout_stats_toolkit" in implement["check"]["visible_failure"]
    (turn,) = _stage(folder, run_id, 4, "repair")["turns"]
    assert turn["granted_because"] == "visible_failure" and turn["effect"] == "rescued"
    assert turn["after"]["status"] == "scored"
    for label in ("by_user", "by_visit"):  # nothing failed, so no turn was granted
        assert _stage(folder, records[label]["run_id"], 4, "repair")["turns"] == []


def test_the_report_shows_the_verdicts_the_divergence_and_the_plot(batch):
    _, records, report = batch
    with open(report.folder / "tables" / "ab_runs.csv", newline="") as handle:
        rows = {row["model"]: row for row in csv.DictReader(handle)}
    assert {m: (r["measured_unit"], r["stated_unit"], r["divergence"]) for m, r in rows.items()} == {
        "by_user": ("user", "user", "consistent"),
        "by_visit": ("visit", "user", "states_user_analyses_visits"),
        "crashing": ("user", "user", "consistent"),
    }
    assert rows["crashing"]["repair_effects"] == "rescued"
    markdown = report.markdown.read_text(encoding="utf-8")
    assert "by_visit: 1 design states UNIT: user while the code analyses visits." in markdown
    svg = (report.folder / "plots" / "ab_intervals.svg").read_text(encoding="utf-8")
    for record in records.values():  # every run's interval on every hidden experiment is drawn
        assert svg.count(f"<title>{record['run_id']} on exp_") == TINY_AB["experiments"]
    assert 'id="plot-ab_intervals"' in report.html.read_text(encoding="utf-8")
