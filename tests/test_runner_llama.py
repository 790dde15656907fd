"""The real default model (SmolLM2-135M-Instruct through llama.cpp) through all six stages, on real Docker.

Whatever it writes, the run must be fully recorded: six stage records, every
attribution from the allowed set, an answer cut off at the token limit recorded
as unusable, and the run ending with an outcome. The decide stage gets a budget
of 4 tokens so that its answer is certainly cut off.
"""

from __future__ import annotations

import json

import pytest
from runner_support import make_tiny_corpus, stage_records

pytestmark = [pytest.mark.llama, pytest.mark.slow, pytest.mark.docker]

ATTRIBUTIONS = {"ok", "model_error", "uncaptured", "unusable", "harness_error"}
OUTCOME_STATUSES = {"scored", "crashed", "timeout", "out_of_memory", "bad_output", "dependency_unavailable",
                    "no_script", "not_checked"}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    root = tmp_path_factory.mktemp("llama")
    corpus = make_tiny_corpus(root / "corpus")
    plan = plan_from_mapping(
        {"models": ["default"], "corpus": str(corpus), "runs": 1, "sandbox": "docker",
         "limits": {"memory_mb": 2048, "cpus": 1.0},
         "task_settings": {"smoke_rows": 50,
                           "max_tokens": {"explore": 300, "decide": 4, "implement": 600, "repair": 600, "docs": 200},
                           "timeouts_s": {"explore": 60, "train": 180, "predict": 120}}},
        root,
    )
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    result = run_plan(plan, BatchOptions(out_dir=root / "batch", wheelhouse=wheelhouse))
    assert len(result.records) == 1
    return root / "batch" / "runs" / "default-r01"


def test_six_stage_records_with_allowed_attributions(run_dir):
    records = stage_records(run_dir)
    assert [r["stage"] for r in records] == ["explore", "decide", "implement", "repair", "evaluate", "docs"]
    for record in records:
        assert record["attribution"] in ATTRIBUTIONS, record["stage"]
        for turn in record.get("turns", ()):
            assert turn["effect"] in {"rescued", "regressed", "unchanged"}


def test_answer_cut_off_at_the_token_limit_is_unusable(run_dir):
    decide = stage_records(run_dir)[1]
    assert decide["completion"]["finish_reason"] == "length"
    assert decide["capture"] == {"status": "unusable", "reason": "cut_off", "detail": decide["capture"]["detail"],
                                 "budget_cut": True}  # the harness's 4-token budget cut it, not the context
    assert decide["attribution"] == "unusable"


def test_the_run_ends_with_an_outcome(run_dir):
    record = json.loads((run_dir / "run.json").read_text())
    assert record["status"] == "finished", record["error"]
    assert record["outcome"]["status"] in OUTCOME_STATUSES
    assert 0 <= record["outcome"]["rung"] <= 5
    assert record["model"]["info"].get("sha256")
    assert record["capture"]["calls"] >= 4


def test_later_stages_reuse_the_shared_prefix(run_dir):
    records = stage_records(run_dir)
    later = [r["completion"] for r in records[1:] if r.get("completion")]
    assert later and all(c["cached_prompt_tokens"] > 0 for c in later)
