"""The agent's tools through the chat template's own process (bakeoff.models.template_process): the check finds
the family's tool syntax there, the tools and earlier calls travel to it with the messages, and a template that
fails only when offered tools still serves staged runs, with the text protocol for the agent."""

from __future__ import annotations

from pathlib import Path

from bakeoff.models.template_process import TemplateLimits, TemplateProcess
from bakeoff.models.tools import ToolCall, ToolSyntax
from bakeoff.scaffolds.agent.tools import TOOLS

TEMPLATES = Path(__file__).parent / "tool_templates"
CHATML = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
FAILS_WITH_TOOLS = "{% if tools %}{{ 1 // 0 }}{% endif %}" + CHATML
LIMITS = TemplateLimits(deadline_s=30.0)


def test_the_tools_and_the_calls_reach_the_template_in_its_process():
    source = (TEMPLATES / "hermes.jinja").read_text(encoding="utf-8")
    call = ToolCall("run", '{"command": "python train.py"}', "c1")
    messages = [{"role": "user", "content": "Train."},
                {"role": "assistant", "content": "", "tool_calls": [call.template_dict()]},
                {"role": "tool", "content": "exit 0", "tool_call_id": "c1", "name": "run"}]
    with TemplateProcess(source, model="m", limits=LIMITS) as template:
        assert template.check().tool_syntax is ToolSyntax.HERMES
        prompt = template.render(messages, tools=[t.to_openai() for t in TOOLS])
    assert all(f'"name": "{tool.name}"' in prompt for tool in TOOLS)  # every tool offered, in the template's layout
    assert "<tool_call>" in prompt and "python train.py" in prompt and "exit 0" in prompt


def test_a_template_that_fails_only_on_tools_loads_with_the_text_protocol():
    with TemplateProcess(FAILS_WITH_TOOLS, model="m", limits=LIMITS) as template:
        assert template.check().tool_syntax is ToolSyntax.TEXT
        assert template.render([{"role": "user", "content": "hi"}]).endswith("<|im_start|>assistant\n")
