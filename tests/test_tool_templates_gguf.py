"""Tool calls through real chat templates of four families, rendered by the llama.cpp backend on real GGUF files.

Each file is a copy of the default model (SmolLM2-135M-Instruct) whose `tokenizer.chat_template` is rewritten
with `gguf-new-metadata --chat-template-file` (the `gguf` package); the templates, in tests/tool_templates/, are
written for these tests in each family's layout (Hermes/Qwen, Llama 3.1, Mistral v3, harmony). What is tested:
the backend reads the family's syntax from its template (model_info's tool_syntax), the tools offered reach the
prompt the engine renders, a call the template writes back into the conversation is read by bakeoff's parser
for that syntax (what a model of the family generates is what its template writes), and the model generates
with tools offered. The 135M model knows none of these formats, so what it answers is audited, not parsed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bakeoff.answers import audit_tool_calls
from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.registry import BackendOptions, default_model_path, open_backend
from bakeoff.models.tools import ToolCall, ToolSyntax, parse_reply
from bakeoff.records import CaptureStatus
from bakeoff.scaffolds.agent.tools import TOOLS

pytestmark = pytest.mark.llama

TEMPLATES = Path(__file__).parent / "tool_templates"
FAMILIES = {"hermes": ToolSyntax.HERMES, "llama3": ToolSyntax.LLAMA3_JSON, "mistral": ToolSyntax.MISTRAL,
            "harmony": ToolSyntax.HARMONY}
# Where a family's model stops generating: its end-of-turn token (Mistral, harmony: where the tool's answer
# begins; the copy's end-of-sequence token is SmolLM2's, and each harmony call ended at its own <|call|>).
TURN_ENDS = {"hermes": "<|im_end|>", "llama3": "<|eot_id|>", "mistral": "[TOOL_RESULTS]",
             "harmony": "<|start|>functions"}
OPENING = [Message("system", "Work in the folder."), Message("user", "Train the model.")]
CALLS = (ToolCall("write_file", '{"path": "train.py", "content": "print(\\"EXPECTED_F1: 0.5\\")\\n"}', "s001c0000"),
         ToolCall("run", '{"command": "python train.py"}', "s001c0001"))


def with_template(folder: Path, name: str) -> Path:
    out = folder / f"{name}.gguf"
    tool = Path(sys.executable).parent / "gguf-new-metadata"
    subprocess.run([str(tool), str(default_model_path()), str(out), "--chat-template-file",
                    str(TEMPLATES / f"{name}.jinja"), "--force"], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tool-templates")
    return {name: with_template(folder, name) for name in FAMILIES}


def opened(path: Path, tmp: Path):
    return open_backend(f"gguf:{path}", BackendOptions(n_ctx=2048, n_threads=2, hash_cache_file=tmp / "h.json"))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_the_template_s_call_syntax_is_read_and_its_calls_parse_back(models, tmp_path, family):
    backend = opened(models[family], tmp_path)
    try:
        assert backend.tool_syntax == FAMILIES[family]
        completion_info = backend.chat(OPENING, key="agent#1", settings=GenerationSettings(max_tokens=4))
        assert completion_info.model_info["tool_syntax"] == FAMILIES[family]
        before = backend.render_prompt(OPENING, TOOLS)
        assert all(tool.name in before for tool in TOOLS)  # the tools reach the prompt, the template's way
        assert "probe_tool" not in before
        results = [Message("tool", "ok", tool_call_id=c.call_id, name=c.name) for c in CALLS]
        after = backend.render_prompt([*OPENING, Message("assistant", "", CALLS), *results], TOOLS)
        assert after.startswith(before)  # the call continues the prompt as the model's own turn would
        turn = after[len(before):]
        reply = turn[:turn.index(TURN_ENDS[family])]  # the model's own turn: up to where it stops
        parsed = parse_reply(reply, FAMILIES[family])
        assert [(c.name, c.parsed_arguments(), c.error) for c in parsed.calls] == \
            [(c.name, c.parsed_arguments(), None) for c in CALLS]
    finally:
        backend.close()


@pytest.mark.parametrize("family", ["hermes", "mistral"])
def test_the_model_generates_with_tools_offered_and_its_answer_is_audited(models, tmp_path, family):
    backend = opened(models[family], tmp_path)
    try:
        settings = GenerationSettings(max_tokens=24, tools=TOOLS, seed=1)
        completion = backend.chat(OPENING, key="agent#1", settings=settings)
    finally:
        backend.close()
    assert completion.error is None and completion.completion_tokens > 0
    capture, problems = audit_tool_calls(completion, TOOLS, settings.total_tokens)
    # The 135M model writes no call in these formats: its answer is unusable for a named reason, never a crash.
    assert capture.status in (CaptureStatus.UNUSABLE, CaptureStatus.CAPTURED)
    assert len(problems) == len(completion.tool_calls)


def test_the_default_model_s_template_has_no_tool_syntax_and_gets_the_text_protocol(tmp_path):
    backend = open_backend("default", BackendOptions(n_ctx=1024, n_threads=2, hash_cache_file=tmp_path / "h.json"))
    try:
        assert backend.tool_syntax == ToolSyntax.TEXT
        prompt = backend.render_prompt(OPENING, TOOLS)
        assert "write_file" not in prompt  # the text protocol's tools are in the system prompt the agent writes
    finally:
        backend.close()
