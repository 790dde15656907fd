"""Acceptance: a real scripted batch and a review exported to Inspect's format, read back with
inspect-ai's own reader, and a sample rendered by Inspect's viewer (its static bundle) in headless
Chromium, served from 127.0.0.1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from export_support import (
    add_scripted_review,
    loopback_server,
    make_scripted_batch,
    rendered_text,
    tree_digest,
    viewer_log_list,
)
from runner_support import bakeoff_cli

pytestmark = [pytest.mark.docker, pytest.mark.slow]

STAGE_KEYS = ["explore#1", "decide#1", "implement#1", "implement#2", "docs#1"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("export-inspect")
    batch = make_scripted_batch(root)
    add_scripted_review(batch, root)
    before = tree_digest(batch)
    done = bakeoff_cli("export", str(batch), "--format", "inspect", "--out", str(root / "logs"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert tree_digest(batch) == before  # the export read the batch and wrote nothing there
    return batch, root / "logs", done


def _read(path: Path):
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path))


def _records(batch: Path, run_id: str) -> tuple[dict, list[dict]]:
    run_dir = batch / "runs" / run_id
    stages = [json.loads(p.read_text()) for p in sorted((run_dir / "stages").glob("*.json"))]
    return json.loads((run_dir / "run.json").read_text()), stages


def test_one_log_per_model_and_task_and_one_per_review(exported):
    _, logs, done = exported
    names = sorted(p.name for p in logs.glob("*.eval"))
    assert names[:2] == ["batch_regressed_spam_classifier.eval", "batch_rescued_spam_classifier.eval"]
    assert len(names) == 3 and names[2].startswith("review_scripted_") and names[2].endswith("_claim_review.eval")
    assert f"inspect view --log-dir {logs}" in done.stderr


def test_every_log_has_its_own_task_id_so_the_viewer_lists_each(exported):
    """Inspect's viewer keeps one log per task_id (the others are taken for retries): each model's log needs its own."""
    _, logs, _ = exported
    ids = [_read(path).eval.task_id for path in sorted(logs.glob("*.eval"))]
    assert len(ids) == 3 and len(set(ids)) == len(ids), ids


@pytest.mark.parametrize("model", ["rescued", "regressed"])
def test_each_run_reads_back_as_a_sample_with_its_scores_and_messages(exported, model):
    batch, logs, _ = exported
    log = _read(logs / f"batch_{model}_spam_classifier.eval")
    run, stages = _records(batch, f"{model}-r01")
    assert log.status == "success" and log.eval.model == f"bakeoff/{model}" and log.eval.task == "bakeoff/spam_classifier"
    assert len(log.samples) == 1
    sample = log.samples[0]
    assert (sample.id, sample.epoch) == ("spam_classifier", run["run_index"])
    outcome = run["outcome"]
    assert sample.scores["outcome"].value == outcome["status"]
    assert sample.scores["f1"].value == pytest.approx(outcome["headline"]["value"] if outcome["status"] == "scored" else 0.0)
    # every answer of the run, in order, as assistant messages tagged with their stage
    answers = [m for m in sample.messages if m.role == "assistant"]
    keys = [(s.get("prompt") or {}).get("key") for s in stages if s.get("completion")]
    keys[3:3] = [t["prompt"]["key"] for t in stages[3]["turns"]]
    assert keys == STAGE_KEYS
    texts = [s["completion"]["text"] for s in stages[:3]] + [t["completion"]["text"] for t in stages[3]["turns"]] + \
        [stages[5]["completion"]["text"]]
    assert [m.text for m in answers] == texts
    assert [m.metadata["stage"] for m in answers] == ["explore", "decide", "implement", "repair", "docs"]
    assert sample.messages[0].role == "system" and sample.messages[1].content == stages[0]["prompt"]["messages"][1]["content"]
    # the sandbox commands as exec events, with exit status and crash class
    commands = [c for s in stages for c in s.get("commands") or []]
    events = [e for e in sample.events if e.event == "sandbox"]
    assert [e.result for e in events] == [c["exit_code"] for c in commands]
    assert [e.options["purpose"] for e in events] == [c["purpose"] for c in commands]
    assert len([e for e in sample.events if e.event == "model"]) == 5
    meta = sample.metadata
    assert meta["capture"] == run["capture"] and meta["leak_stance"] == "excluded_with_reason"
    assert meta["repair_effects"] == run["repair_effects"]
    from bakeoff.batchfolder.read import read_run
    from bakeoff.tasks.spam_classifier.signals import run_signals

    signals = run_signals(read_run(batch / "runs" / f"{model}-r01"))  # what the report's runs table shows
    assert (meta["crash_class"], meta["probe"], meta["grading"]) == (signals.crash_class, None, "graded")
    assert meta["crash_class"] == (None if outcome["status"] == "scored" else outcome["crash_class"] or outcome["status"])
    # the run's tokens as its model usage, and summed in the log's stats (inspect view's token column)
    usage, tokens = sample.model_usage[f"bakeoff/{model}"], run["tokens"]
    assert usage.input_tokens == tokens["prompt"] > 0 and usage.output_tokens == tokens["completion"] > 0
    assert log.stats.model_usage[f"bakeoff/{model}"].total_tokens == usage.total_tokens


def test_the_crash_and_the_rescue_are_in_the_log(exported):
    _, logs, _ = exported
    sample = _read(logs / "batch_rescued_spam_classifier.eval").samples[0]
    crashed = [e for e in sample.events if e.event == "sandbox" and e.options.get("crash_class")]
    assert [e.options["crash_class"] for e in crashed] == ["module_not_found"]
    assert "No module named 'spam_magic_toolkit'" in crashed[0].output
    turn = next(e for e in sample.events if e.event == "info" and e.source == "repair_turn")
    assert (turn.data["before"]["rung"], turn.data["after"]["rung"], turn.data["effect"]) == (1, 5, "rescued")


def test_the_review_reads_back_one_sample_per_item(exported):
    batch, logs, _ = exported
    log = _read(next(logs.glob("*_claim_review.eval")))
    answers = [json.loads(line) for line in (batch / "review" / "scripted" / "answers.jsonl").read_text().splitlines()]
    assert len(log.samples) == len(answers) == 4
    by_id = {s.id: s for s in log.samples}
    for answer in answers:
        sample = by_id[answer["item_id"]]
        assert sample.epoch == answer["sample"] + 1 and sample.target == answer["expected"]
        if answer["correct"] is None:
            assert "correct" not in sample.scores  # uncaptured: never graded
        else:
            assert sample.scores["correct"].value == (1.0 if answer["correct"] else 0.0)
        assert sample.messages[-1].text == answer["text"]
        assert sample.metadata["blamed_line"] == answer["blamed_line"]
        assert sample.metadata["input_rebuilt"] and sample.messages[1].role == "user"
    metrics = json.loads((batch / "review" / "scripted" / "review.json").read_text())["metrics"]
    headline = log.results.scores[0].metrics
    assert headline["accuracy"].value == pytest.approx(metrics["accuracy"])
    assert headline["youden_j"].value == pytest.approx(metrics["problem_recall"] + metrics["ok_specificity"] - 1)


def test_inspect_view_renders_a_sample_from_a_loopback_server(exported, tmp_path):
    _, logs, _ = exported
    bundle = tmp_path / "bundle"
    inspect = Path(sys.executable).parent / "inspect"
    done = subprocess.run([str(inspect), "view", "bundle", "--log-dir", str(logs), "--output-dir", str(bundle)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    with loopback_server(bundle) as base:
        url = f"{base}/index.html#/logs/batch_rescued_spam_classifier.eval/samples/sample/spam_classifier/1/"
        wanted = ["Sample spam_classifier (Epoch 1)", "bakeoff/rescued", "spam_magic_toolkit"]
        text = rendered_text(tmp_path, url, wanted)
    for expected in wanted:
        assert expected in text, text[:3000]


def test_inspect_views_log_list_shows_every_log_of_the_batch(exported, tmp_path):
    """Issue 38, point 2: the viewer started on the export (its static build on 127.0.0.1) lists every log: each
    model's and the review's, none taken for a retry of another (the old export listed 1 log of 4)."""
    _, logs, _ = exported
    wanted = ["3 items", "bakeoff/rescued", "bakeoff/regressed", "bakeoff/claim_review"]
    text, _ = viewer_log_list(tmp_path, logs, wanted)
    for expected in wanted:
        assert expected in text, text[:3000]
    assert text.count("bakeoff/spam_classifier") == 2, text[:3000]
