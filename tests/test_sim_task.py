"""The simulation take-home as a plug-in: found by name, its spec and data layout (the truth and the secret never
mounted), its headline's direction, its claim, the CPU cap every simulate.py run goes through, and
`bakeoff generate --task simulation` built from its options."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from bakeoff.records import LadderCheck, LadderStatus, Rung, turn_effect
from bakeoff.tasks import task_names, task_plugin
from bakeoff.tasks.simulation.cpu_cap import CPU_EXCEEDED_EXIT, capped_argv
from bakeoff.tasks.simulation.plugin import parse_estimate
from sandbox.base import ExecResult


def test_the_simulation_is_found_by_name_with_its_spec_and_own_settings():
    assert "simulation" in task_names()
    plugin = task_plugin("simulation")
    spec = plugin.spec({"probe_seeds": 3})
    assert spec.name == "simulation" and "simulate.py" in spec.statement and "cpu_seconds" in spec.statement
    assert spec.settings.own == {"probe_configurations": 1, "probe_seeds": 3, "probe_budget_factor": 4}
    assert spec.settings.timeout_for("simulate") == 60
    assert "$exploration_output" in spec.prompts["decide"] and "WARMUP:" in spec.prompts["decide"]
    assert "$failure" in spec.prompts["repair"] and "$visible_output" in spec.prompts["repair_always"]
    assert "$design" in spec.prompts["implement"] and "$visible_output" in spec.prompts["docs"]


def test_the_truth_and_the_secret_are_never_mounted(tmp_path):
    from sim_runner_support import make_tiny_sim_data

    plugin = task_plugin("simulation")
    layout = plugin.corpus_layout()
    mounted = {part for part, _ in layout.mounts}
    assert {"holdout_truth.csv", "truth.json", "secret.hex"} <= set(layout.truth) and not mounted & set(layout.truth)
    assert dict(layout.mounts) == {"examples": "data/examples", "holdout": "/holdout"}
    files = plugin.corpus_files(make_tiny_sim_data(tmp_path / "data"))
    assert {p.name for p in files.truth_files()} == {"holdout_truth.csv", "truth.json", "secret.hex"}
    assert all(mount.read_only for mount in files.mounts())


def test_a_lower_relative_winkler_score_is_a_rescue():
    def scored(value):
        return LadderCheck(Rung.SCORED, LadderStatus.SCORED, None, task_plugin("simulation").headline.of(value))

    assert turn_effect(scored(0.5), scored(0.1)) == "rescued"
    assert turn_effect(scored(0.1), scored(0.5)) == "regressed"
    assert turn_effect(scored(0.1), scored(0.102)) == "unchanged"


def test_the_claim_is_the_last_estimate_line():
    assert parse_estimate("ESTIMATE: 1 [0, 2]\nnoise\nESTIMATE: 12.5 [11.25, 1.4e1]") == (12.5, 11.25, 14.0)
    assert parse_estimate("ESTIMATE: about ten minutes") is None
    claim = task_plugin("simulation").grader.parse_claim("ESTIMATE: 3.5 [3.0, 4.0]")
    assert claim is not None and claim.claimed == 3.5 and claim.extra == {"claimed_ci": [3.0, 4.0]}


SPIN = "while True:\n    pass\n"
QUICK = "import sys\nprint('args', sys.argv[1:])\nsys.exit(3)\n"


@pytest.mark.parametrize("body, code", [(SPIN, CPU_EXCEEDED_EXIT), (QUICK, 3)])
def test_the_cpu_cap_stops_a_run_at_its_budget_and_passes_an_exit_status_through(tmp_path, body, code):
    from bakeoff.tasks.simulation.cpu_cap import over_budget

    (tmp_path / "simulate.py").write_text(body, encoding="utf-8")
    argv = capped_argv("c.json", "r.json", 1)
    done = subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == code
    result = ExecResult(tuple(argv), done.returncode, done.stdout, done.stderr, False, False, 1.0)
    assert over_budget(result) is (code == CPU_EXCEEDED_EXIT)
    if code == 3:
        assert "args ['--config', 'c.json', '--output', 'r.json']" in done.stdout


def test_generate_builds_its_options_from_the_plug_in(tmp_path):
    from bakeoff.cli import main

    out = tmp_path / "sim"
    done = CliRunner().invoke(main, ["generate", "--task", "simulation", "--out", str(out), "--configurations", "3",
                                     "--cpu-seconds", "2", "--seed", "9", "--reference-millions", "1"])
    assert done.exit_code == 0, done.output
    assert "3 hidden configurations" in done.output and "2 CPU seconds each" in done.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["params"] == {"seed": 9, "configurations": 3, "cpu_seconds": 2, "reference_millions": 1}
    refused = CliRunner().invoke(main, ["generate", "--task", "simulation", "--out", str(tmp_path / "x"), "--users", "9"])
    assert refused.exit_code != 0 and "OptionNotForTask" in refused.output
