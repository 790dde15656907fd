"""`--executor ray` without an address starts a local Ray cluster on loopback (127.0.0.1), not on the machine's
interface address: every node a run is placed on says so in its `run_placed` event."""

from __future__ import annotations

import pytest
from executor_support import LOOPBACK, events, two_model_plan
from runner_support import bakeoff_cli, make_tiny_corpus

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.ray]


def test_the_local_cluster_of_executor_ray_is_on_loopback(tmp_path):
    corpus = make_tiny_corpus(tmp_path / "corpus")
    plan = two_model_plan(tmp_path, corpus, runs=1)
    out = tmp_path / "batch"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out), "--executor", "ray")
    assert done.returncode == 0, done.stderr[-2000:]
    placed = [entry for entry in events(out) if entry["event"] == "run_placed"]
    assert {entry["run_id"] for entry in placed} == {"alpha-r01", "beta-r01"}
    assert {entry["node_ip"] for entry in placed} == {LOOPBACK}
