"""End to end with the scripted backend on the real Docker sandbox: scored, rescued, regressed.

One batch of three scripted models (one run each) so the sandbox work is paid once:
- competent: a working submission from the start (its repair turn re-sends the same code);
- rescued: the first train.py imports a module that does not exist, the repair turn fixes it;
- regressed: a working submission whose repair turn breaks predict.py's output.
`always_repair` grants the turn to all three, so the effect of a turn is what is measured.
"""

from __future__ import annotations

import json

import pytest
from runner_support import (
    PREDICT_BROKEN,
    REPAIRING_PLAN,
    TRAIN_CRASHING,
    answers,
    implementation,
    make_tiny_corpus,
    run_scripted_batch,
    stage_records,
)

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("scripted-e2e")
    corpus = make_tiny_corpus(root / "corpus")
    scripts = {
        "competent": answers(implementation(), implementation()),
        "rescued": answers(implementation(TRAIN_CRASHING), implementation()),
        "regressed": answers(implementation(), implementation(predict=PREDICT_BROKEN)),
    }
    result = run_scripted_batch(root, scripts, REPAIRING_PLAN | {"corpus": str(corpus)})
    return root / "batch", {r["model"]["label"]: r for r in [r.to_json() for r in result.records]}


def test_competent_model_yields_a_scored_submission(batch):
    folder, records = batch
    record = records["competent"]
    assert record["status"] == "finished"
    assert record["outcome"]["status"] == "scored"
    assert record["outcome"]["rung"] == 5
    assert 0.5 < record["outcome"]["headline"]["value"] <= 1.0
    # the claim parsed from the training output sits beside the real score
    assert record["outcome"]["claim"]["source"] == "visible_output"
    assert 0.0 < record["outcome"]["claim"]["claimed"] <= 1.0
    assert [s["attribution"] for s in record["stages"]] == ["ok"] * 6
    assert record["repair_effects"] == ["unchanged"]
    evaluate = json.loads((folder / "runs" / "competent-r01" / "stages" / "5-evaluate.json").read_text())
    assert evaluate["claim"]["real"] == record["outcome"]["headline"]["value"]
    assert evaluate["prompt"] is None and evaluate["completion"] is None
    for stage in stage_records(folder / "runs" / "competent-r01"):
        assert stage["resources"]["harness_peak_rss_bytes"] > 0  # sampled with psutil
        timings = stage["timings"]
        assert timings["wall_s"] >= timings["model_s"] + timings["sandbox_s"] + timings["scoring_s"] - 1e-6
    implement = stage_records(folder / "runs" / "competent-r01")[2]
    assert [c["purpose"] for c in implement["commands"]] == ["train", "holdout_predict", "smoke_predict"]
    assert all(c["exit_code"] == 0 and c["isolation"] == "docker" for c in implement["commands"])


def test_crashing_train_is_rescued_by_the_repair_turn(batch):
    folder, records = batch
    record = records["rescued"]
    stages = {r["stage"]: r for r in stage_records(folder / "runs" / "rescued-r01")}
    implement = stages["implement"]
    assert implement["attribution"] == "model_error"
    assert implement["check"]["status"] == "crashed"
    assert implement["check"]["crash_class"] == "module_not_found"
    assert implement["check"]["detail"] == "spam_magic_toolkit"
    turn = stages["repair"]["turns"][0]
    assert turn["granted_because"] == "visible_failure"
    # the model was shown the real traceback, and never the holdout score
    shown = turn["prompt"]["messages"][-1]["content"]
    assert "No module named 'spam_magic_toolkit'" in shown
    assert "f1" not in shown.lower().replace("expected_f1", "")
    assert turn["before"]["rung"] == 1 and turn["after"]["rung"] == 5
    assert turn["effect"] == "rescued"
    assert record["outcome"]["status"] == "scored"
    assert record["repair_effects"] == ["rescued"]
    # repair continues the implement conversation
    assert turn["prompt"]["messages"][:2] == implement["prompt"]["messages"]
    assert turn["prompt"]["messages"][2] == {"role": "assistant", "content": implement["completion"]["text"]}


def test_repair_that_breaks_the_output_is_a_regression(batch):
    folder, records = batch
    record = records["regressed"]
    turn = stage_records(folder / "runs" / "regressed-r01")[3]["turns"][0]
    assert turn["granted_because"] == "always_repair"
    assert turn["before"]["status"] == "scored"
    assert turn["after"]["status"] == "bad_output"
    assert turn["after"]["rung"] < turn["before"]["rung"]
    assert turn["effect"] == "regressed"
    assert record["repair_effects"] == ["regressed"]
    assert record["outcome"]["status"] == "bad_output"
    assert record["stages"][3]["attribution"] == "model_error"


def test_each_run_history_has_one_commit_per_stage(batch):
    import git

    folder, records = batch
    for run_id in ("competent-r01", "rescued-r01", "regressed-r01"):
        repo = git.Repo(folder / "runs" / run_id / "repo")
        messages = [c.message.strip() for c in reversed(list(repo.iter_commits()))]
        assert messages == ["template", "explore", "decide", "implement", "repair", "evaluate", "docs"]
        tracked = repo.git.ls_files().splitlines()
        assert not [path for path in tracked if path.startswith("data/") or path.startswith(".bakeoff/")]
        assert "train.py" in tracked and "DESIGN.md" in tracked and "README.md" in tracked


def test_holdout_predictions_stay_out_of_the_repo(batch):
    folder, _ = batch
    run_dir = folder / "runs" / "competent-r01"
    assert (run_dir / "predictions" / "implement.csv").is_file()
    assert not list((run_dir / "repo").rglob("*holdout_predictions*"))


def test_transcript_replays_the_run(batch):
    from bakeoff.models.base import GenerationSettings, Message
    from bakeoff.models.scripted import ScriptedBackend

    folder, _ = batch
    transcript = folder / "runs" / "rescued-r01" / "transcript.jsonl"
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert [line["key"] for line in lines] == ["explore#1", "decide#1", "implement#1", "implement#2", "docs#1"]
    replay = ScriptedBackend(transcript)
    answer = replay.chat([Message("user", "x")], key="implement#2", settings=GenerationSettings())
    assert answer.text == lines[3]["text"]
