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


def test_cost_is_recorded_beside_the_outcome(run_dir):
    """Issue 27: the default model's cost in its run and its report: quantization and parameters from the GGUF
    header, file size, generation speed, the engine process's memory peak, the sandbox's CPU seconds."""
    import csv

    from bakeoff.analysis.cost import run_cost
    from bakeoff.batchfolder.read import read_batch
    from bakeoff.tasks import report_batch

    batch = run_dir.parent.parent
    (run,) = read_batch(batch).runs
    cost = run_cost(run)
    assert cost.facts.quantization == "Q4_1"
    assert 130e6 < (cost.facts.parameters or 0) < 140e6  # SmolLM2-135M, counted over the header's tensor table
    assert 90e6 < (cost.facts.file_bytes or 0) < 110e6
    assert cost.output_tokens > 0 and cost.generation_s > 0 and (cost.tokens_per_s or 0) > 1
    assert cost.prompt_tokens > cost.output_tokens > 0 and cost.model_s > 0
    assert (cost.engine_peak_rss_bytes or 0) > 50 * 1024**2  # the llama.cpp child holds the model
    if cost.sandbox_s > 0:  # the model's code ran (a 135M model often writes none that runs)
        assert cost.sandbox_cpu_s is not None
    assert json.loads((batch / "batch.json").read_text())["identities"]["default"].startswith("sha256:")
    files = report_batch(batch)
    with open(files.folder / "tables" / "cost_models.csv", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["quantization"] == "Q4_1" and float(row["tokens_per_s"]) > 1 and 130 < float(row["parameters_m"]) < 140
    with open(files.folder / "tables" / "leaderboard.csv", newline="") as handle:
        (board,) = list(csv.DictReader(handle))
    assert float(board["tokens_per_s"]) > 1 and float(board["engine_peak_mib"]) > 50
