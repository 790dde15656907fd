"""A plan's backend options are checked when the plan is read: a typo or a wrong type is a PlanError that
names the key (and the model, for a model's own options), not "model failed to load" on every run."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.models.gguf import GgufSettings
from bakeoff.models.openai_compat import HttpSettings
from bakeoff.models.registry import OPTIONS_READ_BY, PLAN_OPTIONS, BackendOptions, options_from_plan
from bakeoff.models.server_backend import ServerSettings
from bakeoff.runner.model_entries import ModelEntryError
from bakeoff.runner.plan import PlanError, load_plan, plan_from_mapping

GGUF = "gguf:/models/qwen3-8b.Q4_K_M.gguf"
OPENAI = "openai:http://127.0.0.1:8080/v1#qwen3"


def plan(models, **more):
    return plan_from_mapping({"models": models, "corpus": "c", **more}, Path("/base"))


def test_what_each_backend_reads_is_its_settings_dataclass():
    # OPTIONS_READ_BY is spelled out so that registry need not import the backends; it must not drift from them.
    # A gguf model is read by one engine or the other (`engine` picks which); max_concurrent is read by the
    # executors for every backend (the semaphore), and by the server engine (its slots).
    engines = {f.name for f in fields(GgufSettings)} | {f.name for f in fields(ServerSettings)}
    gguf = engines & set(PLAN_OPTIONS) | {"engine"}
    openai = {f.name for f in fields(HttpSettings)} & set(PLAN_OPTIONS) | {"max_concurrent"}
    assert OPTIONS_READ_BY["gguf"] == gguf
    assert OPTIONS_READ_BY["openai"] == openai | {"n_ctx"}  # the context the plan declares for the server
    assert set(PLAN_OPTIONS) <= {f.name for f in fields(BackendOptions)}
    assert set(PLAN_OPTIONS) == gguf | openai | {"n_ctx"}


def test_plan_options_become_typed_backend_options():
    options = options_from_plan({"n_ctx": 8192, "n_gpu_layers": 20, "backoff_s": 2, "server": "vllm"})
    assert options == BackendOptions(n_ctx=8192, n_gpu_layers=20, backoff_s=2, server="vllm")


@pytest.mark.parametrize(
    "model_options, message",
    [
        ({"n_ctxx": 4096}, "bad [model_options]: unknown key(s) n_ctxx; known: api_key_env, backoff_s"),
        ({"n_ctx": "4096"}, "bad [model_options]: n_ctx must be a whole number > 0, got '4096'"),
        ({"n_ctx": 4096.0}, "bad [model_options]: n_ctx must be a whole number > 0, got 4096.0"),
        ({"n_gpu_layers": True}, "bad [model_options]: n_gpu_layers must be a whole number, got True"),
        ({"max_retries": -1}, "bad [model_options]: max_retries must be a whole number >= 0, got -1"),
        ({"backoff_s": "1s"}, "bad [model_options]: backoff_s must be a number >= 0, got '1s'"),
        ({"api_key_env": 7}, "bad [model_options]: api_key_env must be text, got 7"),
        # The test seams of BackendOptions are not plan values: a TOML string is no GPU probe.
        ({"gpu_probe": "nvml"}, "bad [model_options]: unknown key(s) gpu_probe"),
        ({"hash_cache_file": "/tmp/h.json"}, "bad [model_options]: unknown key(s) hash_cache_file"),
    ],
)
def test_bad_shared_options_are_plan_errors_naming_the_key(model_options, message):
    with pytest.raises(PlanError) as caught:
        plan(["default"], model_options=model_options)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"spec": GGUF, "n_ctxx": 4096}, f"model {GGUF!r}: unknown key(s) n_ctxx"),
        ({"spec": GGUF, "n_threads": "6"}, f"model {GGUF!r}: n_threads must be a whole number > 0, got '6'"),
        ({"spec": GGUF, "server": "vllm"}, f"model {GGUF!r}: server is not an option of its backend, which reads engine, max_concurrent, n_ctx"),
        ({"spec": OPENAI, "n_gpu_layers": 20}, f"model {OPENAI!r}: n_gpu_layers is not an option of its backend"),
        ({"spec": "default", "api_key_env": "MY_API_KEY"}, "model 'default': api_key_env is not an option of its backend"),
    ],
)
def test_bad_entry_options_are_plan_errors_naming_the_key_and_the_model(entry, message):
    with pytest.raises(ModelEntryError) as caught:
        plan([entry])
    assert isinstance(caught.value, PlanError)
    assert str(caught.value).startswith(message)


def test_options_each_backend_reads_are_accepted():
    resolved = plan([{"spec": GGUF, "n_ctx": 32768, "n_threads": 4}, {"spec": OPENAI, "server": "vllm", "n_ctx": 32768},
                     {"spec": "scripted:/x/a.jsonl", "n_ctx": 8192, "server": "vllm"}],  # scripted stands in for any
                    model_options={"n_gpu_layers": -1, "max_retries": 0})
    assert [dict(m.options) for m in resolved.models] == [
        {"n_ctx": 32768, "n_threads": 4}, {"n_ctx": 32768, "server": "vllm"}, {"n_ctx": 8192, "server": "vllm"}]


def test_a_plan_file_with_an_executor_table_loads(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text('models = ["default"]\ncorpus = "corpus"\n[executor]\nkind = "local"\nparallel = 2\n')
    with_table = load_plan(path)
    path.write_text('models = ["default"]\ncorpus = "corpus"\n')
    assert with_table == load_plan(path)  # [executor] says how to run the plan, not what it is


def test_the_cli_refuses_a_wrong_option_type_before_any_run(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text('models = ["scripted:/nowhere.jsonl"]\ncorpus = "c"\n[model_options]\nn_ctx = "4096"\n')
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", "--plan", str(path), "--out", str(out)])
    assert result.exit_code != 0
    assert "error: PlanError: bad [model_options]: n_ctx must be a whole number > 0, got '4096'" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()
