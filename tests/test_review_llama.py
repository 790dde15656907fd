"""The real default model (SmolLM2-135M through llama.cpp) reviews ten items, end to end through the CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.review.grading import ItemAnswer
from bakeoff.review.items import group_pairs, load_items
from bakeoff.review.metrics import compute_metrics

# Five matched pairs: both twins of each, so pair accuracy has something to compute.
PAIR_IDS = ("rebound-scale.campaign", "folds.sales", "rebound-vocabulary.inbox", "recall-named.loans", "group-split.visits")


@pytest.mark.llama
@pytest.mark.slow
def test_the_default_model_reviews_ten_items_and_its_metrics_are_computed(tmp_path):
    pairs = group_pairs(load_items())
    chosen = [item for pair_id in PAIR_IDS for item in pairs[pair_id]]
    subset = tmp_path / "ten.jsonl"
    subset.write_text("".join(json.dumps(item.to_dict()) + "\n" for item in chosen))
    out = tmp_path / "review" / "default"

    result = CliRunner().invoke(
        main,
        ["review", "--model", "default", "--items", str(subset), "--max-tokens", "120", "--json", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output

    metrics = json.loads(result.stdout)
    assert metrics["items"] == 10 and metrics["answers"] == 10
    assert metrics["captured"] + metrics["uncaptured"] + metrics["unusable"] == 10
    summary = json.loads((out / "review.json").read_text())
    assert "SmolLM2-135M-Instruct" in summary["model"]
    assert summary["model_info"].get("sha256")  # the exact weights are on record

    records = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert len(records) == 10
    for record in records:
        # Every answer really came from the model: tokens were processed and generated, and timed.
        assert record["prompt_tokens"] > 200 and record["prompt_seconds"] > 0
        if record["capture"] != "uncaptured":
            assert record["completion_tokens"] > 0 and record["generation_seconds"] > 0
            assert record["correct"] == (record["capture"] == "captured" and record["verdict"] == record["expected"])

    # The printed metrics are exactly what the recorded answers give.
    fields = set(ItemAnswer.__struct_fields__)
    answers = [ItemAnswer(**{k: v for k, v in record.items() if k in fields}) for record in records]
    assert compute_metrics(chosen, answers).to_dict() == metrics
    graded = metrics["answers"] - metrics["uncaptured"]
    for name in ("accuracy", "problem_recall", "ok_specificity", "pair_accuracy"):
        assert (metrics[name] is None) == (graded == 0), name
        if metrics[name] is not None:
            assert 0.0 <= metrics[name] <= 1.0
