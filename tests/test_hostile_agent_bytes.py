"""Model-controlled names and bytes are the model's failure, never the harness's (issue 32, rows 5, 6, 7 and 9).

An agent in the real Docker sandbox makes a sparse 600 MB DESIGN.md and README (the host reads a capped head of
each), prints 8 MiB of control bytes in one step (the step record keeps bounded heads and tails and the total size,
and the batch still reports), gives paths that make the host's file calls fail (a failed tool result, the run is
graded), and a path holding a lone surrogate written as a plain-ASCII JSON escape (refused; the report is written).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import agent_support as agent
import pytest
from runner_support import SANDBOX_LIMITS, bakeoff_cli, make_tiny_corpus, write_script

FIXTURE = Path(__file__).parent / "data" / "batch_before_records" / "batch"  # tests/test_report_change_detector.py's batch

RUN_ID = "evil-agent-r01"
MIB = 1024 * 1024


def _agent_batch(tmp_path: Path, steps: list[dict], runs: int = 1) -> tuple[Path, object]:
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    corpus = make_tiny_corpus(tmp_path / "corpus")
    script = write_script(tmp_path / "answers.jsonl", agent.keyed(steps), copies=runs)
    plan = plan_from_mapping({"models": [{"label": "evil", "spec": f"scripted:{script}"}], "corpus": str(corpus),
                              "runs": runs, "sandbox": "docker", "limits": SANDBOX_LIMITS, "scaffolds": ["agent"],
                              "task_settings": {"smoke_rows": 50}}, tmp_path)
    result = run_plan(plan, BatchOptions(out_dir=tmp_path / "batch", wheelhouse=default_wheelhouse()))
    return tmp_path / "batch", result


def _steps(batch: Path, run_id: str = RUN_ID) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((batch / "runs" / run_id / "steps").glob("*.json"))]


def _peak_rss_mb(*args: str) -> tuple[int, float]:
    """The exit status of `bakeoff ARGS` and the peak memory of it (MB), measured in a process of its own."""
    measure = ("import resource, subprocess, sys\n"
               "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", measure, str(Path(sys.executable).parent / "bakeoff"), *args],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), int(out[1]) / 1024


@pytest.mark.docker
@pytest.mark.slow
def test_a_sparse_design_and_readme_are_read_as_a_capped_head(tmp_path):
    from bakeoff.batchfolder.read import read_run
    from bakeoff.scaffolds.registry import step_readers

    steps = [
        agent.call("run", command="truncate -s 600M DESIGN.md && truncate -s 600M README.md && ls -ls"),
        agent.call("read_file", path="DESIGN.md"),
        agent.call("submit"),
    ]
    batch, result = _agent_batch(tmp_path, steps)
    assert result.failed == 0
    records = _steps(batch)
    assert records[1]["results"][0]["ok"] and len(records[1]["results"][0]["shown"]) < 100_000
    design = read_run(batch / "runs" / RUN_ID, step_readers=step_readers).design_text
    assert design is not None and len(design) <= 2 * MIB and "629145600 bytes" in design  # a head, its size named
    status, peak_mb = _peak_rss_mb("report", str(batch))
    assert status == 0
    assert peak_mb < 500  # the whole file would be 600 MB of bytes and as much again decoded


@pytest.mark.docker
@pytest.mark.slow
def test_eight_mib_of_control_bytes_keep_the_step_record_small_and_the_batch_reporting(tmp_path):
    print_mib = "head -c 1048576 /dev/zero | tr '\\000' '\\001'"
    eight = {"text": "noise", "tool_calls": [{"name": "run", "arguments": {"command": print_mib}}] * 8}
    batch, result = _agent_batch(tmp_path, [eight, agent.call("submit")])
    assert result.failed == 0
    record = batch / "runs" / RUN_ID / "steps" / "001.json"
    assert record.stat().st_size < 4 * MIB  # 8 MiB escaped six-fold was a 100 MB record before
    for call in json.loads(record.read_text())["results"]:
        command = call["command"]
        assert command["stdout_bytes"] == MIB  # the total size is kept, the middle is not
        assert len(command["stdout"]) < 40_000 and command["stdout"].startswith("\x01")
    for args in (("report", str(batch)), ("leaderboard", str(batch), "--out", str(tmp_path / "board")),
                 ("export", str(batch), "--format", "eee", "--out", str(tmp_path / "eee"))):
        done = bakeoff_cli(*args)
        assert done.returncode == 0, (args, done.stderr[-2000:])


def test_one_damaged_run_is_refused_by_name_while_the_batch_reports(tmp_path):
    from bakeoff.batchfolder.read import read_batch

    batch = tmp_path / "batch"
    shutil.copytree(FIXTURE, batch, symlinks=True)
    damaged = sorted((batch / "runs" / "beta-r01" / "stages").glob("*.json"))[0]
    damaged.write_text('{"schema": "bakeoff.stage/1", "cut', encoding="utf-8")  # as a record over the cap reads
    records = read_batch(batch, refuse_damaged_runs=True)  # what is published (report, leaderboard) reads so
    assert [refused.run_id for refused in records.refused] == ["beta-r01"]
    assert "beta-r01" not in [run.run_id for run in records.runs] and len(records.runs) >= 4
    done = bakeoff_cli("report", str(batch), "--out", str(tmp_path / "report"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused run beta-r01" in done.stderr
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "refused run beta-r01" in report and "alpha-r01" in report
    # the fixture's beta-r02 never finished: the leaderboard pools it only when told to, marked partial
    refused = bakeoff_cli("leaderboard", str(batch), "--out", str(tmp_path / "refused"))
    assert refused.returncode != 0 and "1 run(s) have not finished: beta-r02" in refused.stderr, refused.stderr[-2000:]
    board = bakeoff_cli("leaderboard", str(batch), "--partial", "--out", str(tmp_path / "board"))
    assert board.returncode == 0 and "refused run beta-r01" in board.stderr, board.stderr[-2000:]
    assert "partial (1 run(s) have not finished: beta-r02)" in (tmp_path / "board" / "leaderboard.md").read_text()


def test_a_sparse_output_is_not_kept_by_the_host(tmp_path):
    from bakeoff.taskapi.workspace import keep_output

    workspace = tmp_path / "ws"
    workspace.mkdir()
    with open(workspace / "predictions.csv", "wb") as sparse:
        sparse.truncate(600 * MIB)
    kept = tmp_path / "run" / "outputs" / "holdout.csv"
    keep_output(workspace, "predictions.csv", kept)
    assert not kept.exists() and not (workspace / "predictions.csv").exists()  # refused and removed, never copied


def test_the_disk_watch_counts_what_a_sparse_file_claims(tmp_path):
    from sandbox.diskwatch import TreeWatch

    with open(tmp_path / "DESIGN.md", "wb") as sparse:
        sparse.truncate(600 * MIB)  # no block written: 600 MB for whoever reads it
    stopped = []
    with TreeWatch([tmp_path], 100 * MIB, lambda: stopped.append(True)) as watch:
        pass
    assert watch.peak_bytes >= 600 * MIB


FAILING_PATHS = [
    agent.call("run", command="echo hi > notes.txt && mkdir -p src/pkg locked && echo s > locked/f && "
                              "ln -s locked/f link.txt && ln -s locked inside && chmod 000 locked && echo set"),
    agent.call("write_file", path="a" * 300, content="x"),
    agent.call("read_file", path="a" * 300),
    agent.call("write_file", path="notes.txt/under.py", content="x"),
    agent.call("write_file", path="src", content="x"),
    agent.call("read_file", path="link.txt"),
    agent.call("read_file", path="inside/f"),
    agent.call("read_file", path=("d" * 200 + "/") * 30 + "f"),
    agent.call("submit"),
]


@pytest.mark.docker
@pytest.mark.slow
def test_paths_that_make_the_host_s_file_calls_fail_are_failed_tool_results(tmp_path):
    batch, result = _agent_batch(tmp_path, FAILING_PATHS)
    assert result.failed == 0  # not a harness failure: the run is graded
    run = json.loads((batch / "runs" / RUN_ID / "run.json").read_text())
    assert run["status"] == "finished"
    results = [step["results"][0] for step in _steps(batch)]
    assert results[0]["ok"] and "set" in results[0]["shown"]
    for failed in results[1:8]:
        assert not failed["ok"], failed
        assert failed["shown"]  # the model is told why
    assert _steps(batch)[-1]["ended_by"] == "submit"


@pytest.mark.docker
@pytest.mark.slow
def test_a_lone_surrogate_in_a_path_is_refused_and_the_report_is_written(tmp_path):
    steps = [
        agent.call("write_file", path="\udcff.py", content="print(1)\n"),
        agent.call("read_file", path="x\udcff"),
        agent.call("run", command="echo \udcff"),
        agent.call("submit"),
    ]
    batch, result = _agent_batch(tmp_path, steps)
    assert "\\udcff" in (tmp_path / "answers.jsonl").read_text(encoding="ascii")  # plain ASCII, a JSON escape
    assert result.failed == 0
    results = [step["results"][0] for step in _steps(batch)]
    for refused in results[:3]:
        assert not refused["ok"] and refused["problem"] == "bad_arguments"
    done = bakeoff_cli("report", str(batch))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


AS_NOBODY = """
import sys, types
from pathlib import Path
from bakeoff.scaffolds.agent.settings import AgentSettings
from bakeoff.scaffolds.agent.tools import Workplace, call_tool

run = types.SimpleNamespace(repo=types.SimpleNamespace(path=Path(sys.argv[1])))
place = Workplace(run, None, AgentSettings(), {"data": Path(sys.argv[1])})  # a mounted folder of visible data
for name, arguments in (("read_file", {"path": "locked/f"}), ("read_file", {"path": "inside/f"}),
                        ("read_file", {"path": "data/locked/f"}), ("list_files", {})):
    result = call_tool(place, name, arguments, 10.0)
    print(name, result.ok, result.shown.splitlines()[0] if result.shown else "")
"""


def test_a_file_the_host_may_not_reach_is_a_failed_tool_result_for_a_host_user_that_is_not_root():
    """The host's own user, not root (a workstation's): a folder it may not search, reached directly or through
    a link the agent planted, is the model's failed call; the tools run as that user here (setpriv)."""
    workspace = Path(tempfile.mkdtemp(prefix="bakeoff-nobody-"))
    try:
        os.chmod(workspace, 0o777)
        (workspace / "locked").mkdir()
        (workspace / "locked" / "f").write_text("secret", encoding="utf-8")
        (workspace / "inside").symlink_to("locked")
        os.chmod(workspace / "locked", 0)
        done = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
                               sys.executable, "-c", AS_NOBODY, str(workspace)],
                              capture_output=True, text=True, env={**os.environ, "HOME": "/"})
        assert done.returncode == 0, done.stderr[-3000:]
        lines = done.stdout.splitlines()
        assert [line.split()[:2] for line in lines] == [["read_file", "False"], ["read_file", "False"],
                                                        ["read_file", "False"], ["list_files", "True"]], lines
        assert "secret" not in done.stdout and str(workspace) not in done.stdout  # no host path told to the model
    finally:
        os.chmod(workspace / "locked", 0o700)
        shutil.rmtree(workspace)
