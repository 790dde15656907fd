"""`bakeoff score REPO --task ab_test` on real Docker: the three reference analyses come out ordered as
calibration orders them, and a crashing analysis is a named failure with its traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bakeoff.tasks import ScoreRequest, score, task_plugin
from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test.calibration import materialize_ab
from generators.secret import Secret

pytestmark = [pytest.mark.docker, pytest.mark.slow]

BAKEOFF = str(Path(sys.executable).with_name("bakeoff"))
# The calibration test's small setting: the fault's bias is several standard errors, so the order holds on 8.
SMALL = AbParams(seed=3, users=400, experiments=8, holdout_users=3000, holdout_size_spread=2.0, base_rate=0.2,
                 fault_days=4, fault_other_share=0.0)

CRASHING = """
import argparse
import pandas as pd
parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
frame = pd.read_csv(args.input)
print("rows", len(frame))
rate = frame.groupby("arm")["converted"].mean()
raise ValueError(f"no idea what to do with {len(rate)} arms")
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ab-score") / "data"
    generate_ab_data(SMALL, folder, secret=Secret.public())
    return folder


def score_cli(repo: Path, corpus: Path) -> dict:
    done = subprocess.run([BAKEOFF, "score", str(repo), "--task", "ab_test", "--corpus", str(corpus), "--json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_references_are_graded_alone_and_ordered_as_calibration_orders_them(corpus, tmp_path):
    graded = {}
    for variant in ("ab_careless", "ab_half", "ab_careful"):
        repo = materialize_ab(variant, tmp_path / variant)
        graded[variant] = score_cli(repo, corpus)
    for variant, report in graded.items():
        assert report["status"] == "scored" and report["rung"] == 5 and report["isolation"] == "docker", variant
        assert report["metrics"]["graded"] == 8 and report["metrics"]["failed"] == 0
        assert report["visible_result"]["ci_low"] <= report["visible_result"]["ci_high"]
    width = {v: r["metrics"]["mean_width"] for v, r in graded.items()}
    winkler = {v: r["metrics"]["winkler"] for v, r in graded.items()}
    assert width["ab_careless"] < min(width["ab_half"], width["ab_careful"])  # careless: the narrowest
    assert winkler["ab_careful"] < min(winkler["ab_careless"], winkler["ab_half"])  # careful: the best score
    assert not (tmp_path / "ab_careful" / ".bakeoff").exists()  # the folder itself is never written
    # The unit probe's verdict is part of the score: by user, by visit, and a data-free answer is neither.
    assert {v: r["unit_probe"]["unit"] for v, r in graded.items()} == {
        "ab_careless": "visit", "ab_half": "user", "ab_careful": "user"}
    constant = score_cli(materialize_ab("ab_constant", tmp_path / "ab_constant", corpus=corpus), corpus)
    assert constant["status"] == "scored" and constant["unit_probe"]["unit"] == "data_free"


def test_a_crashing_analysis_is_a_named_failure_with_its_traceback(corpus, tmp_path):
    repo = tmp_path / "crashing"
    repo.mkdir()
    (repo / "analyze.py").write_text(CRASHING, encoding="utf-8")
    (repo / "requirements.txt").write_text("pandas\n", encoding="utf-8")
    report = score(task_plugin("ab_test"), ScoreRequest(repo=repo, corpus=corpus, timeout_s=120))
    data = report.to_dict()
    assert data["status"] == "crashed" and data["crash_class"] == "value_error" and data["stage"] == "analyze"
    assert data["rung"] == 1  # installed; the visible analysis failed, so no hidden experiment was run
    assert "no idea what to do with 2 arms" in data["traceback_tail"]
    assert [step["purpose"] for step in data["steps"]] == ["visible_analyze"]
    text = report.format_text()
    assert "status: crashed" in text and "crash: value_error" in text and "ValueError: no idea" in text


def test_a_missing_analysis_and_a_training_option_are_named(corpus, tmp_path):
    from bakeoff.taskapi.plugin import OptionNotForTask

    empty = tmp_path / "empty"
    empty.mkdir()
    data = score(task_plugin("ab_test"), ScoreRequest(repo=empty, corpus=corpus)).to_dict()
    assert data["status"] == "crashed" and data["crash_class"] == "file_not_found" and data["rung"] == 0
    with pytest.raises(OptionNotForTask, match="--train"):
        score(task_plugin("ab_test"), ScoreRequest(repo=empty, corpus=corpus, train=True))


def test_the_truth_of_ab_test_is_refused_as_a_mount(corpus, tmp_path):
    from sandbox.base import Mount, SandboxSpec
    from sandbox.errors import SandboxError
    from sandbox.factory import open_sandbox

    workspace = tmp_path / "ws"
    workspace.mkdir()
    for secret in (corpus / "holdout_truth.csv", corpus / "truth.json", corpus):
        spec = SandboxSpec(workspace=workspace, mounts=(Mount(secret, "/secret", read_only=True),))
        with pytest.raises(SandboxError, match="never enters a sandbox"):
            with open_sandbox("docker", spec):
                pass
