"""One scripted model under both scaffolds, on each take-home, in the real Docker sandbox, and its report.

Run 1 of the agent writes its code, runs it, meets a real traceback, fixes the code, runs it again and submits;
it is graded by the task's check exactly as the staged run of the same code and seed is (same headline). Run 2
of the agent never submits: its step budget ends the loop and it is graded on what it left. Both are in the
report (the scaffold rows, the agent runs, the paired staged-against-agent comparison) with their transcript
pages. The agent's own commands run where the task's hidden inputs are not mounted.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import agent_support as agent
import pytest
from runner_support import SANDBOX_LIMITS, write_script
from task_cases import CASE_IDS, CASES

pytestmark = [pytest.mark.docker, pytest.mark.slow]

MAX_STEPS = 12


@pytest.fixture(scope="module", params=CASES, ids=CASE_IDS)
def batch(request, tmp_path_factory):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import report_batch, run_plan
    from sandbox.wheelhouse import default_wheelhouse

    case = request.param
    root = tmp_path_factory.mktemp(f"agent-{case.task}")
    corpus = case.make_data(root / "corpus")
    # One backend serves the model's runs in order: staged r01, agent r01, staged r02, agent r02.
    lines = case.working + agent.fixing(case.task) + case.working + agent.exhausting(case.task)
    script = write_script(root / "answers.jsonl", lines)
    plan = plan_from_mapping({
        "models": [{"label": "scripted", "spec": f"scripted:{script}"}], "corpus": str(corpus), "runs": 2, "seed": 3,
        "sandbox": "docker", "limits": SANDBOX_LIMITS, "task": case.task, "task_settings": dict(case.own_settings),
        "scaffolds": ["staged", "agent"], "scaffold_settings": {"agent": {"max_steps": MAX_STEPS}},
    }, root)
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    result = run_plan(plan, BatchOptions(out_dir=root / "batch", wheelhouse=wheelhouse))
    report_batch(root / "batch")
    return case, root / "batch", result


def steps_of(batch_dir: Path, run_id: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((batch_dir / "runs" / run_id / "steps").glob("*.json"))]


def record(batch_dir: Path, run_id: str, name: str) -> dict:
    return json.loads((batch_dir / "runs" / run_id / name).read_text())


def table(batch_dir: Path, name: str) -> list[dict]:
    with open(batch_dir / "report" / "tables" / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_runs_of_each_scaffold_are_interleaved_and_finished(batch):
    _, batch_dir, result = batch
    order = json.loads((batch_dir / "batch.json").read_text())["order"]
    assert order == ["scripted-r01", "scripted-agent-r01", "scripted-r02", "scripted-agent-r02"]
    assert result.failed == 0
    assert "scaffold" not in record(batch_dir, "scripted-r01", "run.json")  # a staged run's record is as it was
    assert record(batch_dir, "scripted-agent-r01", "run.json")["scaffold"] == "agent"


def test_the_agent_runs_its_code_meets_a_traceback_fixes_it_and_submits(batch):
    case, batch_dir, _ = batch
    steps = steps_of(batch_dir, "scripted-agent-r01")
    runs = [(s["step"], r) for s in steps for r in s["results"] if r["tool"] == "run"]
    assert "hidden files: 0" in runs[0][1]["shown"]  # the hidden inputs are the check's alone
    failed = [(step, r) for step, r in runs if r["command"]["exit_code"] not in (0, None)]
    assert failed, runs
    step, crash = failed[0]
    assert "Traceback" in crash["shown"] and crash["command"]["crash"]["crash_class"]
    assert any(later > step and r["ok"] for later, r in runs)  # run again after the fix, and it worked
    assert steps[-1]["ended_by"] == "submit" and all(s["capture"]["status"] == "captured" for s in steps)
    loop = record(batch_dir, "scripted-agent-r01", "stages/1-agent.json")["loop"]
    assert loop["ended_by"] == "submit" and loop["usage"]["steps"] == len(steps) and loop["own_code_runs"] >= 2


def test_the_agent_is_graded_like_a_staged_run(batch):
    case, batch_dir, _ = batch
    staged = record(batch_dir, "scripted-r01", "run.json")["outcome"]
    agent_run = record(batch_dir, "scripted-agent-r01", "run.json")["outcome"]
    assert staged["status"] == agent_run["status"] == "scored"
    # The same code with the same seed, through the same check: the same headline and metrics.
    assert agent_run["headline"] == staged["headline"] and agent_run["metrics"] == staged["metrics"]
    check = record(batch_dir, "scripted-agent-r01", "stages/1-agent.json")["check"]
    assert set(check) == set(record(batch_dir, "scripted-r01", "stages/3-implement.json")["check"])
    assert agent_run["claim"]["source"] is not None  # read from what the agent wrote, as a staged run's


def test_an_agent_that_never_submits_ends_by_its_step_budget_and_is_graded_on_what_it_left(batch):
    _, batch_dir, _ = batch
    steps = steps_of(batch_dir, "scripted-agent-r02")
    assert len(steps) == MAX_STEPS and all(s["ended_by"] is None for s in steps)
    agent_stage = record(batch_dir, "scripted-agent-r02", "stages/1-agent.json")
    assert agent_stage["loop"]["ended_by"] == "steps"
    assert agent_stage["check"]["status"] == "scored"  # its last files were graded as they were
    assert record(batch_dir, "scripted-agent-r02", "run.json")["outcome"]["rung"] == 5


def test_the_report_has_every_row_the_loops_and_the_paired_comparison(batch):
    case, batch_dir, _ = batch
    rows = {row["row"]: row for row in table(batch_dir, "scaffolds")}
    assert rows["scripted"]["scaffold"] == "staged" and rows["scripted-agent"]["scaffold"] == "agent"
    assert rows["scripted-agent"]["loop_ended_by"] in ("steps 1, submit 1", "submit 1, steps 1")
    loops = {row["run"]: row for row in table(batch_dir, "agent_runs")}
    assert loops["scripted-agent-r01"]["ended_by"] == "submit" and loops["scripted-agent-r02"]["ended_by"] == "steps"
    pairs = table(batch_dir, "scaffold_pairs")
    assert [(p["model"], p["scaffold_a"], p["scaffold_b"], p["shared_seeds"]) for p in pairs] == \
        [("scripted", "staged", "agent", "2")]
    html = (batch_dir / "report" / "report.html").read_text()
    for run_id in ("scripted-r01", "scripted-agent-r01", "scripted-r02", "scripted-agent-r02"):
        assert f'href="transcripts/{run_id}.html"' in html
    page = (batch_dir / "report" / "transcripts" / "scripted-agent-r01.html").read_text()
    code = agent.CODE_FILE[case.task]
    assert "The loop" in page and "Step 1: run:" in page and f"write_file: {code}" in page
    assert "ended the loop" in page and "submit" in page
    # the transcript scan reads the steps handed down: the look at /holdout in the first step's call is counted
    scanned = {row["run"]: row for row in table(batch_dir, "transcript_scan")}
    assert scanned["scripted-agent-r01"]["hidden"] == "1", scanned
    assert scanned["scripted-agent-r01"]["first_found"].startswith("step 1, call 1 (run): ")
    assert "ls -A /holdout" in scanned["scripted-agent-r01"]["first_found"]


def test_every_step_was_journalled_once(batch):
    _, batch_dir, _ = batch
    events = [json.loads(line) for line in (batch_dir / "events.jsonl").read_text().splitlines()]
    for run_id in ("scripted-agent-r01", "scripted-agent-r02"):
        done = [e["step"] for e in events if e["event"] == "step_done" and e["run_id"] == run_id]
        assert done == list(range(1, len(steps_of(batch_dir, run_id)) + 1))
