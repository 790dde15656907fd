"""The Ray executor on a real two-node Ray cluster on this machine (CPU only, logical GPUs declared).

Two scripted models x two runs on the Docker sandbox: the Ray batch's records equal the local executor's
field by field (the fields docs/records.md exempts aside); a worker SIGKILLed in the middle of a stage is
retried by Ray and the run continues from its last handed-back stage; a killed driver started again
resumes the batch; a model file missing on the node is a named error in its run's record.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from deadline import Deadline
from executor_support import events, no_stage_twice, run_files, start_cluster, two_model_plan
from runner_support import REPO_ROOT, bakeoff_cli, make_tiny_corpus

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.ray]

RUNS = ("alpha-r01", "beta-r01", "alpha-r02", "beta-r02")
NODE = {"num_gpus": 2, "resources": {"bakeoff_docker": 1}}


@pytest.fixture(scope="module")
def cluster():
    started = start_cluster([NODE, NODE])
    try:
        yield started
    finally:
        started.shutdown()


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("ray")
    corpus = make_tiny_corpus(root / "corpus")
    plan = two_model_plan(root, corpus, runs=2)
    reference = root / "local"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(reference))
    assert done.returncode == 0, done.stderr
    return root, plan, reference


def _driver(plan: Path, out: Path, address: str) -> subprocess.Popen:
    command = [str(Path(sys.executable).parent / "bakeoff"), "run", "--no-probes", "--plan", str(plan),
               "--out", str(out), "--address", address]
    return subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wait_for(batch: Path, driver: subprocess.Popen, found) -> dict:
    deadline = Deadline()
    while driver.poll() is None and deadline.pending("the awaited event"):
        for entry in events(batch):
            if found(entry):
                return entry
        time.sleep(0.2)
    pytest.fail(f"the driver ended before the awaited event: {driver.stderr.read()[-2000:]}")


def test_ray_records_equal_the_local_executors(cluster, setup):
    root, plan, reference = setup
    out = root / "on-ray"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out), "--address", cluster.address)
    assert done.returncode == 0, done.stderr
    assert run_files(out, RUNS) == run_files(reference, RUNS)
    log = events(out)
    no_stage_twice(log)
    nodes = {e["node"] for e in log if e["event"] == "run_placed"}
    assert len(nodes) == 2, nodes  # both nodes ran runs
    # Submitted in the interleaved order.
    assert [e["run_id"] for e in log if e["event"] == "run_placed"][:2] in (list(RUNS[:2]), list(RUNS[1::-1]))
    shown = bakeoff_cli("status", str(out))
    assert shown.returncode == 0, shown.stderr
    assert "node" in shown.stdout and any(node.split("/")[1] in shown.stdout for node in nodes)


def _is_ray_worker(pid: int) -> bool:
    import psutil

    return any(parent.name() == "raylet" for parent in psutil.Process(pid).parents())


def test_a_worker_killed_mid_stage_is_retried_and_continues(cluster, setup):
    root, plan, reference = setup
    out = root / "worker-killed"
    driver = _driver(plan, out, cluster.address)
    try:
        started = _wait_for(out, driver, lambda e: e["event"] == "stage_started" and e.get("stage") == "implement")
        victim = started["run_id"]
        placed = [e for e in events(out) if e["event"] == "run_placed" and e["run_id"] == victim][-1]
        pid = placed["worker_pid"]
        assert _is_ray_worker(pid)  # found through the process tree: a child of a node's raylet
        time.sleep(2.0)  # inside implement: installing requirements and training in the sandbox
        os.kill(pid, signal.SIGKILL)
        assert driver.wait() == 0, driver.stderr.read()
    finally:
        if driver.poll() is None:
            driver.kill()
    log = events(out)
    attempts = [e["attempt"] for e in log if e["event"] == "run_placed" and e["run_id"] == victim]
    assert attempts == [1, 2], attempts  # Ray started it again
    retried = [e for e in log if e["event"] == "run_started" and e["run_id"] == victim]
    assert retried[-1]["resumed_after"] == ["explore", "decide"]  # from the driver's last stage
    no_stage_twice(log)
    assert run_files(out, RUNS) == run_files(reference, RUNS)
    left = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=org.bakeoff.run={victim}"],
                          capture_output=True, text=True, check=True)
    assert left.stdout.strip() == ""


def test_a_killed_driver_started_again_resumes_the_batch(cluster, setup):
    root, plan, reference = setup
    out = root / "driver-killed"
    driver = _driver(plan, out, cluster.address)
    try:
        _wait_for(out, driver, lambda e: e["event"] == "stage_done" and e.get("stage") == "implement")
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    finally:
        if driver.poll() is None:
            driver.kill()
    done_before = {(e["run_id"], e["stage"]) for e in events(out) if e["event"] == "stage_done"}
    assert done_before  # the first driver published stages before it died
    again = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out), "--address", cluster.address)
    assert again.returncode == 0, again.stderr
    log = events(out)
    no_stage_twice(log)
    assert run_files(out, RUNS) == run_files(reference, RUNS)


def test_a_model_file_missing_on_the_node_is_a_named_error(cluster, tmp_path, setup):
    root, _plan, _reference = setup
    plan = two_model_plan(tmp_path, root / "corpus", runs=1)
    (tmp_path / "beta.jsonl").unlink()  # no node has it
    out = tmp_path / "missing"
    # `bakeoff run` refuses such a plan before anything starts (its preflight, tests/test_preflight.py); a file
    # that is on the driver but not on a node is the executor's to name, so the batch runs here without one.
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.executors.ray_driver import RayExecutor
    from bakeoff.runner.executors.settings import ExecutorSettings
    from bakeoff.runner.plan import load_plan
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    executor = RayExecutor(ExecutorSettings(kind="ray", address=cluster.address))
    result = run_plan(load_plan(plan), BatchOptions(out_dir=out, wheelhouse=default_wheelhouse(), executor=executor,
                                                    preflight=None))
    assert result.failed == 1
    import json

    alpha = json.loads((out / "runs" / "alpha-r01" / "run.json").read_text())
    beta = json.loads((out / "runs" / "beta-r01" / "run.json").read_text())
    assert alpha["status"] == "finished" and alpha["outcome"]["status"] == "scored"
    assert beta["status"] == "harness_failed"
    assert beta["error"].startswith("ModelFileMissingOnNode: node ") and "beta.jsonl" in beta["error"]
