"""Batches that grow (issue 27): a plan whose only changes add models or runs is accepted on a finished batch,
its new runs interleaved among themselves after the old ones, the report marking them; any other change is still
refused; and a batch killed (SIGKILL at many write counts) while it extends resumes to the same records, each
extension recorded once and no stage run twice."""

from __future__ import annotations

import csv
import datetime as dt
import json
import shutil
import signal
from pathlib import Path

import pytest
from runner_support import TRAIN_CRASHING, answers, bakeoff_cli, implementation, make_tiny_corpus, write_script

pytestmark = [pytest.mark.docker, pytest.mark.slow]

KILL_POINTS = (4, 7, 3, 6, 5, 9)


def plan_text(corpus: Path, models: list[str], runs: int) -> str:
    entries = ", ".join(f'{{ spec = "scripted:{m}.jsonl", label = "{m}" }}' for m in models)
    return (f'runs = {runs}\ncorpus = "{corpus}"\nsandbox = "docker"\nseed = 5\nmodels = [{entries}]\n'
            "[limits]\nmemory_mb = 2048\npids = 256\ncpus = 1.0\n[task_settings]\nsmoke_rows = 50\n")


@pytest.fixture(scope="module")
def grown(tmp_path_factory):
    root = tmp_path_factory.mktemp("extend")
    corpus = make_tiny_corpus(root / "corpus")
    write_script(root / "alpha.jsonl", answers(implementation()), copies=2)
    write_script(root / "beta.jsonl", answers(implementation(TRAIN_CRASHING)), copies=2)  # crashes fast
    first = root / "first.toml"
    first.write_text(plan_text(corpus, ["alpha"], runs=1))
    batch = root / "batch"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(first), "--out", str(batch))
    assert done.returncode == 0, done.stderr
    finished = root / "finished-first"
    shutil.copytree(batch, finished, symlinks=True)  # the one-model batch, for the killed extension below
    second = root / "second.toml"
    second.write_text(plan_text(corpus, ["alpha", "beta"], runs=1))
    extended = bakeoff_cli("run", "--no-probes", "--plan", str(second), "--out", str(batch))
    return root, corpus, batch, finished, extended


def test_a_plan_that_adds_a_model_extends_the_finished_batch(grown):
    root, _, batch, _, extended = grown
    assert extended.returncode == 0, extended.stderr
    assert "plan extended: 1 run added (beta-r01)" in extended.stderr
    assert "resuming: 1 of 2 runs finished and kept, 1 to run" in extended.stderr
    record = json.loads((batch / "batch.json").read_text())
    assert record["order"] == ["alpha-r01", "beta-r01"]
    (extension,) = record["extensions"]
    assert extension["added"] == ["beta-r01"]
    assert set(record["identities"]) == {"alpha", "beta"}
    assert json.loads((batch / "runs" / "beta-r01" / "run.json").read_text())["status"] == "finished"
    assert "scored f1=" in extended.stdout or "beta" in extended.stdout  # the scores printed at the end


def test_the_report_shows_both_models_and_marks_the_added_runs(grown):
    _, _, batch, _, _ = grown
    from bakeoff.tasks import report_batch

    files = report_batch(batch)
    with open(files.folder / "tables" / "cost_runs.csv", newline="") as handle:
        added = {row["run_id"]: row["added_later"] for row in csv.DictReader(handle)}
    assert added == {"alpha-r01": "", "beta-r01": "extension 1"}
    with open(files.folder / "tables" / "leaderboard.csv", newline="") as handle:
        marks = {row["model"]: row["marks"] for row in csv.DictReader(handle)}
    assert marks == {"alpha": "", "beta": "added later (extension 1)"}
    markdown = files.markdown.read_text()
    assert "Extension 1 (" in markdown and "the plan added 1 run: beta-r01." in markdown


def test_a_change_that_is_not_an_addition_is_still_refused(grown):
    root, corpus, batch, _, _ = grown
    fewer = root / "fewer.toml"
    fewer.write_text(plan_text(corpus, ["beta"], runs=1))  # alpha removed
    refused = bakeoff_cli("run", "--plan", str(fewer), "--out", str(batch))
    assert refused.returncode == 2 and "error: PlanChanged:" in refused.stderr
    assert "only adds models or runs extends the batch" in refused.stderr


def _events(batch: Path) -> list[dict]:
    return [json.loads(line) for line in (batch / "events.jsonl").read_text().splitlines() if line.strip()]


def test_a_kill_during_the_extension_resumes_cleanly(grown):
    root, corpus, _, finished, _ = grown
    killed = root / "killed"
    shutil.copytree(finished, killed, symlinks=True)
    third = root / "third.toml"
    third.write_text(plan_text(corpus, ["alpha", "beta"], runs=2))  # adds beta-r01, alpha-r02, beta-r02
    kills = 0
    for attempt in range(40):
        point = KILL_POINTS[attempt % len(KILL_POINTS)]
        started = bakeoff_cli("run", "--no-probes", "--plan", str(third), "--out", str(killed),
                              env_extra={"BAKEOFF_KILL_AFTER_WRITES": str(point)})
        if started.returncode == 0:
            break
        assert started.returncode == -signal.SIGKILL, started.stderr
        kills += 1
    else:
        pytest.fail("the extended batch never finished")
    assert kills >= 3
    record = json.loads((killed / "batch.json").read_text())
    assert record["order"] == ["alpha-r01", "beta-r01", "alpha-r02", "beta-r02"]  # the added runs interleaved
    assert [e["added"] for e in record["extensions"]] == [["beta-r01", "alpha-r02", "beta-r02"]]  # recorded once
    for run_id in record["order"]:
        assert json.loads((killed / "runs" / run_id / "run.json").read_text())["status"] == "finished"
    log = _events(killed)
    for run_id in record["order"]:
        for path in sorted((killed / "runs" / run_id / "stages").glob("*.json")):
            stage = json.loads(path.read_text())
            recorded = dt.datetime.fromisoformat(stage["timings"]["finished_at"])
            starts = [dt.datetime.fromisoformat(e["at"]) for e in log
                      if e["event"] == "stage_started" and e.get("run_id") == run_id and e.get("stage") == stage["stage"]]
            assert starts and all(at <= recorded for at in starts), (run_id, stage["stage"])  # never re-run once done
    # the first run, finished before the extension, was never touched again
    assert not [e for e in log if e.get("run_id") == "alpha-r01" and e["at"] > record["extensions"][0]["at"]]
