"""A batch folder under attack: two writers, a corpus changed under it, damaged records, a full disk.

Real processes (the `bakeoff` command), real bwrap, and a real size-limited tmpfs mounted and
unmounted by the test (CI runs as root). A scripted explore.py waits for a file the test creates,
so the test knows a batch is busy without any clock.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from deadline import Deadline
from runner_support import DESIGN, PREDICT_ZERO, README, REPO_ROOT, bakeoff_cli, fenced, make_tiny_corpus, write_script

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

WAITING_EXPLORE = fenced("explore.py", """
import os, time
while not os.path.exists("release"):  # the test creates it once it has looked at the busy batch
    time.sleep(0.05)
print("released")
""")
QUICK_EXPLORE = fenced("explore.py", 'print("rows")')
IMPLEMENT = "Code:\n\n" + fenced("train.py", 'open("model.txt", "w").write("0")\nprint("EXPECTED_F1: 0.5")') + (
    "\n" + fenced("predict.py", PREDICT_ZERO))


def _answers(explore: str) -> list[dict]:
    return [{"key": "explore#1", "text": explore}, {"key": "decide#1", "text": DESIGN},
            {"key": "implement#1", "text": IMPLEMENT}, {"key": "docs#1", "text": README}]


def _plan(path: Path, corpus: Path, models: list[tuple[str, Path]], runs: int = 1) -> Path:
    entries = ", ".join(f'{{ spec = "scripted:{script}", label = "{label}" }}' for label, script in models)
    path.write_text(
        f'runs = {runs}\ncorpus = "{corpus}"\nsandbox = "bwrap"\nmodels = [{entries}]\n'
        "[task_settings]\nsmoke_rows = 20\n[task_settings.timeouts_s]\nexplore = 600\n", encoding="utf-8")
    return path


def _start(plan: Path, out: Path) -> subprocess.Popen:
    command = [str(Path(sys.executable).parent / "bakeoff"), "run", "--no-probes", "--plan", str(plan), "--out", str(out)]
    return subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_explore(out: Path, run_id: str, process: subprocess.Popen) -> None:
    """Until the batch has started `run_id`'s explore stage (or died, which fails the test)."""
    journal, deadline = out / "events.jsonl", Deadline()
    while process.poll() is None and deadline.pending(f"{run_id}'s explore stage"):
        if journal.is_file() and any(
            json.loads(line).get("event") == "stage_started" and json.loads(line).get("run_id") == run_id
            for line in journal.read_text().splitlines() if line.strip()
        ):
            return
        time.sleep(0.05)
    raise AssertionError(f"the batch ended before {run_id} started: {process.communicate()}")


def _release(out: Path, run_id: str) -> None:
    (out / "runs" / run_id / "repo" / "release").write_text("go")


def _no_traceback(done) -> None:
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make_tiny_corpus(tmp_path_factory.mktemp("hostile-batch") / "corpus")


@pytest.fixture(scope="module")
def finished(tmp_path_factory, corpus):
    """A finished one-run batch (the damaged-record cases each damage a copy of it)."""
    root = tmp_path_factory.mktemp("finished")
    plan = _plan(root / "plan.toml", corpus, [("m", write_script(root / "m.jsonl", _answers(QUICK_EXPLORE)))])
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(root / "batch"))
    assert done.returncode == 0, done.stderr
    return plan, root / "batch"


# --- 6. one batch folder, one writer ----------------------------------------------------------------------------

def test_a_second_writer_is_refused_saying_who_holds_the_folder_and_status_still_works(tmp_path, corpus):
    plan = _plan(tmp_path / "plan.toml", corpus, [("m", write_script(tmp_path / "m.jsonl", _answers(WAITING_EXPLORE)))])
    out = tmp_path / "batch"
    first = _start(plan, out)
    try:
        _wait_for_explore(out, "m-r01", first)
        # A second writer that got past the lock would wait on explore like the first: the kill hook ends it at
        # its first durable write instead (a refused one makes none), so the test fails rather than waits.
        second = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out),
                             env_extra={"BAKEOFF_KILL_AFTER_WRITES": "1"})
        assert second.returncode != 0
        assert second.stderr.startswith("error: BatchLocked:")
        assert f"pid {first.pid} on host {os.uname().nodename}" in second.stderr and "running since" in second.stderr
        _no_traceback(second)
        status = bakeoff_cli("status", str(out))
        assert status.returncode == 0, status.stderr
        assert "in_progress" in status.stdout and "explore" in status.stdout
        _release(out, "m-r01")
        stdout, stderr = first.communicate()
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, stderr
    record = json.loads((out / "runs" / "m-r01" / "run.json").read_text())
    assert record["status"] == "finished" and record["outcome"]["status"] == "scored"
    started = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert [e["stage"] for e in started if e["event"] == "stage_started"].count("explore") == 1
    again = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out))  # the lock went with its holder
    assert again.returncode == 0, again.stderr


# --- 7. the corpus cannot change under a batch -------------------------------------------------------------------

def test_an_answer_key_flipped_mid_batch_stops_the_batch_before_the_next_run(tmp_path, corpus):
    own = tmp_path / "corpus"
    shutil.copytree(corpus, own)
    script = write_script(tmp_path / "m.jsonl", _answers(WAITING_EXPLORE) + _answers(QUICK_EXPLORE))
    plan = _plan(tmp_path / "plan.toml", own, [("m", script)], runs=2)
    out = tmp_path / "batch"
    batch = _start(plan, out)
    try:
        _wait_for_explore(out, "m-r01", batch)
        key = own / "holdout_answers.csv"
        lines = key.read_text().splitlines()
        flipped = [lines[0]] + [f"{row.split(',')[0]},{1 - int(row.split(',')[1])}" for row in lines[1:]]
        key.write_text("\n".join(flipped) + "\n")
        _release(out, "m-r01")
        stdout, stderr = batch.communicate()
    finally:
        if batch.poll() is None:
            batch.kill()
    assert batch.returncode != 0
    assert "error: CorpusChanged:" in stderr and "holdout_answers.csv" in stderr
    recorded = json.loads((out / "batch.json").read_text())["corpus_sha256"]
    assert set(recorded) == {"train.csv", "holdout.csv", "holdout_answers.csv", "excerpt.txt", "manifest.json"}
    assert not (out / "runs" / "m-r02").exists()  # the second run never started on the changed key
    again = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out))
    assert again.returncode != 0 and "error: CorpusChanged:" in again.stderr
    _no_traceback(again)


# --- 8. damaged records are messages -----------------------------------------------------------------------------

def _copy(finished, tmp_path) -> Path:
    shutil.copytree(finished[1], tmp_path / "batch", symlinks=True)
    return tmp_path / "batch"


@pytest.mark.parametrize("content", [os.urandom(64), b"[]", b'{"schema": "bakeoff.batch/1"}', b'{"order": 3, "pl'],
                         ids=["random", "list", "missing_keys", "truncated"])
def test_a_damaged_batch_json_is_a_named_error_from_every_command(finished, tmp_path, content):
    batch = _copy(finished, tmp_path)
    (batch / "batch.json").write_bytes(content)
    commands = [("run", "--no-probes", "--plan", str(finished[0]), "--out", str(batch)), ("status", str(batch)),
                ("report", str(batch)), ("analyze", "--no-probe", "--retrain-seeds", "0", str(batch))]
    for command in commands:
        done = bakeoff_cli(*command)
        assert done.returncode != 0, command
        assert done.stderr.startswith("error: ") and "batch.json is damaged" in done.stderr, (command, done.stderr)
        assert str(batch / "batch.json") in done.stderr
        _no_traceback(done)


def test_a_truncated_run_record_is_named_by_status_and_report_and_summed_up_again_by_run(finished, tmp_path):
    batch = _copy(finished, tmp_path)
    run_json = batch / "runs" / "m-r01" / "run.json"
    whole = json.loads(run_json.read_text())
    run_json.write_text(run_json.read_text()[:100])
    for command in (("status", str(batch)), ("report", str(batch))):
        done = bakeoff_cli(*command)
        assert done.returncode != 0 and f"{run_json} is damaged: not valid JSON (cut short?)" in done.stderr, done.stderr
        _no_traceback(done)
    before = len((batch / "events.jsonl").read_text().splitlines())
    done = bakeoff_cli("run", "--no-probes", "--plan", str(finished[0]), "--out", str(batch))
    assert done.returncode == 0, done.stderr
    assert json.loads(run_json.read_text())["outcome"] == whole["outcome"]
    new_events = [json.loads(line)["event"] for line in (batch / "events.jsonl").read_text().splitlines()[before:]]
    assert "stage_started" not in new_events  # every stage record was whole: nothing is executed again


def test_a_damaged_stage_record_of_an_unfinished_run_is_done_again(finished, tmp_path):
    batch = _copy(finished, tmp_path)
    run_dir = batch / "runs" / "m-r01"
    (run_dir / "run.json").unlink()
    evaluate = run_dir / "stages" / "5-evaluate.json"
    evaluate.write_bytes(evaluate.read_bytes()[:-40])
    done = bakeoff_cli("status", str(batch))
    assert done.returncode == 0 and "in_progress" in done.stdout, done.stderr
    before = len((batch / "events.jsonl").read_text().splitlines())
    done = bakeoff_cli("run", "--no-probes", "--plan", str(finished[0]), "--out", str(batch))
    assert done.returncode == 0, done.stderr
    new = [json.loads(line) for line in (batch / "events.jsonl").read_text().splitlines()[before:]]
    assert [e["stage"] for e in new if e["event"] == "stage_started"] == ["evaluate", "docs"]
    assert json.loads(evaluate.read_text())["attribution"] == "ok"
    assert json.loads((run_dir / "run.json").read_text())["status"] == "finished"


def test_a_truncated_stage_record_of_a_finished_run_is_named_by_report(finished, tmp_path):
    batch = _copy(finished, tmp_path)
    explore = batch / "runs" / "m-r01" / "stages" / "1-explore.json"
    explore.write_text(explore.read_text()[:50])
    done = bakeoff_cli("report", str(batch))
    # its only run is damaged: no rest of the batch to publish, so the batch is refused, naming the record
    assert done.returncode != 0 and f"error: BatchFolderError: no run of {batch} can be read" in done.stderr
    assert f"{explore} is damaged" in done.stderr, done.stderr
    _no_traceback(done)


# --- 8. a full disk -----------------------------------------------------------------------------------------------

class Tmpfs:
    """A size-limited tmpfs mounted for one test and unmounted after it."""

    def __init__(self, point: Path, size: str) -> None:
        point.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(point)], check=True)
        self.point = point

    def close(self) -> None:
        subprocess.run(["umount", "-l", str(self.point)], check=True)


@pytest.fixture
def small_disk(tmp_path):
    disks: list[Tmpfs] = []

    def make(size: str) -> Path:
        disks.append(Tmpfs(tmp_path / f"disk{len(disks)}", size))
        return disks[-1].point

    yield make
    for disk in disks:
        disk.close()


def _fill(folder: Path, leave_bytes: int) -> None:
    stats = os.statvfs(folder)
    free = stats.f_bavail * stats.f_frsize
    with open(folder / "filler", "wb") as handle:
        handle.write(b"\0" * max(0, free - leave_bytes))


def _every_record_is_whole(folder: Path) -> None:
    for path in folder.rglob("*.json"):
        if ".git" not in path.parts:
            json.loads(path.read_text(encoding="utf-8"))
    assert not [p for p in folder.rglob("*.tmp") if ".git" not in p.parts]


def test_a_full_batch_folder_disk_stops_with_a_named_error_and_keeps_what_was_written(tmp_path, corpus, small_disk):
    disk = small_disk("4m")
    plan = _plan(tmp_path / "plan.toml", corpus, [("m", write_script(tmp_path / "m.jsonl", _answers(QUICK_EXPLORE)))])
    out = disk / "batch"
    _fill(disk, 48 * 1024)
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out))
    assert done.returncode != 0
    assert "error: OutOfDisk: no space left on the disk holding " + str(out) in done.stderr, done.stderr
    _no_traceback(done)
    _every_record_is_whole(out)
    (disk / "filler").unlink()  # room again: the batch continues and finishes
    again = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "runs" / "m-r01" / "run.json").read_text())["status"] == "finished"


FILLING_EXPLORE = fenced("explore.py", """
import os
written = 0
try:
    with open("big.bin", "wb") as handle:
        while True:
            handle.write(os.urandom(1 << 20))
            handle.flush()
            written += 1
except OSError as exc:
    print("stopped after", written, "MiB:", exc)
""")


def test_a_run_that_fills_the_disk_is_its_own_failure_and_the_next_model_runs(tmp_path, corpus, small_disk):
    disk = small_disk("48m")
    plan = _plan(tmp_path / "plan.toml", corpus, [
        ("filler", write_script(tmp_path / "filler.jsonl", _answers(FILLING_EXPLORE))),
        ("fine", write_script(tmp_path / "fine.jsonl", _answers(QUICK_EXPLORE))),
    ])
    out = disk / "batch"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out))
    assert done.returncode == 0, done.stderr
    filler = json.loads((out / "runs" / "filler-r01" / "run.json").read_text())
    fine = json.loads((out / "runs" / "fine-r01" / "run.json").read_text())
    assert filler["status"] == "finished", filler["error"]  # the model's failure, not the harness's
    assert fine["status"] == "finished" and fine["outcome"]["status"] == "scored"
    assert not (out / "runs" / "filler-r01" / "repo" / "big.bin").exists()
    explore = json.loads((out / "runs" / "filler-r01" / "stages" / "1-explore.json").read_text())
    assert (explore["attribution"], explore["attribution_reason"]) == ("model_error", "disk_full")
    assert filler["outcome"]["crash_class"] == "disk_full" and filler["outcome"]["failed_step"] == "explore"
    assert [stage["stage"] for stage in filler["stages"]] == ["explore"]  # the run ended there
    _every_record_is_whole(out)


# --- 9. bad input everywhere is `error: Name: message` -------------------------------------------------------------

PLAN_TAIL = 'corpus = "c"\nmodels = ["scripted:/nowhere.jsonl"]\n'


@pytest.mark.parametrize("content, name", [
    (os.urandom(200) + b"\xff", "PlanError"),
    (("runs = 1\n" + PLAN_TAIL).encode("utf-16"), "PlanError"),
    (("runs = 100000000\n" + PLAN_TAIL).encode(), "PlanError"),
    (("runs = 100000000000000000000\n" + PLAN_TAIL).encode(), "PlanError"),
    (("runs = 10^20\n" + PLAN_TAIL).encode(), "PlanError"),
    (("runs = 1\n" + PLAN_TAIL + "[model_options]\nn_ctxx = 4096\n").encode(), "PlanError"),
    (("runs = 1\n" + PLAN_TAIL + "[limits]\nmemory_mb = 100000000000000000\n").encode(), "PlanError"),
], ids=["random_bytes", "utf16", "runs_1e8", "runs_1e20", "runs_caret", "unknown_model_option", "huge_limit"])
def test_a_bad_plan_is_a_named_error(tmp_path, content, name):
    plan = tmp_path / "plan.toml"
    plan.write_bytes(content)
    done = bakeoff_cli("run", "--plan", str(plan), "--out", str(tmp_path / "out"))
    assert done.returncode != 0 and done.stderr.startswith(f"error: {name}:"), done.stderr
    _no_traceback(done)
    if b"n_ctxx" in content:
        assert "n_ctxx" in done.stderr


def test_unusable_out_and_wheelhouse_folders_are_named_errors(tmp_path, corpus):
    plan = _plan(tmp_path / "plan.toml", corpus, [("m", write_script(tmp_path / "m.jsonl", _answers(QUICK_EXPLORE)))])
    done = bakeoff_cli("run", "--plan", str(plan), "--out", "/proc/xx")
    assert done.returncode != 0 and done.stderr.startswith("error: BatchFolderUnusable: cannot use /proc/xx"), done.stderr
    _no_traceback(done)
    done = bakeoff_cli("run", "--plan", str(plan), "--out", str(tmp_path / "out"), "--wheelhouse", "/proc/x")
    assert done.returncode != 0 and done.stderr.startswith("error: WheelhouseUnusable: cannot use /proc/x"), done.stderr
    _no_traceback(done)


def test_a_corpus_too_big_for_memory_is_refused_before_allocating(tmp_path):
    done = bakeoff_cli("generate", "--rows", "100000000000000", "--out", str(tmp_path / "c"))
    assert done.returncode != 0 and done.stderr.startswith("error: NotEnoughMemory:"), done.stderr
    assert "GiB" in done.stderr
    _no_traceback(done)
    assert not (tmp_path / "c").exists()


def test_the_cli_bound_on_runs_is_the_plan_bound():
    from bakeoff.cli.batch import MAX_RUNS
    from bakeoff.runner import plan

    assert MAX_RUNS == plan.MAX_RUNS


def test_analyze_with_an_unusable_wheelhouse_is_a_named_error(finished):
    done = bakeoff_cli("analyze", "--no-probe", "--retrain-seeds", "0", "--wheelhouse", "/proc/x", str(finished[1]))
    assert done.returncode != 0 and done.stderr.startswith("error: WheelhouseUnusable: cannot use /proc/x"), done.stderr
    _no_traceback(done)
