"""A native crash of the engine never takes a batch down: real batches on the real default model, real signals.

The batch is the real `bakeoff run` command in its own process; the test finds
the llama.cpp engine under it through the process tree (psutil) and sends it
SIGSEGV, as a crashing build or the OOM killer would.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from deadline import Deadline
from engine_support import EngineKiller, engine_children, segfault_when_busy
from runner_support import (
    REPO_ROOT,
    answers,
    bakeoff_cli,
    implementation,
    make_tiny_corpus,
    stage_records,
    write_script,
)

from bakeoff.models.gguf import MAX_CONSECUTIVE_CRASHES

pytestmark = [pytest.mark.llama, pytest.mark.slow, pytest.mark.docker]

# Small budgets keep the runs short; decide gets room enough to be mid-generation when the signal comes.
TASK_SETTINGS = """[task_settings]
smoke_rows = 50
repair_turns = 0
context_tokens = 4096
[task_settings.max_tokens]
explore = 64
decide = 300
implement = 200
repair = 64
docs = 32
[task_settings.reasoning_tokens]
explore = 0
decide = 0
implement = 0
repair = 0
docs = 0
[task_settings.timeouts_s]
explore = 60
train = 120
predict = 60
"""


def write_plan(path: Path, corpus: Path, models: str, runs: int, settings: str = TASK_SETTINGS) -> Path:
    path.write_text(
        f'runs = {runs}\ncorpus = "{corpus}"\nsandbox = "docker"\nseed = 1\nmodels = [{models}]\n'
        "[limits]\nmemory_mb = 2048\ncpus = 1.0\n" + settings,
        encoding="utf-8",
    )
    return path


def start_batch(plan: Path, out: Path) -> subprocess.Popen:
    """`bakeoff run` in its own process; its output goes to files (a pipe nobody reads could stall it)."""
    command = [str(Path(sys.executable).parent / "bakeoff"), "run", "--plan", str(plan), "--out", str(out), "--no-probes"]
    with open(plan.parent / "batch.log", "w", encoding="utf-8") as log:  # the child keeps its own copy
        return subprocess.Popen(command, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, text=True)


def finish(process: subprocess.Popen, plan: Path) -> str:
    process.wait()
    return (plan.parent / "batch.log").read_text(encoding="utf-8")


def wait_for_event(batch: Path, process: subprocess.Popen, **wanted) -> None:
    """Until events.jsonl has an event with these fields (or the batch ended without one)."""
    events, deadline = batch / "events.jsonl", Deadline()
    while process.poll() is None and deadline.pending(f"an event {wanted}"):
        if events.is_file():
            for line in events.read_text(encoding="utf-8").splitlines():
                event = json.loads(line)
                if all(event.get(key) == value for key, value in wanted.items()):
                    return
        time.sleep(0.05)
    raise AssertionError(f"the batch ended before {wanted}: {(batch.parent / 'batch.log').read_text()}")


def capture_rows(batch: Path) -> list[dict]:
    report = bakeoff_cli("report", str(batch))
    assert report.returncode == 0, report.stderr
    with open(batch / "report" / "tables" / "capture_reasons.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_segfault_mid_stage_loses_one_turn_and_the_batch_goes_on(tmp_path):
    corpus = make_tiny_corpus(tmp_path / "corpus")
    batch = tmp_path / "batch"
    process = start_batch(write_plan(tmp_path / "plan.toml", corpus, '"default"', runs=2), batch)
    wait_for_event(batch, process, event="stage_started", run_id="default-r01", stage="decide")
    (engine,) = engine_children(process.pid)
    assert segfault_when_busy(engine)  # in the middle of the decide answer
    output = finish(process, tmp_path / "plan.toml")
    assert process.returncode == 0, output  # the batch exits normally

    run_dir = batch / "runs" / "default-r01"
    stages = {record["stage"]: record for record in stage_records(run_dir)}
    decide = stages["decide"]
    assert (decide["capture"]["status"], decide["capture"]["reason"]) == ("uncaptured", "backend_crash")
    assert "SIGSEGV" in decide["completion"]["error"] and decide["completion"]["error_kind"] == "backend_crash"
    assert decide["attribution"] == "uncaptured"
    # The next turn of the same run: answered by a restarted engine (a new process, the model reloaded).
    implement = stages["implement"]
    assert implement["completion"]["error"] is None and implement["completion"]["completion_tokens"] > 0
    assert implement["completion"]["model_info"]["engine_starts"] == 2
    assert implement["completion"]["model_info"]["engine_pid"] != engine.pid
    assert json.loads((run_dir / "run.json").read_text())["status"] == "finished"
    # The second run of the batch finishes, untouched.
    second = json.loads((batch / "runs" / "default-r02" / "run.json").read_text())
    assert second["status"] == "finished" and second["capture"]["calls"] >= 4
    assert all(r["capture"]["reason"] != "backend_crash" for r in stage_records(batch / "runs" / "default-r02")
               if r.get("capture"))
    # The report's capture columns say what happened.
    rows = capture_rows(batch)
    crash = [row for row in rows if row["reason"] == "backend_crash"]
    assert crash == [{**crash[0], "model": "default", "status": "uncaptured", "calls": "1"}]
    assert "backend_crash" in (batch / "report" / "report.md").read_text()


def test_an_engine_that_crashes_on_every_turn_fails_its_runs_fast_and_the_other_model_finishes(tmp_path):
    corpus = make_tiny_corpus(tmp_path / "corpus")
    script = write_script(tmp_path / "answers.jsonl", answers(implementation()))
    models = f'"default", {{ spec = "scripted:{script}", label = "scripted" }}'
    batch = tmp_path / "batch"
    process = start_batch(write_plan(tmp_path / "plan.toml", corpus, models, runs=1), batch)
    # After the preflight (its own engine must live): from the first stage on, every engine dies as it appears.
    wait_for_event(batch, process, event="stage_started", run_id="default-r01", stage="explore")
    with EngineKiller(process.pid) as killer:
        output = finish(process, tmp_path / "plan.toml")
    assert process.returncode == 0, output

    crashed = {record["stage"]: record for record in stage_records(batch / "runs" / "default-r01")}
    kinds = [(r.get("completion") or {}).get("error_kind") for r in crashed.values() if r.get("completion")]
    assert kinds and set(kinds) == {"backend_crash"}
    assert len(kinds) > MAX_CONSECUTIVE_CRASHES  # turns after the third crash were failed too ...
    fast = [r["completion"] for r in crashed.values() if "consecutive turns" in ((r.get("completion") or {}).get("error") or "")]
    assert fast and all(c["generation_seconds"] == 0.0 for c in fast)  # ... at once, with no engine started
    assert len(killer.killed) <= MAX_CONSECUTIVE_CRASHES + 1  # the first one may have died between turns
    assert json.loads((batch / "runs" / "default-r01" / "run.json").read_text())["status"] == "finished"

    other = json.loads((batch / "runs" / "scripted-r01" / "run.json").read_text())
    assert other["status"] == "finished" and other["outcome"]["status"] == "scored"
    assert other["capture"]["uncaptured"] == 0
    rows = capture_rows(batch)
    assert {(row["model"], row["reason"]) for row in rows if row["status"] == "uncaptured"} == {("default", "backend_crash")}
