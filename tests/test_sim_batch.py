"""Acceptance: a scripted batch on the simulation take-home in the real Docker sandbox, graded on every hidden
configuration, probed, repaired and reported.

Three scripted models, one run each:
- careful: independent replications with a warm-up, and says so (WARMUP: ..., INTERVAL: independent replications);
- careless: says it deletes a warm-up and uses batch means, but runs 20,000 orders from empty with an interval as
  if the waits were independent (the silent failure);
- crashing: its first simulate.py imports a package that does not exist; the repair turn fixes it (careful).
"""

from __future__ import annotations

import csv
import re

import pytest
from interval_runner_support import probed_batch
from interval_runner_support import stage_record as _stage
from sim_runner_support import (
    CAREFUL,
    CARELESS,
    CARELESS_DESIGN,
    CRASHING,
    TINY_SIM,
    implementation,
    make_tiny_sim_data,
    sim_answers,
)

pytestmark = [pytest.mark.docker, pytest.mark.slow]
PROBED = "cfg_000"  # TINY_SIM's heaviest line whose truth is simulated (its others have an exact method)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("sim-batch")
    scripts = {
        "careful": sim_answers(implementation(CAREFUL)),
        "careless": sim_answers(implementation(CARELESS), design_text=CARELESS_DESIGN),
        "crashing": sim_answers(implementation(CRASHING), implementation(CAREFUL)),
    }
    return probed_batch(root, "simulation", make_tiny_sim_data(root / "data"), scripts)


def test_every_run_is_graded_on_every_hidden_configuration(batch):
    folder, records, _ = batch
    for label, record in records.items():
        assert record["status"] == "finished", (label, record.get("error"))
        assert record["outcome"]["status"] == "scored", (label, record["outcome"])
        metrics = _stage(folder, record["run_id"], 5, "evaluate")["check"]["metrics"]
        assert metrics["n"] == metrics["graded"] == TINY_SIM["configurations"] and metrics["failed"] == 0
        assert {row["band"] for row in metrics["experiments"]} <= set(metrics["bands"])
        assert record["outcome"]["headline"]["name"] == "relative_winkler"
    by = {label: _stage(folder, r["run_id"], 5, "evaluate")["check"]["metrics"] for label, r in records.items()}
    assert by["careless"]["relative_winkler"] > 3 * by["careful"]["relative_winkler"]
    assert by["careless"]["coverage"] < by["careful"]["coverage"]


def test_the_probe_tells_sound_from_independent_and_the_divergence_from_the_design(batch):
    folder, records, _ = batch
    probes = {label: _stage(folder, r["run_id"], 5, "evaluate")["extras"]["behaviour_probe"] for label, r in records.items()}
    assert {label: p["behaviour"] for label, p in probes.items()} == {
        "careful": "sound", "careless": "independent", "crashing": "sound"}
    heaviest = probes["careful"]["configurations"][0]
    # the probe runs on the heaviest line no formula answers (issue 34; careful answers the others exactly)
    assert heaviest["configuration"] == PROBED and len(heaviest["base"]) == 4 and heaviest["longer"] is not None
    assert all(a["ok"] for p in probes.values() for c in p["configurations"] for a in c["attempts"])
    assert probes["careless"]["configurations"][0]["spread_ratio"] < 1 / 3


def test_the_crash_is_repaired_by_the_repair_turn(batch):
    folder, records, _ = batch
    run_id = records["crashing"]["run_id"]
    implement = _stage(folder, run_id, 3, "implement")
    assert implement["attribution"] == "model_error" and implement["check"]["crash_class"] == "module_not_found"
    assert "queue_magic_toolkit" in implement["check"]["visible_failure"]
    assert "python simulate.py --config data/examples/example_1.json" in implement["check"]["visible_failure"]
    (turn,) = _stage(folder, run_id, 4, "repair")["turns"]
    assert turn["granted_because"] == "visible_failure" and turn["effect"] == "rescued"
    assert turn["after"]["status"] == "scored"


def test_the_report_shows_the_behaviour_the_divergence_and_the_plots(batch):
    _, records, report = batch
    with open(report.folder / "tables" / "sim_runs.csv", newline="") as handle:
        rows = {row["model"]: row for row in csv.DictReader(handle)}
    assert {m: (r["behaviour"], r["stated_interval"], r["divergence"]) for m, r in rows.items()} == {
        "careful": ("sound", "replications", "consistent"),
        "careless": ("independent", "batch_means", "claims_correlation_acts_independent"),
        "crashing": ("sound", "replications", "consistent"),
    }
    assert rows["crashing"]["repair_effects"] == "rescued"
    markdown = report.markdown.read_text(encoding="utf-8")
    assert "careless: 1 design(s) state an interval that allows for correlated waits" in markdown
    svg = (report.folder / "plots" / "sim_intervals.svg").read_text(encoding="utf-8")
    for record in records.values():  # every run's interval on every hidden configuration is drawn
        assert svg.count(f"<title>{record['run_id']} on cfg_") == TINY_SIM["configurations"]
    assert "heavy (" in svg and "light (" in svg
    probe_svg = (report.folder / "plots" / "sim_probe.svg").read_text(encoding="utf-8")
    # every probed run drawn once (a dot, or a diamond where the design differs), in its model's colour
    assert sum(probe_svg.count(f"<title>{record['run_id']}: ") for record in records.values()) == 3
    diamonds = re.findall(r"<polygon [^>]*><title>([^<:]+): ", probe_svg)
    assert diamonds == [records["careless"]["run_id"]]  # its design claims correlation, its code acts independent
    html = report.html.read_text(encoding="utf-8")
    assert 'id="plot-sim_intervals"' in html and 'id="plot-sim_probe"' in html
    assert "crash_taxonomy" in html  # every task's part follows the task's own


def test_the_exports_carry_each_runs_behaviour_and_design(batch):
    from bakeoff.batchfolder.read import read_batch, run_model_label
    from bakeoff.tasks import task_plugin

    folder, _, _ = batch
    plugin = task_plugin("simulation")
    found = {run_model_label(run): plugin.export_metadata(run) for run in read_batch(folder).runs}
    assert found["careless"] == {"behaviour": "independent", "stated_warmup": "deleted", "stated_interval": "batch_means",
                                 "divergence": "claims_correlation_acts_independent"}
    assert found["careful"]["behaviour"] == "sound" and found["careful"]["divergence"] == "consistent"
