"""Chat templates rendered as written (sandboxed Jinja2), and what they tell about reasoning.

The templates under tests/reasoning_templates/ are our own, each in one family's
published layout: harmony channels with a reasoning-effort line, a ChatML
template with an enable_thinking switch, one that opens <think> itself, and
bracketed [THINK]. They use raise_exception, namespaces, loop controls and strftime_now.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bakeoff.models.chat_template import ChatTemplate, TemplateTokens
from bakeoff.models.errors import ChatTemplateError, ReasoningModeUnsupported
from bakeoff.models.reasoning import ReasoningFormat

TEMPLATES = Path(__file__).parent / "reasoning_templates"
TODAY = dt.datetime(2026, 3, 14)
CHAT = [{"role": "system", "content": "Be exact."}, {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "<think>add</think>4"}, {"role": "user", "content": "3+3?"}]


def load(name: str) -> ChatTemplate:
    return ChatTemplate((TEMPLATES / f"{name}.jinja").read_text(), TemplateTokens("<s>", "</s>"), today=TODAY)


def test_harmony_template_renders_effort_and_channels():
    template = load("harmony")
    assert template.format is ReasoningFormat.HARMONY and not template.opens_reasoning({})
    prompt = template.render(CHAT)
    assert "Reasoning: medium" in prompt and "Date of today: 2026-03-14" in prompt
    assert prompt.count("<|start|>developer") == 1  # the namespace kept the first system message, the loop broke
    assert prompt.endswith("<|start|>assistant")
    high = template.render(CHAT, **template.reasoning_kwargs("high"))
    assert "Reasoning: high" in high and "Reasoning: medium" not in high
    with pytest.raises(ReasoningModeUnsupported, match="'off' is not possible.*reasoning_effort"):
        template.reasoning_kwargs("off")


def test_switch_template_turns_thinking_off_in_the_prompt():
    template = load("think_switch")
    assert template.format is ReasoningFormat.THINK
    on, off = template.render(CHAT), template.render(CHAT, **template.reasoning_kwargs("off"))
    assert on.endswith("<|im_start|>assistant\n") and off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert "add" not in on  # earlier reasoning is left out of the history
    assert template.reasoning_kwargs("off") == {"enable_thinking": False} and template.reasoning_kwargs("default") == {}
    with pytest.raises(ReasoningModeUnsupported, match="on/off switch"):
        template.reasoning_kwargs("high")


def test_template_that_opens_think_itself_is_recognised_from_its_prompt():
    template = load("think_opened")
    assert template.format is ReasoningFormat.THINK and template.opens_reasoning({})
    assert template.render(CHAT).endswith("<｜Assistant｜><think>\n")
    with pytest.raises(ReasoningModeUnsupported, match="no reasoning switch"):
        template.reasoning_kwargs("off")


def test_bracket_template_and_unknown_modes():
    template = load("think_bracket")
    assert template.format is ReasoningFormat.THINK_BRACKET
    chat = [*CHAT[:2], {"role": "assistant", "content": "[THINK]add[/THINK]4"}, CHAT[3]]
    assert template.render(chat) == "<s>[SYSTEM_PROMPT]Be exact.[/SYSTEM_PROMPT][INST]2+2?[/INST]4</s>[INST]3+3?[/INST]"
    default_system = template.render(CHAT[1:2])
    assert "[THINK] and [/THINK]" in default_system and "2026-03-14" in default_system
    with pytest.raises(ReasoningModeUnsupported, match="must be one of"):
        template.reasoning_kwargs("maximum")


def test_raise_exception_in_a_template_is_a_named_error():
    template = load("harmony")
    with pytest.raises(ChatTemplateError, match="refused the conversation: this template knows no role tool"):
        template.render([{"role": "tool", "content": "x"}])
    with pytest.raises(ChatTemplateError, match="refused.*reasoning_effort must be"):
        template.render(CHAT, reasoning_effort="extreme")


def test_a_template_that_cannot_render_is_refused_at_construction():
    with pytest.raises(ChatTemplateError, match="does not compile"):
        ChatTemplate("{% for m in messages %}{{ m.content }")
    with pytest.raises(ChatTemplateError, match="cannot render a plain conversation"):
        ChatTemplate("{{ raise_exception('this template takes no conversations') }}")
    with pytest.raises(ChatTemplateError, match="empty"):
        ChatTemplate("  ")
    # The sandbox refuses what a template may not do, as a named error.
    with pytest.raises(ChatTemplateError):
        ChatTemplate("{{ messages.__class__.__mro__ }}")


def test_a_template_refusing_system_messages_is_probed_without_one():
    template = ChatTemplate(
        "{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('no system role') }}{% endif %}"
        "<{{ m.role }}>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}"
    )
    assert template.format is ReasoningFormat.NONE
    with pytest.raises(ReasoningModeUnsupported, match="no reasoning switch"):
        template.reasoning_kwargs("off")


def test_a_switch_that_changes_nothing_is_no_switch():
    template = ChatTemplate("{% set ignored = enable_thinking %}{% for m in messages %}{{ m.content }}{% endfor %}")
    with pytest.raises(ReasoningModeUnsupported, match="renders the same prompt"):
        template.reasoning_kwargs("off")


def test_tojson_keeps_text_readable_and_sha256_names_the_source():
    template = ChatTemplate("{{ messages | tojson }}")
    assert template.render([{"role": "user", "content": "<b>é</b>"}]) == '[{"role": "user", "content": "<b>é</b>"}]'
    import hashlib

    assert template.sha256 == hashlib.sha256(b"{{ messages | tojson }}").hexdigest()
