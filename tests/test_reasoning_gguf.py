"""Real GGUF files whose chat template is one of ours, rendered and run by llama.cpp.

Each file is a copy of the default model (SmolLM2-135M-Instruct) whose
`tokenizer.chat_template` metadata is rewritten with `gguf-new-metadata
--chat-template-file` (the `gguf` package). The templates, in
tests/reasoning_templates/, are written for these tests in each family's
published layout. The 135M model knows none of these formats: what is tested
is what bakeoff does with the template (format, switch, budget, split), and
that llama.cpp renders and generates with each.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from gguf_copies import with_template

from bakeoff.answers import audit
from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.errors import ChatTemplateError, ReasoningModeUnsupported
from bakeoff.models.registry import BackendOptions, open_backend

pytestmark = pytest.mark.llama

TEMPLATES = Path(__file__).parent / "reasoning_templates"
CHAT = [Message("system", "Answer briefly."), Message("user", "Name a colour.")]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("templated")
    names = ("harmony", "think_switch", "think_opened", "think_bracket")
    return {name: with_template(folder, name, (TEMPLATES / f"{name}.jinja").read_text()) for name in names}


def opened(path: Path, reasoning: str = "default", tmp: Path | None = None):
    return open_backend(f"gguf:{path}", BackendOptions(n_ctx=1024, reasoning=reasoning, n_threads=2,
                                                        hash_cache_file=(tmp / "h.json") if tmp else None))


def test_harmony_effort_reaches_the_prompt_and_the_model_generates(models, tmp_path):
    backend = opened(models["harmony"], "high", tmp_path)
    try:
        prompt = backend.render_prompt(CHAT)
        assert "Reasoning: high" in prompt and prompt.endswith("<|start|>assistant")
        completion = backend.chat(CHAT, key="a#1", settings=GenerationSettings(max_tokens=12, reasoning_tokens=4))
    finally:
        backend.close()
    assert completion.error is None and completion.completion_tokens > 0
    info = completion.model_info
    assert info["reasoning_format"] == "harmony" and info["reasoning_template_kwargs"] == {"reasoning_effort": "high"}
    assert info["chat_template_sha256"] == hashlib.sha256((TEMPLATES / "harmony.jinja").read_bytes()).hexdigest()
    assert completion.token_budget == 16  # a reasoning model gets the reasoning room on top of the answer's
    assert "<|channel|>" not in completion.text  # whatever it wrote, markers never reach the answer


def test_harmony_has_no_off_switch_and_says_so_at_load(models):
    with pytest.raises(ReasoningModeUnsupported, match="'off' is not possible.*reasoning_effort"):
        opened(models["harmony"], "off")


def test_thinking_switch_off_shows_in_the_prompt_and_takes_no_reasoning_room(models):
    on, off = opened(models["think_switch"]), opened(models["think_switch"], "off")
    try:
        prompt_on, prompt_off = on.render_prompt(CHAT), off.render_prompt(CHAT)
        settings = GenerationSettings(max_tokens=10, reasoning_tokens=30)
        answer_on, answer_off = on.chat(CHAT, key="a#1", settings=settings), off.chat(CHAT, key="a#1", settings=settings)
    finally:
        on.close()
        off.close()
    assert prompt_on.endswith("<|im_start|>assistant\n")
    assert prompt_off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert answer_on.token_budget == 40 and answer_off.token_budget == 10
    assert answer_off.model_info["reasoning_template_kwargs"] == {"enable_thinking": False}
    for completion in (answer_on, answer_off):
        assert completion.error is None and completion.model_info["reasoning_format"] == "think"
    assert answer_off.reasoning == ""  # the prompt closed the reasoning: everything generated is the answer


def test_template_that_opens_think_runs_away_inside_the_reasoning(models):
    backend = opened(models["think_opened"])
    try:
        assert backend.render_prompt(CHAT).endswith("<｜Assistant｜><think>\n")
        completion = backend.chat(CHAT, key="a#1", settings=GenerationSettings(max_tokens=6, reasoning_tokens=6,
                                                                                temperature=0.0))
    finally:
        backend.close()
    # The small model never writes </think>: all it generated is reasoning, and the budget ran out.
    assert completion.error is None and completion.finish_reason == "length" and completion.completion_tokens == 12
    assert completion.text == "" and completion.reasoning.strip() and completion.reasoning_unfinished
    assert 0 < completion.reasoning_tokens <= 14  # counted with the model's own tokenizer
    capture = audit(completion, expect="code")
    assert (capture.status, capture.reason, capture.budget_cut) == ("unusable", "runaway_reasoning", True)


def test_bracket_template_renders_and_has_no_switch(models):
    backend = opened(models["think_bracket"])
    try:
        prompt = backend.render_prompt(CHAT)
        completion = backend.chat(CHAT, key="a#1", settings=GenerationSettings(max_tokens=8))
    finally:
        backend.close()
    # The file's own BOS text first (the template writes it), then our layout.
    assert prompt.endswith("[SYSTEM_PROMPT]Answer briefly.[/SYSTEM_PROMPT][INST]Name a colour.[/INST]")
    assert completion.error is None and completion.model_info["reasoning_format"] == "think_bracket"
    with pytest.raises(ReasoningModeUnsupported, match="no reasoning switch"):
        opened(models["think_bracket"], "low")


def test_a_template_that_cannot_render_is_a_named_error_at_load(tmp_path):
    refusing = with_template(tmp_path, "refusing", "{{ raise_exception('this model takes no chat') }}")
    with pytest.raises(ChatTemplateError, match="cannot render a plain conversation.*this model takes no chat"):
        opened(refusing)
    broken = with_template(tmp_path, "broken", "{% for m in messages %}{{ m.content }")
    with pytest.raises(ChatTemplateError, match="does not compile"):
        opened(broken)


def test_the_default_model_has_no_switch_and_keeps_its_answer_budget(tmp_path):
    backend = open_backend("default", BackendOptions(n_ctx=1024, hash_cache_file=tmp_path / "h.json"))
    try:
        completion = backend.chat(CHAT, key="a#1", settings=GenerationSettings(max_tokens=5, reasoning_tokens=50))
    finally:
        backend.close()
    assert completion.token_budget == 5 and completion.reasoning == "" and completion.reasoning_tokens == 0
    assert completion.model_info["reasoning_format"] == "none" and len(completion.model_info["chat_template_sha256"]) == 64
    with pytest.raises(ReasoningModeUnsupported, match="no reasoning switch"):
        open_backend("default", BackendOptions(n_ctx=1024, reasoning="off"))
