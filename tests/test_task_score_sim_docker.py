"""`bakeoff score REPO --task simulation` on real Docker: the references come out ordered as calibration orders
them, a program that ignores its CPU budget is stopped by it, and a crash or a missing simulate.py is named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sim_runner_support import make_tiny_sim_data

from bakeoff.tasks import ScoreRequest, score, task_plugin
from generators.simulation.calibration import materialize_sim

pytestmark = [pytest.mark.docker, pytest.mark.slow]
BAKEOFF = str(Path(sys.executable).with_name("bakeoff"))

SPINNING = """
import argparse, json
parser = argparse.ArgumentParser()
parser.add_argument("--config", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
total = 0
while True:  # simulate forever: the budget is someone else's problem
    total += 1
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return make_tiny_sim_data(tmp_path_factory.mktemp("sim-score") / "data")


def score_cli(repo: Path, corpus: Path) -> dict:
    done = subprocess.run([BAKEOFF, "score", str(repo), "--task", "simulation", "--corpus", str(corpus), "--json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_references_are_graded_alone_and_ordered(corpus, tmp_path):
    graded = {variant: score_cli(materialize_sim(variant, tmp_path / variant), corpus)
              for variant in ("sim_careless", "sim_careful", "sim_erlang_c")}
    for variant, report in graded.items():
        assert report["status"] == "scored" and report["rung"] == 5 and report["isolation"] == "docker", variant
        assert report["metrics"]["graded"] == 4 and report["metrics"]["failed"] == 0
        assert set(report["visible_result"]) == {"estimate", "ci_low", "ci_high"}
        assert set(report["bands"]) <= {"light", "medium", "heavy"}
        argv = report["steps"][-1]["argv"]
        assert argv[:4] == ["python", "-I", "-S", "-c"] and argv[5] == "1" and argv[7] == "simulate.py"  # CPU-capped at 1 s (argv[6]: the wall limit)
    winkler = {v: r["metrics"]["relative_winkler"] for v, r in graded.items()}
    assert winkler["sim_careful"] < winkler["sim_careless"] and winkler["sim_careful"] < winkler["sim_erlang_c"]
    assert graded["sim_careful"]["claim"]["claimed_wait"] == pytest.approx(graded["sim_careful"]["visible_result"]["estimate"], abs=1e-4)


def test_a_program_that_ignores_its_budget_is_stopped_by_it(corpus, tmp_path):
    repo = tmp_path / "spinning"
    repo.mkdir()
    (repo / "simulate.py").write_text(SPINNING, encoding="utf-8")
    report = score(task_plugin("simulation"), ScoreRequest(repo=repo, corpus=corpus, timeout_s=60))
    data = report.to_dict()
    assert data["status"] == "timeout" and data["stage"] == "simulate" and data["rung"] == 1
    assert data["detail"] == "simulate.py used its CPU-time budget"
    (step,) = [s for s in data["steps"] if s["purpose"] == "visible_simulate"]
    assert step["exit_code"] == 152 and not step["timed_out"] and step["duration_s"] < 30  # the cap, not the clock


def test_a_missing_simulation_and_a_training_option_are_named(corpus, tmp_path):
    from bakeoff.taskapi.plugin import OptionNotForTask

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("nothing here\n", encoding="utf-8")
    data = score(task_plugin("simulation"), ScoreRequest(repo=empty, corpus=corpus)).to_dict()
    assert data["status"] == "crashed" and data["crash_class"] == "file_not_found" and data["rung"] == 0
    with pytest.raises(OptionNotForTask, match="--train"):
        score(task_plugin("simulation"), ScoreRequest(repo=empty, corpus=corpus, train=True))
