"""A batch survives SIGKILL at many points and ends with the same records; reruns give the same scores.

Parametrized over the take-homes (tests/task_cases.py): the same kills, the same assertions, on each task.

The batch process kills itself (BAKEOFF_KILL_AFTER_WRITES=N: SIGKILL right after
its Nth durable write) at a different write count on each start, so kills land
right after a stage starts, after a stage record, after the transcript, after a
journal line, after a run record. Each restart must finish what was cut short
and never re-execute a stage it had recorded as done.

The analysis's evaluate probes are turned off (--no-probes) to keep the test short;
with them on the same test passed as well (they are seeded like everything else).
"""

from __future__ import annotations

import datetime as dt
import json
import signal
from pathlib import Path

import pytest
from runner_support import bakeoff_cli, write_plan, write_script
from task_cases import CASE_IDS, CASES

pytestmark = [pytest.mark.docker, pytest.mark.slow]

# Differ between two identical batches only by when and where they ran (model_info/info: the
# scripted line that served an answer, which depends on which process served it).
VOLATILE_KEYS = {
    "timings", "resources", "started_at", "finished_at", "duration_s", "prompt_seconds",
    "generation_seconds", "code_version", "model_info", "info", "sha", "date", "pid", "created_at",
}
KILL_POINTS = (3, 5, 4, 7, 6, 2)  # writes before the kill, cycled over the restarts
RUNS = ("scripted-r01", "scripted-r02")


def normalized(value):
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def run_files(batch: Path) -> dict[str, object]:
    """Every record of the batch, by relative path (events.jsonl is a log of the process, not a record)."""
    files: dict[str, object] = {}
    for run_id in RUNS:
        run_dir = batch / "runs" / run_id
        for path in sorted((run_dir / "stages").glob("*.json")) + [run_dir / "run.json"]:
            files[str(path.relative_to(batch))] = normalized(json.loads(path.read_text()))
        lines = (run_dir / "transcript.jsonl").read_text().splitlines()
        files[f"runs/{run_id}/transcript.jsonl"] = normalized([json.loads(line) for line in lines])
    batch_json = json.loads((batch / "batch.json").read_text())
    files["batch.json"] = normalized(batch_json)
    return files


def events(batch: Path) -> list[dict]:
    return [json.loads(line) for line in (batch / "events.jsonl").read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module", params=CASES, ids=CASE_IDS)
def case(request):
    return request.param


@pytest.fixture(scope="module")
def setup(tmp_path_factory, case):
    root = tmp_path_factory.mktemp(f"resume-{case.task}")
    corpus = case.make_data(root / "corpus")
    # The first code crashes, the repair fixes it: every stage kind, repair included, is crossed by kills.
    script = write_script(root / "answers.jsonl", case.crash_then_repair, copies=2)
    plan = write_plan(root / "plan.toml", corpus, script, runs=2, task=case.plan_task)
    reference = root / "reference"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(reference))
    assert done.returncode == 0, done.stderr
    return root, plan, reference


def _parse(at: str) -> dt.datetime:
    return dt.datetime.fromisoformat(at)


def test_sigkilled_batch_resumes_to_the_same_records(setup):
    root, plan, reference = setup
    killed = root / "killed"
    kill_points = set()
    kills = 0
    for attempt in range(60):
        point = KILL_POINTS[attempt % len(KILL_POINTS)]
        started = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(killed),
                              env_extra={"BAKEOFF_KILL_AFTER_WRITES": str(point)})
        if started.returncode == 0:
            break
        assert started.returncode == -signal.SIGKILL, started.stderr
        kills += 1
        log = events(killed)
        records = len(list(killed.glob("runs/*/stages/*.json"))) + len(list(killed.glob("runs/*/run.json")))
        kill_points.add((records, log[-1]["event"], log[-1].get("stage")))
    else:
        pytest.fail("the batch never finished")
    assert kills >= 5
    assert len(kill_points) >= 5, kill_points

    assert run_files(killed) == run_files(reference)

    # No stage was executed after it had been recorded as done.
    log = events(killed)
    for run_id in RUNS:
        for path in sorted((killed / "runs" / run_id / "stages").glob("*.json")):
            record = json.loads(path.read_text())
            recorded_at = _parse(record["timings"]["finished_at"])
            starts = [e for e in log if e["event"] == "stage_started" and e.get("run_id") == run_id and e.get("stage") == record["stage"]]
            assert starts, record["stage"]
            assert all(_parse(e["at"]) <= recorded_at for e in starts), (run_id, record["stage"])
            assert sum(1 for e in log if e["event"] == "stage_done" and e.get("run_id") == run_id and e.get("stage") == record["stage"]) <= 1
    # Every run's repo holds exactly one commit per stage, even after the restarts.
    import git

    for run_id in RUNS:
        repo = git.Repo(killed / "runs" / run_id / "repo")
        messages = [c.message.strip() for c in reversed(list(repo.iter_commits()))]
        assert messages == ["template", "explore", "decide", "implement", "repair", "evaluate", "docs"]


def test_second_batch_gives_identical_scores(setup, case):
    root, plan, reference = setup
    again = root / "again"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(again))
    assert done.returncode == 0, done.stderr
    for run_id in RUNS:
        first = json.loads((reference / "runs" / run_id / "run.json").read_text())
        second = json.loads((again / "runs" / run_id / "run.json").read_text())
        assert first["outcome"]["status"] == "scored"
        # spam: f1, metrics, claimed_f1 (the claim comes from a validation split drawn with unseeded randomness:
        # equal only through the harness seed); ab_test: the headline, the interval metrics, the claim
        for key in case.outcome_keys:
            assert key in first["outcome"], key
            assert second["outcome"][key] == first["outcome"][key], key
    assert run_files(again) == run_files(reference)


def test_finished_batch_started_again_repeats_nothing(setup):
    root, plan, reference = setup
    before = len(events(reference))
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(reference))
    assert done.returncode == 0, done.stderr
    new = events(reference)[before:]
    assert [e["event"] for e in new] == ["batch_started", "batch_done"]


def test_changed_plan_is_refused_with_what_changed(setup):
    root, plan, reference = setup
    changed = root / "changed.toml"
    changed.write_text(plan.read_text().replace("seed = 3", "seed = 4"), encoding="utf-8")  # more runs would extend it
    refused = bakeoff_cli("run", "--plan", str(changed), "--out", str(reference))
    assert refused.returncode != 0
    assert "error: PlanChanged:" in refused.stderr
    assert "seed: 3 -> 4" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_status_shows_the_batch(setup, case):
    root, plan, reference = setup
    shown = bakeoff_cli("status", str(reference))
    assert shown.returncode == 0, shown.stderr
    assert "scripted-r01" in shown.stdout and "scripted-r02" in shown.stdout
    assert "2/2 runs done" in shown.stdout
    assert case.status_word in shown.stdout  # spam: "scored f1="
