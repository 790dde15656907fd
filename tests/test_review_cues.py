"""`baseline:cues`, the reader without understanding, stays near chance on the shipped bank."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.models.base import GenerationSettings
from bakeoff.review.cues import RULES, CuesBackend, read_prompt
from bakeoff.review.items import load_items
from bakeoff.review.prompt import load_template
from bakeoff.review.reviewers import open_reviewer
from bakeoff.review.runner import run_review
from bakeoff.review.settings import ReviewSettings

ITEMS = load_items()


def _review(backend):
    return run_review(backend, ITEMS, ReviewSettings(), load_template())


class _Always:
    def __init__(self, verdict):
        self.verdict = verdict
        self.identity = f"always:{verdict}"

    def chat(self, messages, *, key, settings):
        return _completion(self.verdict)

    def close(self):
        pass


def _completion(verdict):
    from bakeoff.models.base import Completion

    return Completion(text=f"VERDICT: {verdict}\nLINE: none\nCONFIDENCE: 50\nREASON: x", finish_reason="stop",
                      prompt_tokens=1, completion_tokens=1, prompt_seconds=0, generation_seconds=0, backend="always")


def test_answer_blind_rules_score_one_half_and_a_youden_j_of_zero():
    for verdict in ("OK", "PROBLEM"):
        metrics = _review(_Always(verdict)).metrics
        assert metrics.accuracy == 0.5 and metrics.youden_j == 0.0 and metrics.pair_accuracy == 0.0


def test_the_reader_sees_only_the_prompt_and_is_trained_without_the_items_pair():
    item = next(i for i in ITEMS if i.is_problem)
    messages = load_template().messages(item)
    claim, code = read_prompt(messages)
    assert (claim, code.strip()) == (item.claim, item.code.strip())
    backend = CuesBackend(ITEMS)
    left_out = backend._left_out(code)
    assert left_out == {i.id for i in ITEMS if i.pair_id == item.pair_id}
    answer = backend.chat(messages, key="review/x#1", settings=GenerationSettings())
    assert answer.text.startswith("VERDICT: ") and answer.backend == "baseline:cues"


def test_a_rule_blames_the_line_it_fired_on():
    lines = ["from x import y", "scaler = StandardScaler().fit(X)", "a, b = train_test_split(X)"]
    assert RULES[0].fires("claim", lines) == 2


def test_bakeoff_review_runs_the_cues_baseline_like_any_model(tmp_path):
    subset = tmp_path / "items.jsonl"
    subset.write_text("".join(json.dumps(i.to_dict()) + "\n" for i in ITEMS[:6]))
    result = CliRunner().invoke(main, ["review", "--model", "baseline:cues", "--items", str(subset), "--json",
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out" / "review.json").read_text())
    assert summary["model"] == "baseline:cues" and summary["metrics"]["captured"] == 6
    assert summary["baseline_cues"]["metrics"]["accuracy"] == summary["metrics"]["accuracy"]


def test_baseline_cues_file_trains_on_the_items_in_that_file(tmp_path):
    subset = tmp_path / "bank.jsonl"
    subset.write_text("".join(json.dumps(i.to_dict()) + "\n" for i in ITEMS[:10]))
    backend = open_reviewer(f"baseline:cues:{subset}")
    assert len(backend._bank) == 10
    messages = load_template().messages(ITEMS[20])  # not in that bank: nothing to leave out
    assert backend._left_out(read_prompt(messages)[1]) == frozenset()


def test_the_model_registry_knows_nothing_of_the_review(tmp_path):
    from pathlib import Path

    import pytest

    from bakeoff.models.errors import ModelSpecError
    from bakeoff.models.registry import parse_spec
    from bakeoff.runner.plan import ReviewOnlyReader, plan_from_mapping

    models = Path(__file__).resolve().parents[1] / "bakeoff" / "models"
    assert not [p.name for p in models.rglob("*.py") if "bakeoff.review" in p.read_text(encoding="utf-8")]
    with pytest.raises(ModelSpecError):
        parse_spec("baseline:cues")
    for spec in ("baseline:cues", {"spec": "baseline:cues:bank.jsonl", "label": "cues"}):
        with pytest.raises(ReviewOnlyReader, match="reads review items only"):
            plan_from_mapping({"models": [spec], "corpus": str(tmp_path)}, tmp_path)
    result = CliRunner().invoke(main, ["run", "--model", "baseline:cues", "--runs", "1", "--corpus", str(tmp_path),
                                       "--out", str(tmp_path / "batch")])
    assert result.exit_code != 0 and "error: ReviewOnlyReader:" in result.output, result.output
