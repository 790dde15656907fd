"""Reasoning as a plan axis, per-model options, and budgets checked before a batch starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from bakeoff.models.errors import ReasoningModeUnsupported
from bakeoff.models.openai_compat import reasoning_fields
from bakeoff.models.registry import BackendOptions
from bakeoff.records import ModelEntry
from bakeoff.runner.model_entries import ModelEntryError
from bakeoff.runner.plan import PlanError, plan_from_mapping
from bakeoff.taskapi.spec import load_task

GGUF = "gguf:/models/qwen3-8b.Q4_K_M.gguf"


def plan(models, **more):
    return plan_from_mapping({"models": models, "corpus": "c", **more}, Path("/base"))


def test_one_file_with_reasoning_on_and_off_is_two_models():
    resolved = plan([GGUF, {"spec": GGUF, "reasoning": "off"}])
    assert [(m.label, m.reasoning) for m in resolved.models] == [
        ("qwen3-8b.q4_k_m", "default"), ("qwen3-8b.q4_k_m-reasoning-off", "off")]
    models = resolved.to_dict()["models"]
    assert models[0] == {"label": "qwen3-8b.q4_k_m", "spec": GGUF}  # unchanged form: old plans keep their hash
    assert models[1]["reasoning"] == "off"
    assert plan([GGUF]).sha256() != plan([{"spec": GGUF, "reasoning": "high"}]).sha256()


def test_a_model_entry_carries_its_own_options_over_the_shared_ones():
    resolved = plan([{"spec": GGUF, "n_ctx": 32768, "n_gpu_layers": 20, "n_threads": 6}],
                    model_options={"n_gpu_layers": -1, "n_threads_batch": 2})
    model = resolved.models[0]
    assert dict(model.options) == {"n_ctx": 32768, "n_gpu_layers": 20, "n_threads": 6}
    opened = model.opening_options(16384)
    assert opened == BackendOptions(n_ctx=32768, n_gpu_layers=20, n_threads=6, n_threads_batch=2)
    # Without its own n_ctx, a model is loaded with the task's context.
    assert ModelEntry("m", GGUF, "off").opening_options(16384) == BackendOptions(n_ctx=16384, reasoning="off")


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"spec": GGUF, "reasoning": "on"}, "reasoning must be one of"),
        ({"spec": GGUF, "thinking": True}, "unknown key"),
        ({"spec": GGUF, "n_ctx": 0}, "n_ctx must be a whole number > 0"),
        ({"spec": GGUF, "n_ctx": "16k"}, "n_ctx must be"),
        ({"spec": GGUF, "server": 8080}, "server must be text"),
    ],
)
def test_bad_model_entries_are_refused(entry, message):
    with pytest.raises(ModelEntryError, match=message):
        plan([entry])


def test_a_model_context_smaller_than_the_task_budget_is_refused_before_the_batch_starts(tmp_path):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.tasks import run_plan

    out = tmp_path / "batch"
    small = plan_from_mapping({"models": [{"spec": "scripted:/x/a.jsonl", "n_ctx": 8192}], "corpus": str(tmp_path)}, tmp_path)
    with pytest.raises(PlanError, match="n_ctx = 8192 is smaller than the task's context budget .context_tokens = 16384"):
        run_plan(small, BatchOptions(out_dir=out))
    assert not out.exists()  # nothing was started
    shared = plan_from_mapping({"models": ["scripted:/x/a.jsonl"], "corpus": str(tmp_path),
                                "model_options": {"n_ctx": 4096}}, tmp_path)
    with pytest.raises(PlanError, match="n_ctx = 4096"):
        run_plan(shared, BatchOptions(out_dir=out))
    crowded = plan_from_mapping({"models": ["scripted:/x/a.jsonl"], "corpus": str(tmp_path),
                                 "task_settings": {"context_tokens": 8192, "reasoning_tokens": {"implement": 8000}}},
                                tmp_path)
    with pytest.raises(PlanError, match="stage implement: max_tokens \\+ reasoning_tokens = 4,096 \\+ 8,000 = 12,096 tokens leaves no room"):
        run_plan(crowded, BatchOptions(out_dir=out))


def test_take_home_budgets_fit_real_models_and_the_demo_keeps_small_ones():
    from bakeoff.runner.model_entries import DEMO_TASK_SETTINGS

    settings = load_task("spam_classifier").settings
    assert settings.context_tokens == 16384
    assert settings.max_tokens_for("implement") > 1400  # the old budget: the careful reference alone filled it
    assert settings.reasoning_tokens_for("implement") > 0
    # Reasoning room is taken from the prompt's share, never from the answer's.
    assert settings.prompt_budget_chars("implement") == int((16384 - 4096 - 6144 - 64) * settings.chars_per_token)
    demo = load_task("spam_classifier", DEMO_TASK_SETTINGS).settings
    assert demo.context_tokens == 4096 and demo.max_tokens_for("implement") == 1400
    assert demo.reasoning_tokens_for("implement") == 0 and demo.prompt_budget_chars("implement") > 0


@pytest.mark.parametrize(
    "mode, server, fields",
    [
        ("default", "", {}),
        ("off", "llama.cpp", {"chat_template_kwargs": {"enable_thinking": False}}),
        ("high", "llama.cpp", {"chat_template_kwargs": {"reasoning_effort": "high"}}),
        ("off", "vllm", {"chat_template_kwargs": {"enable_thinking": False}}),
        ("low", "vllm", {"chat_template_kwargs": {"reasoning_effort": "low"}, "reasoning_effort": "low"}),
        ("off", "ollama", {"reasoning_effort": "none"}),
        ("medium", "ollama", {"reasoning_effort": "medium"}),
    ],
)
def test_reasoning_modes_map_to_each_servers_field(mode, server, fields):
    assert reasoning_fields(mode, server) == fields


def test_a_mode_over_http_without_a_known_server_is_refused():
    with pytest.raises(ReasoningModeUnsupported, match="needs the model entry to say which server"):
        reasoning_fields("off", "")
    with pytest.raises(ReasoningModeUnsupported, match="must be default, off"):
        reasoning_fields("max", "vllm")


def careful_reference_answer() -> str:
    """The careful reference submission written out the way the implement prompt asks, with a short explanation."""
    import generators.spam_classifier.references as references

    folder = Path(references.__file__).parent / "careful"
    files = [f"# file: {name}\n```python\n{(folder / name).read_text()}```\n" for name in ("train.py", "predict.py")]
    files.append("# file: requirements.txt\n```\nscikit-learn\npandas\nnumpy\njoblib\n```\n")
    explanation = ("TF-IDF on subject and body with a class-weighted logistic regression, since spam is the rarer "
                   "class; a stratified hold-out picks the threshold and gives the estimate; the final model is "
                   "refit on every row and predict.py writes id,label in input order.\n\nEXPECTED_F1: 0.91\n")
    return "\n".join(files) + "\n" + explanation


@pytest.mark.llama
def test_implement_budget_holds_the_careful_reference_with_room_to_spare():
    import llama_cpp

    from bakeoff.models.registry import default_model_path

    vocab = llama_cpp.Llama(model_path=str(default_model_path()), vocab_only=True, verbose=False)
    try:
        tokens = len(vocab.tokenize(careful_reference_answer().encode(), add_bos=False))
    finally:
        vocab.close()
    settings = load_task("spam_classifier").settings
    assert 1200 < tokens < 1700  # docs/models.md gives this figure (about 1,420 with SmolLM2's tokenizer)
    assert settings.max_tokens_for("implement") >= 2.5 * tokens and settings.max_tokens_for("repair") >= 2.5 * tokens


def test_the_worked_plan_in_docs_models_md_is_a_valid_plan():
    import re
    import tomllib

    docs = (Path(__file__).resolve().parents[1] / "docs" / "models.md").read_text()
    section = docs[docs.index("### Worked plan: one model with reasoning on and off"):]
    raw = tomllib.loads(re.search(r"```toml\n(.*?)```", section, re.S).group(1))
    resolved = plan_from_mapping(raw, Path("/base"))
    assert [(m.label, m.reasoning) for m in resolved.models] == [
        ("qwen3-8b-q4_k_m", "default"), ("qwen3-8b-q4_k_m-reasoning-off", "off"), ("gpt-oss-high", "high")]
    gpt_oss = resolved.models[2]
    assert gpt_oss.opening_options(16384) == BackendOptions(n_ctx=16384, server="vllm", reasoning="high")
    from bakeoff.runner.model_entries import check_context

    check_context(resolved.models, resolved.model_options, load_task("spam_classifier").settings, ("implement",))


def test_a_reasoning_mode_the_model_has_no_switch_for_is_refused_before_the_batch_starts(tmp_path):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.tasks import run_plan

    out = tmp_path / "batch"
    for entry, message in (({"spec": "default", "reasoning": "off"}, "no reasoning switch"),
                           ({"spec": "openai:http://127.0.0.1:9/v1#m", "reasoning": "low"}, "which server")):
        with pytest.raises(ReasoningModeUnsupported, match=message):
            run_plan(plan_from_mapping({"models": [entry], "corpus": str(tmp_path)}, tmp_path), BatchOptions(out_dir=out))
        assert not out.exists()
