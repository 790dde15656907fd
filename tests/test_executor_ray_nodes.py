"""A node that cannot run a run (its sandbox image is missing) is a named error in that run's record.

Two nodes advertise the Docker sandbox; the second names an image tag its engine does not have (as a
node whose image was removed after it joined would). Every run placed there fails its node check with
SandboxMissingOnNode before anything starts; the runs on the healthy node finish.
"""

from __future__ import annotations

import json

import pytest
from executor_support import events, start_cluster, two_model_plan
from runner_support import bakeoff_cli, make_tiny_corpus

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.ray]


@pytest.fixture(scope="module")
def cluster():
    healthy = {"num_gpus": 1, "resources": {"bakeoff_docker": 1}}
    imageless = {**healthy, "env_vars": {"BAKEOFF_SANDBOX_IMAGE": "bakeoff-sandbox:not-on-this-node"}}
    started = start_cluster([healthy, imageless])
    try:
        yield started
    finally:
        started.shutdown()


def test_a_node_without_the_sandbox_image_fails_its_runs_by_name(cluster, tmp_path):
    corpus = make_tiny_corpus(tmp_path / "corpus")
    plan = two_model_plan(tmp_path, corpus, runs=1)
    out = tmp_path / "batch"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out), "--address", cluster.address)
    assert done.returncode == 4, done.stderr  # the runs on the bad node harness-failed (docs/running.md)
    bad = next(iter(cluster.worker_nodes)).node_id[:8]
    placed = {e["run_id"]: e["node"] for e in events(out) if e["event"] == "run_placed"}
    records = {run_id: json.loads((out / "runs" / run_id / "run.json").read_text()) for run_id in placed}
    on_bad = [run_id for run_id, node in placed.items() if node.endswith(bad)]
    on_good = [run_id for run_id, node in placed.items() if not node.endswith(bad)]
    assert on_bad and on_good, placed
    for run_id in on_bad:
        assert records[run_id]["status"] == "harness_failed"
        assert records[run_id]["error"].startswith("SandboxMissingOnNode: node "), records[run_id]["error"]
        assert "bakeoff-sandbox:not-on-this-node" in records[run_id]["error"]
        assert not (out / "runs" / run_id / "stages").exists()  # nothing ran there
    for run_id in on_good:
        assert records[run_id]["status"] == "finished" and records[run_id]["outcome"]["status"] == "scored"
