"""`bakeoff calibrate --task simulation` on small data: the references come out ordered (careless worst, careful
best on the relative Winkler score), careful covers, and beats every degenerate baseline by a paired interval
that excludes zero; the sweep options are refused."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from generators.simulation import Secret, SimParams, generate_sim_data
from generators.simulation.calibration import SIM_BASELINES, UnknownSimReference, materialize_sim

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    from bakeoff.cli import main

    folder = tmp_path_factory.mktemp("sim-cal") / "data"
    # Two CPU seconds a line, not one: careful and half stop at 0.8 of the budget, and at one second the 0.2 left
    # is two or three of their chunks; on a loaded machine (a whole-suite run beside two full-size benches) a chunk
    # cost more than its predecessor and careful met SIGXCPU on cfg_005 (tests/test_sim_fresh_secret.py: the same).
    generate_sim_data(SimParams(seed=2, configurations=12, cpu_seconds=2, reference_millions=60), folder,
                      secret=Secret.from_hex("33" * 32))
    done = CliRunner().invoke(main, ["calibrate", "--task", "simulation", "--corpus", str(folder)])
    assert done.exit_code == 0, done.output
    return folder, json.loads((folder / "calibration.json").read_text()), done.output


def test_the_references_are_ordered_and_careful_covers(calibrated):
    _, data, output = calibrated
    by = {r["variant"]: r for r in data["references"]}
    winkler = {name: r["relative_winkler"] for name, r in by.items()}
    assert winkler["sim_careless"] > winkler["sim_half"] > winkler["sim_careful"]
    assert data["checks"]["careless_worse_than_half"] and data["checks"]["half_worse_than_careful"]
    assert by["sim_careful"]["coverage"] >= 0.75 and by["sim_half"]["coverage"] < 0.6
    assert {b["band"] for b in by["sim_careful"]["bands"]} == {"light", "medium", "heavy"}
    assert all(r["failed"] == 0 and r["configurations"] == 12 for r in data["references"] + data["baselines"])
    assert "calibration of" in output and "ok   careful_beats_every_baseline" in output


def test_careful_beats_every_baseline_by_a_paired_interval(calibrated):
    _, data, _ = calibrated
    margins = {m["variant"]: m for m in data["margins"]}
    assert set(SIM_BASELINES) <= set(margins)
    for name in SIM_BASELINES:
        assert margins[name]["low"] > 0, margins[name]
    assert data["checks"]["careful_beats_every_baseline"]


def test_the_sweep_and_an_unknown_reference_are_refused(calibrated, tmp_path):
    from bakeoff.cli import main

    folder, _, _ = calibrated
    done = CliRunner().invoke(main, ["calibrate", "--task", "simulation", "--corpus", str(folder), "--sweep"])
    assert done.exit_code != 0 and "OptionNotForTask" in done.output
    with pytest.raises(UnknownSimReference):
        materialize_sim("sim_psychic", tmp_path)
