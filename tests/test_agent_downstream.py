"""What reads an agent's runs downstream reads them as it reads a staged run's (issue 38, points 1 and 9), on a real
scripted agent batch in the Docker sandbox: the Inspect export carries each step's messages, tool calls and tool
results and the run's token usage; the live display and `bakeoff status` say the same of where a run stands (an
agent's two stages, not the staged six); the report costs an agent run with its wall time."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from agent_batch_support import make_agent_batch
from runner_support import bakeoff_cli

pytestmark = [pytest.mark.docker, pytest.mark.slow]

RUNS = ("scripted-agent-r01", "scripted-agent-r02")


@pytest.fixture(scope="module")
def agent_batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("agent-downstream")
    batch, recorder = make_agent_batch(root)
    done = bakeoff_cli("export", str(batch), "--format", "inspect", "--out", str(root / "logs"))
    assert done.returncode == 0, done.stderr[-3000:]
    return batch, root / "logs", recorder


def _log(logs: Path):
    from inspect_ai.log import read_eval_log

    (path,) = sorted(logs.glob("*.eval"))
    return read_eval_log(str(path))


def _steps(batch: Path, run_id: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((batch / "runs" / run_id / "steps").glob("*.json"))]


def _run(batch: Path, run_id: str) -> dict:
    return json.loads((batch / "runs" / run_id / "run.json").read_text())


def test_an_agent_sample_carries_each_step_with_its_tool_calls_and_results(agent_batch):
    batch, logs, _ = agent_batch
    log = _log(logs)
    assert [s.epoch for s in log.samples] == [1, 2]
    for sample, run_id in zip(log.samples, RUNS, strict=True):
        steps = _steps(batch, run_id)
        first = steps[0]["prompt"]["messages"]
        assert [(m.role, m.text) for m in sample.messages[:2]] == [(m["role"], m["content"]) for m in first]
        answers = [m for m in sample.messages if m.role == "assistant"]
        assert [m.text for m in answers] == [s["completion"]["text"] for s in steps]
        assert [m.metadata["step"] for m in answers] == [s["step"] for s in steps]
        for message, step in zip(answers, steps, strict=True):
            calls = step["completion"]["tool_calls"]
            assert [c.function for c in message.tool_calls] == [c["name"] for c in calls]
            assert [c.arguments for c in message.tool_calls] == [json.loads(c["arguments"] or "{}") for c in calls]
        results = [m for m in sample.messages if m.role == "tool"]
        assert [(m.function, m.content) for m in results] == [(r["tool"], r["shown"]) for s in steps for r in s["results"]]
        ids = [c.id for m in answers for c in m.tool_calls]
        assert [m.tool_call_id for m in results] == ids and len(set(ids)) == len(ids)  # each result answers its call
        assert len([e for e in sample.events if e.event == "model"]) == len(steps)
        ran = [r["command"]["exit_code"] for s in steps for r in s["results"] if r.get("command")]
        execs = [e.result for e in sample.events if e.event == "sandbox"]
        assert execs[: len(ran)] == ran  # the loop's commands, then evaluate's
        assert [e.name for e in sample.events if e.event == "span_begin"] == ["agent", "evaluate"]
    fixing = log.samples[0]
    assert fixing.output.completion == _steps(batch, RUNS[0])[-1]["completion"]["text"] == "Done."
    crashed = [m for m in fixing.messages if m.role == "tool" and "KeyError" in m.text]
    assert crashed, "the traceback the agent met is in its transcript"


def test_an_agent_sample_carries_its_token_usage(agent_batch):
    batch, logs, _ = agent_batch
    log = _log(logs)
    total = 0
    for sample, run_id in zip(log.samples, RUNS, strict=True):
        usage, tokens = sample.model_usage["bakeoff/scripted-agent"], _run(batch, run_id)["tokens"]
        steps = _steps(batch, run_id)
        assert usage.input_tokens == tokens["prompt"] == sum(s["completion"]["prompt_tokens"] for s in steps) > 0
        assert usage.output_tokens == tokens["completion"] == sum(s["completion"]["completion_tokens"] for s in steps) > 0
        total += usage.total_tokens
    assert log.stats.model_usage["bakeoff/scripted-agent"].total_tokens == total


def test_the_live_display_and_status_place_an_agent_run_alike(agent_batch):
    """At each stage and step the batch announced, the display's row and the folder's status read then agree."""
    _, _, recorder = agent_batch
    moments = recorder.moments
    assert {m.status.stages_total for m in moments} == {2}  # an agent's loop and evaluate, from its first moment
    for moment in moments:
        assert moment.status.now and moment.status.now in moment.live_row, (moment.told, moment.live_row, moment.status)
    told = {(m.run_id, m.told): m for m in moments}
    assert "1/2 agent step 3" in told[(RUNS[0], "agent step 3")].live_row
    assert "2/2 evaluate" in told[(RUNS[0], "evaluate")].live_row
    assert "/6" not in " ".join(m.live_row for m in moments)
    assert all("unknown" not in m.live_title for m in moments)
    first = moments[0].live_title  # nothing has finished yet: no estimate is made up
    assert first.endswith("estimating the time left"), first
    assert "about " in told[(RUNS[1], "evaluate")].live_title  # a stage of each kind measured: an estimate


def test_status_counts_an_agent_runs_two_stages(agent_batch):
    batch, _, recorder = agent_batch
    running = recorder.status_at_step_2  # the command, from another process, while the batch ran
    row = next(line for line in running.splitlines() if RUNS[0] in line)
    assert "in_progress" in row and "0/2" in row and "1/2 agent step 2" in row, running
    assert "estimated time left: estimating" in running and "unknown" not in running
    done = bakeoff_cli("status", str(batch))
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if "scripted-agent-r0" in line]
    assert len(rows) == 2 and all("2/2" in row and "finished" in row for row in rows), done.stdout


def test_the_report_costs_an_agent_run_with_its_wall_time(agent_batch, tmp_path):
    import shutil

    from bakeoff.tasks import report_batch

    batch, _, _ = agent_batch
    copy = tmp_path / "batch"
    shutil.copytree(batch, copy)
    report_batch(copy)
    with open(copy / "report" / "tables" / "cost_runs.csv", newline="") as handle:
        runs = {row["run_id"]: row for row in csv.DictReader(handle)}
    for run_id in RUNS:
        wall = _run(batch, run_id)["timings"]["wall_s"]
        assert float(runs[run_id]["wall_s"]) == pytest.approx(wall, rel=0.01) and wall > 0
        assert int(runs[run_id]["calls"]) == len(_steps(batch, run_id))
    with open(copy / "report" / "tables" / "cost_models.csv", newline="") as handle:
        (model,) = list(csv.DictReader(handle))
    assert float(model["median_wall_s"]) > 0
    page = (copy / "report" / "transcripts" / f"{RUNS[0]}.html").read_text()
    assert 'id="stage-agent"' in page and 'id="stage-evaluate"' in page  # the run's own two stages
