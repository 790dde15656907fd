"""A scripted batch on the real Docker sandbox whose answers carry reasoning.

- drafter: its implement answer is raw output as a reasoning model writes it: a
  `<think>` block holding a draft utils.py, a draft train.py and an EXPECTED_F1
  claim, then the final files. The drafts are never written, never run, never claimed.
- runaway: its implement answer ran out of tokens while still reasoning (the
  reasoning field of a transcript line, no answer): runaway_reasoning, not cut_off.
The drafter's file is entered twice, the second time with reasoning "off": two models of one batch
(a scripted backend replays the same answers whatever the mode; the point is the batch and report layout).
"""

from __future__ import annotations

import json

import pytest
from runner_support import answers, fenced, implementation, make_tiny_corpus, stage_records, write_script

pytestmark = [pytest.mark.docker, pytest.mark.slow]

DRAFT_REASONING = (
    "Let me sketch it first.\n" + fenced("utils.py", "raise SystemExit('the draft was run')")
    + fenced("train.py", "raise SystemExit('the draft train.py was run')") + "EXPECTED_F1: 0.99\n"
)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import report_batch as write_report
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    root = tmp_path_factory.mktemp("reasoning-batch")
    corpus = make_tiny_corpus(root / "corpus")
    drafter = answers(f"<think>\n{DRAFT_REASONING}</think>\n\n" + implementation())
    runaway = [dict(line) for line in answers(implementation())]
    runaway[2] = {"key": "implement#1", "text": "", "reasoning": "I will think about features. " * 40,
                  "finish_reason": "length", "token_budget": 200}
    script = write_script(root / "drafter.jsonl", drafter)
    models = [{"spec": f"scripted:{script}"}, {"spec": f"scripted:{script}", "reasoning": "off"},
              {"spec": f"scripted:{write_script(root / 'runaway.jsonl', runaway)}"}]
    plan = plan_from_mapping(
        {"models": models, "corpus": str(corpus), "runs": 1, "sandbox": "docker", "seed": 5,
         "limits": {"memory_mb": 2048, "pids": 256, "cpus": 1.0},
         "task_settings": {"smoke_rows": 50, "repair_turns": 0}},
        root,
    )
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    result = run_plan(plan, BatchOptions(out_dir=root / "batch", wheelhouse=wheelhouse))
    write_report(root / "batch")
    return root / "batch", {r["model"]["label"]: r for r in [r.to_json() for r in result.records]}


def test_the_same_file_with_reasoning_off_is_a_second_model(batch):
    folder, records = batch
    assert sorted(records) == ["drafter", "drafter-reasoning-off", "runaway"]
    stored = json.loads((folder / "batch.json").read_text())["plan"]["models"]
    assert stored[1]["reasoning"] == "off" and stored[0]["spec"] == stored[1]["spec"]


def test_a_draft_in_the_reasoning_is_never_written_run_or_claimed(batch):
    folder, records = batch
    implement = {r["stage"]: r for r in stage_records(folder / "runs" / "drafter-r01")}["implement"]
    assert sorted(f["path"] for f in implement["files_written"]) == ["predict.py", "requirements.txt", "train.py"]
    assert "utils.py" in implement["completion"]["reasoning"]  # kept in the record, for people to read
    assert implement["completion"]["reasoning_tokens"] > 0
    assert "<think>" not in implement["completion"]["text"] and "utils.py" not in implement["completion"]["text"]
    assert not (folder / "runs" / "drafter-r01" / "repo" / "utils.py").exists()
    record = records["drafter"]
    assert record["outcome"]["status"] == "scored"  # the final train.py ran, not the draft that exits
    assert record["outcome"]["claim"]["claimed"] != 0.99


def test_a_run_cut_off_while_reasoning_is_runaway_reasoning(batch):
    folder, _ = batch
    implement = {r["stage"]: r for r in stage_records(folder / "runs" / "runaway-r01")}["implement"]
    assert implement["attribution"] == "unusable" and implement["attribution_reason"] == "runaway_reasoning"
    assert implement["capture"]["reason"] == "runaway_reasoning" and implement["capture"]["budget_cut"] is True
    assert implement["files_written"] == []


def test_the_transcript_keeps_the_reasoning_and_replays_it(batch, tmp_path):
    from bakeoff.models.base import GenerationSettings, Message
    from bakeoff.models.scripted import ScriptedBackend

    folder, _ = batch
    transcript = folder / "runs" / "drafter-r01" / "transcript.jsonl"
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    implement = next(line for line in lines if line["key"] == "implement#1")
    assert "utils.py" in implement["reasoning"] and "<think>" not in implement["text"]
    replayed = ScriptedBackend(transcript).chat([Message("user", "x")], key="implement#1", settings=GenerationSettings())
    assert (replayed.text, replayed.reasoning) == (implement["text"], implement["reasoning"])


def test_the_report_shows_reasoning_tokens_and_the_runaway_rate(batch):
    folder, _ = batch
    rows = {(r["model"], r["stage"]): r for r in json.loads((folder / "report" / "summary.json").read_text())["reasoning"]}
    assert rows[("drafter", "implement")]["reasoning_tokens"] > 0 and rows[("drafter", "implement")]["runaway"] == 0
    assert rows[("drafter-reasoning-off", "implement")]["reasoning_tokens"] == rows[("drafter", "implement")]["reasoning_tokens"]
    runaway = rows[("runaway", "implement")]
    assert runaway["runaway"] == 1 and runaway["runaway_rate"] == 1.0
    assert "runaway" in (folder / "report" / "report.md").read_text()
    pairs = {(p["model_a"], p["model_b"]) for p in
             json.loads((folder / "report" / "summary.json").read_text())["paired_comparisons"]}
    assert ("drafter", "drafter-reasoning-off") in pairs  # reasoning on against off, run by run
