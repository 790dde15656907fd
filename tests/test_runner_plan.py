"""Plans: parsing, validation, interleaving, seeds, the canonical hash and its differences; the CLI's errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_support import bakeoff_cli

from bakeoff.models.spec import label_for_spec
from bakeoff.runner.plan import (
    PlanChanged,
    PlanError,
    load_plan,
    plan_differences,
    plan_from_mapping,
    run_order,
)


def plan(**overrides):
    raw = {"models": ["scripted:/x/a.jsonl", {"spec": "gguf:/m/qwen2.5-7b.Q4_K_M.gguf", "label": "qwen"}], "corpus": "c"}
    raw.update(overrides)
    return plan_from_mapping(raw, Path("/base"))


def test_defaults_and_relative_corpus():
    resolved = plan()
    assert resolved.runs == 5 and resolved.task == "" and resolved.sandbox == "docker"
    assert resolved.corpus == "/base/c"
    assert [m.label for m in resolved.models] == ["a", "qwen"]


def test_runs_are_interleaved_and_share_seeds_across_models():
    order = run_order(plan(runs=3))
    assert [s.run_id for s in order] == ["a-r01", "qwen-r01", "a-r02", "qwen-r02", "a-r03", "qwen-r03"]
    seeds = {s.run_id: s.seed for s in order}
    assert seeds["a-r02"] == seeds["qwen-r02"]
    assert len({seeds["a-r01"], seeds["a-r02"], seeds["a-r03"]}) == 3
    assert run_order(plan(seed=1))[0].seed != order[0].seed


@pytest.mark.parametrize(
    "spec, label",
    [("default", "default"), ("gguf:/m/Qwen2.5-7B.Q4_K_M.gguf", "qwen2.5-7b.q4_k_m"),
     ("openai:http://127.0.0.1:8080/v1#llama-3", "llama-3"), ("scripted:/t/answers.jsonl", "answers")],
)
def test_labels_from_specs(spec, label):
    assert label_for_spec(spec) == label


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"models": []}, "at least one model"),
        ({"models": ["scripted:/a/x.jsonl", "scripted:/b/x.jsonl"]}, "share the label"),
        ({"runs": 0}, "runs must be"),
        ({"sandbox": "chroot"}, "sandbox must be"),
        ({"seed": -1}, "seed must be"),
        ({"limits": {"memory": 1}}, "bad [limits]"),
        ({"limits": {"memory_mb": "4096"}}, "bad [limits]: memory_mb must be a whole number"),
        ({"limits": {"cpus": 0}}, "bad [limits]: cpus must be a number > 0"),
        ({"limits": "4096"}, "limits must be a table"),
        ({"task_settings": 5}, "task_settings must be a table"),
        ({"model_options": ["n_ctx"]}, "model_options must be a table"),
        ({"extra_key": 1}, "unknown plan key"),
    ],
)
def test_bad_plans_are_named_errors(overrides, message):
    with pytest.raises(PlanError, match=message.replace("[", r"\[")):
        plan(**overrides)


def test_hash_and_differences():
    first, second = plan(), plan(runs=3, limits={"memory_mb": 1024})
    assert first.sha256() == plan().sha256()
    assert first.sha256() != second.sha256()
    changes = plan_differences(first.to_dict(), second.to_dict())
    assert "runs: 5 -> 3" in changes
    assert "limits.memory_mb: 4096 -> 1024" in changes


def test_load_plan_from_toml(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text('models = ["default"]\nruns = 2\ncorpus = "corpus"\n[task_settings]\nrepair_turns = 2\n')
    loaded = load_plan(path)
    assert loaded.runs == 2 and loaded.corpus == str(tmp_path / "corpus")
    assert loaded.task_settings == {"repair_turns": 2}
    broken = tmp_path / "broken.toml"
    broken.write_text("models = [")
    with pytest.raises(PlanError, match="not valid TOML"):
        load_plan(broken)


def test_changed_plan_is_refused_before_anything_runs(tmp_path):
    from bakeoff.batchfolder.files import WriteCounter
    from bakeoff.runner.batch import BatchOptions, open_batch_folder

    options = BatchOptions(out_dir=tmp_path / "batch")
    open_batch_folder(plan(runs=2), options, WriteCounter())
    open_batch_folder(plan(runs=2), options, WriteCounter())  # the same plan resumes
    with pytest.raises(PlanChanged, match="seed: 0 -> 1"):
        open_batch_folder(plan(runs=2, seed=1), options, WriteCounter())
    with pytest.raises(PlanChanged, match="runs: 2 -> 1"):
        open_batch_folder(plan(runs=1), options, WriteCounter())  # fewer runs: not an extension
    batch, added = open_batch_folder(plan(runs=3), options, WriteCounter())  # more runs: the batch grows
    assert added == ("a-r03", "qwen-r03") and batch.order[-2:] == added


def test_cli_reports_plan_errors_without_traceback(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text('models = ["default"]\nruns = 0\ncorpus = "c"\n')
    result = bakeoff_cli("run", "--plan", str(path), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "error: PlanError: runs must be" in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_refuses_no_isolation_without_the_flag(tmp_path):
    from runner_support import make_tiny_corpus

    corpus = make_tiny_corpus(tmp_path / "corpus")
    result = bakeoff_cli("run", "--model", "scripted:/nowhere.jsonl", "--runs", "1", "--corpus", str(corpus),
                         "--sandbox", "none", "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "error: UnsafeNotAcknowledged:" in result.stderr


def test_cli_status_of_a_folder_that_is_no_batch(tmp_path):
    result = bakeoff_cli("status", str(tmp_path))
    assert result.returncode == 2 and "error: NotABatch:" in result.stderr


def test_every_command_has_help():
    for command in ("run", "status", "demo"):
        result = bakeoff_cli(command, "--help")
        assert result.returncode == 0 and "Usage:" in result.stdout
