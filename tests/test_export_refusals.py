"""`bakeoff export` refuses what it must: a running or unfinished batch (unless --partial, which then marks
it), an output folder inside the batch or already taken, and a format whose extra is not installed.
bakeoff itself imports and reports without the extras.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from analysis_factory import FakeRun, write_batch
from export_support import tree_digest
from runner_support import REPO_ROOT, bakeoff_cli

BLOCK_EXTRAS = "import sys\nfor name in ('inspect_ai', 'every_eval_ever', 'jsonschema'):\n    sys.modules[name] = None\n"


def _batch(folder: Path, failed: bool = False, running: bool = False) -> Path:
    runs = [FakeRun("alpha", 1, f1=0.7), FakeRun("alpha", 2, f1=0.72, run_status="harness_failed" if failed else "finished")]
    batch = write_batch(folder, runs)
    events = [{"event": "batch_started", "runs": 2}] + ([] if running else [{"event": "batch_done", "failed": 0}])
    (batch / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return batch


def test_an_unfinished_run_is_refused_then_exported_and_marked_with_partial(tmp_path):
    batch = _batch(tmp_path / "batch", failed=True)
    before = tree_digest(batch)
    refused = bakeoff_cli("export", str(batch), "--format", "eee", "--out", str(tmp_path / "eee"))
    assert refused.returncode == 2
    assert "error: ExportRefused:" in refused.stderr and "alpha-r02" in refused.stderr and "--partial" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "eee").exists()
    done = bakeoff_cli("export", str(batch), "--format", "eee", "--out", str(tmp_path / "eee"), "--partial")
    assert done.returncode == 0, done.stderr
    assert "unfinished runs: alpha-r02" in done.stderr
    aggregate = json.loads(next(Path(p) for p in done.stdout.splitlines() if p.endswith(".json")).read_text())
    details = aggregate["source_metadata"]["additional_details"]
    assert (details["partial"], details["unfinished_runs"]) == ("true", "alpha-r02")
    assert tree_digest(batch) == before


def test_a_running_batch_exports_to_inspect_only_with_partial_and_says_so(tmp_path):
    from inspect_ai.log import read_eval_log

    batch = _batch(tmp_path / "batch", running=True)
    refused = bakeoff_cli("export", str(batch), "--format", "inspect", "--out", str(tmp_path / "logs"))
    assert refused.returncode == 2 and "still running" in refused.stderr
    done = bakeoff_cli("export", str(batch), "--format", "inspect", "--out", str(tmp_path / "logs"), "--partial")
    assert done.returncode == 0, done.stderr
    log = read_eval_log(done.stdout.splitlines()[0])
    assert log.status == "started" and log.eval.metadata["partial"] is True and log.eval.tags == ["partial"]
    assert [s.epoch for s in log.samples] == [1, 2]
    assert [s.scores["f1"].value for s in log.samples] == pytest.approx([0.7, 0.72])


def test_a_harness_failed_run_is_marked_in_its_inspect_sample(tmp_path):
    from inspect_ai.log import read_eval_log

    batch = _batch(tmp_path / "batch", failed=True)
    done = bakeoff_cli("export", str(batch), "--format", "inspect", "--out", str(tmp_path / "logs"), "--partial")
    assert done.returncode == 0, done.stderr
    samples = read_eval_log(done.stdout.splitlines()[0]).samples
    assert [s.metadata["unfinished"] for s in samples] == [False, True]
    assert "f1" not in (samples[1].scores or {})  # a run the harness could not finish is never graded


def test_the_output_may_not_be_inside_the_batch_or_taken(tmp_path):
    batch = _batch(tmp_path / "batch")
    inside = bakeoff_cli("export", str(batch), "--format", "eee", "--out", str(batch / "export"))
    assert inside.returncode == 2 and "error: ExportOutputInvalid:" in inside.stderr
    assert not (batch / "export").exists()
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "keep.txt").write_text("mine")
    again = bakeoff_cli("export", str(batch), "--format", "eee", "--out", str(taken))
    assert again.returncode == 2 and "already exists" in again.stderr
    assert [p.name for p in taken.iterdir()] == ["keep.txt"]
    default = bakeoff_cli("export", str(batch), "--format", "eee")
    assert default.returncode == 0 and (tmp_path / "batch-eee" / "data").is_dir()


def _without_extras(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK_EXTRAS + code], capture_output=True, text=True, cwd=REPO_ROOT,
                          timeout=300)


@pytest.mark.parametrize("fmt, extra", [("inspect", "bakeoff[inspect]"), ("eee", "bakeoff[eee]")])
def test_a_missing_extra_is_named(tmp_path, fmt, extra):
    batch = _batch(tmp_path / "batch")
    code = ("from bakeoff.cli import main\n"
            f"sys.argv = ['bakeoff', 'export', {str(batch)!r}, '--format', {fmt!r}, '--out', {str(tmp_path / 'x')!r}]\n"
            "main()\n")
    done = _without_extras(code)
    assert done.returncode == 2, done.stderr
    assert "error: ExportExtraMissing:" in done.stderr and extra in done.stderr and "Traceback" not in done.stderr


def test_bakeoff_reports_without_the_extras(tmp_path):
    batch = _batch(tmp_path / "batch")
    done = _without_extras(f"from bakeoff.tasks import report_batch as write_report\nprint(write_report({str(batch)!r}).html)\n")
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_file() and (batch / "report" / "transcripts" / "alpha-r01.html").is_file()


def test_a_batch_whose_writer_holds_its_lock_is_running(tmp_path):
    batch = _batch(tmp_path / "batch")  # every run finished and the journal closed: only the lock says it is busy
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfrom pathlib import Path\nfrom bakeoff.batchfolder.lock import batch_lock\n"
                               f"with batch_lock(Path({str(batch)!r})):\n    print('held', flush=True)\n    sys.stdin.read()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT)
    try:
        assert holder.stdout.readline().strip() == "held"
        refused = bakeoff_cli("export", str(batch), "--format", "eee", "--out", str(tmp_path / "eee"))
        assert refused.returncode == 2 and "still running" in refused.stderr
    finally:
        holder.stdin.close()
        holder.wait()
    done = bakeoff_cli("export", str(batch), "--format", "eee", "--out", str(tmp_path / "eee"))
    assert done.returncode == 0, done.stderr  # the holder has gone: the same batch exports
