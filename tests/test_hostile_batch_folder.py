"""A hostile batch folder, round 2 (issue 23 rows 9, 10, 11): the lock is never followed, a record nested past any
reason is a named damaged record, and what is kept of a workspace is read without following a link."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from analysis_factory import FakeRun, write_batch
from runner_support import make_tiny_corpus, write_script

from bakeoff.batchfolder.lock import BatchLockUnusable, batch_lock
from bakeoff.taskapi.workspace import keep_output

BAKEOFF = str(Path(sys.executable).with_name("bakeoff"))


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([BAKEOFF, *args], capture_output=True, text=True, check=False, timeout=300)


def test_a_lock_that_is_a_link_to_another_file_is_refused_and_the_file_untouched(tmp_path):
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me\n", encoding="utf-8")
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / "batch.lock").symlink_to(outside)
    with pytest.raises(BatchLockUnusable, match="batch.lock"):
        with batch_lock(batch):
            pass
    assert outside.read_text(encoding="utf-8") == "keep me\n"


def test_a_lock_that_is_a_folder_is_a_named_error(tmp_path):
    batch = tmp_path / "batch"
    (batch / "batch.lock").mkdir(parents=True)
    with pytest.raises(BatchLockUnusable):
        with batch_lock(batch):
            pass


def test_bakeoff_run_says_so_for_a_linked_lock(tmp_path):
    """A real corpus, so that the run gets as far as the lock (the preflight takes it first, before the model)."""
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me\n", encoding="utf-8")
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / "batch.lock").symlink_to(outside)
    corpus = make_tiny_corpus(tmp_path / "corpus")
    script = write_script(tmp_path / "answers.jsonl", [{"key": "explore#1", "text": "no code"}])  # a model that is there
    done = _cli("run", "--model", f"scripted:{script}", "--corpus", str(corpus), "--runs", "1", "--out", str(batch))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "is not the batch's lock file" in done.stderr and str(batch / "batch.lock") in done.stderr, done.stderr
    assert outside.read_text(encoding="utf-8") == "keep me\n"


def test_a_lock_file_of_our_own_is_taken_and_says_who_holds_it(tmp_path):
    with batch_lock(tmp_path):
        note = json.loads((tmp_path / "batch.lock").read_text(encoding="utf-8"))
    assert set(note) == {"pid", "host", "started_at"}


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_a_run_record_nested_100000_levels_is_a_named_error_in_status_and_report(tmp_path):
    batch = write_batch(tmp_path / "batch", [FakeRun("m", 1)])
    run_json = batch / "runs" / "m-r01" / "run.json"
    data = json.loads(run_json.read_text(encoding="utf-8"))
    text = json.dumps(data)[:-1] + ', "deep": ' + _deep(100_000) + "}"
    run_json.write_text(text, encoding="utf-8")
    for command in ("status", "report"):
        done = _cli(command, str(batch))
        assert done.returncode != 0, (command, done.stdout)
        assert "RecursionError" not in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert "m-r01" in done.stderr and "nests" in done.stderr


def test_a_run_record_that_is_a_link_is_damaged_in_status_and_report_not_followed(tmp_path):
    batch = write_batch(tmp_path / "batch", [FakeRun("m", 1)])
    run_json = batch / "runs" / "m-r01" / "run.json"
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(run_json.read_bytes())  # a valid record: following the link would read it as the run's
    run_json.unlink()
    run_json.symlink_to(elsewhere)
    for command in ("status", "report"):
        done = _cli(command, str(batch))
        assert done.returncode != 0, (command, done.stdout)
        assert "Traceback" not in done.stderr, done.stderr
        assert "m-r01" in done.stderr and "symbolic link where a record should be" in done.stderr, (command, done.stderr)


def test_kept_output_is_never_read_through_a_link(tmp_path):
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / ".bakeoff").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.csv").write_text("the answer key\n", encoding="utf-8")
    (workspace / ".bakeoff" / "out.csv").symlink_to(outside / "secret.csv")
    kept = tmp_path / "kept" / "out.csv"
    keep_output(workspace, ".bakeoff/out.csv", kept)
    assert not kept.exists() and (outside / "secret.csv").read_text(encoding="utf-8") == "the answer key\n"
    assert not (workspace / ".bakeoff" / "out.csv").is_symlink()  # the planted link is gone, its target stays
