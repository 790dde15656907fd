"""The agent's conversation is rebuilt from its step records alone: native calls as the model's own tool turns,
the text protocol written back into the messages, and the context budget cut the same way every time."""

from __future__ import annotations

import json
import re

from bakeoff.models.tools import ToolCall, ToolSyntax, parse_text_protocol
from bakeoff.records import (
    Capture,
    CaptureReason,
    CaptureStatus,
    Commit,
    CompletionRecord,
    LoopUsage,
    Prompt,
    Timings,
)
from bakeoff.scaffolds.agent.conversation import conversation, opening
from bakeoff.scaffolds.agent.records import StepRecord, ToolResult
from bakeoff.scaffolds.agent.settings import AgentSettings
from bakeoff.scaffolds.agent.tools import TOOLS
from bakeoff.tasks.registry import task_plugin

CAPTURED = Capture(CaptureStatus.CAPTURED, CaptureReason.OK)


def step(number: int, calls: tuple[ToolCall, ...], results: tuple[ToolResult, ...], text: str = "",
         capture: Capture = CAPTURED) -> StepRecord:
    completion = CompletionRecord(text, "stop", 10, 20, 0.0, 0.0, "scripted:x", tool_calls=calls)
    return StepRecord("r", number, Prompt(f"agent#{number}", (), 0, 0), completion, capture, results, (),
                      Commit("abc", "agent step", ""), Timings("", ""), LoopUsage(number))


def first(syntax: str):
    return opening(task_plugin("spam_classifier").spec(), "id,subject\n1,hi\n", "data/train.csv", AgentSettings(),
                   syntax, TOOLS)


WRITE = ToolCall("write_file", json.dumps({"path": "train.py", "content": "print('x')\n" * 400}))
RUN = ToolCall("run", '{"command": "python train.py"}')
STEPS = (step(1, (WRITE,), (ToolResult("write_file", True, "Wrote train.py (4400 bytes)."),), "I write it."),
         step(2, (RUN,), (ToolResult("run", False, "exit status 1\nTraceback ...\nKeyError: 'labels'"),)),
         step(3, (), (), "I think it is fine.", Capture(CaptureStatus.UNUSABLE, CaptureReason.NO_TOOL_CALL, "no call")))


def test_native_calls_are_the_model_s_own_tool_turns_answered_by_tool_turns():
    messages, cuts = conversation(first(ToolSyntax.HERMES), STEPS, ToolSyntax.HERMES, 1_000_000)
    assert cuts == ()
    roles = [m.role for m in messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "user"]
    assert messages[2].tool_calls[0].name == "write_file" and messages[3].tool_call_id == messages[2].tool_calls[0].call_id
    assert all(re.fullmatch(r"[A-Za-z0-9]{9}", m.tool_call_id) for m in messages if m.role == "tool")
    assert "no_tool_call" in messages[-1].content and "Every reply must call one of the tools" in messages[-1].content
    assert "```tool" not in messages[0].content  # the template shows the tools its own way


def test_the_text_protocol_is_stated_and_the_calls_are_written_back_as_the_model_wrote_them():
    messages, _ = conversation(first(ToolSyntax.TEXT), STEPS, ToolSyntax.TEXT, 1_000_000)
    assert "```tool" in messages[0].content and "- write_file(path: string, content: string)" in messages[0].content
    assert [m.role for m in messages] == ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    back = parse_text_protocol(messages[2].content)
    assert back.text == "I write it." and back.calls[0].name == "write_file"
    assert "Result of run:\nexit status 1" in messages[5].content


def test_the_opening_holds_the_statement_the_data_s_first_lines_and_the_task_s_brief():
    system, user = first(ToolSyntax.HERMES)
    assert "submit" in system.content and "30 steps" in system.content
    assert "moment it arrives" in user.content and "id,subject" in user.content and "EXPECTED_F1" in user.content


def test_a_conversation_over_its_budget_shortens_older_steps_first_then_drops_the_oldest():
    many = tuple(step(n, (WRITE,), (ToolResult("write_file", True, "Wrote it. " * 50),)) for n in range(1, 9))
    full, _ = conversation(first(ToolSyntax.HERMES), many, ToolSyntax.HERMES, 10_000_000)
    size = sum(len(m.content) + sum(len(c.arguments) for c in m.tool_calls) for m in full)
    shrunk, cuts = conversation(first(ToolSyntax.HERMES), many, ToolSyntax.HERMES, size - 20_000)
    assert cuts and all(c.kept_chars > 0 for c in cuts)  # shortened, none dropped
    assert json.loads(shrunk[2].tool_calls[0].arguments)["path"] == "train.py"  # still a valid call
    assert shrunk[-2].tool_calls[0].arguments == WRITE.arguments  # the last steps are kept whole
    for budget in (12_000, 8_000):  # the oldest steps dropped; at 8,000 the last step shortened too
        dropped, cuts = conversation(first(ToolSyntax.HERMES), many, ToolSyntax.HERMES, budget)
        assert any(c.kept_chars == 0 for c in cuts) and "were cut from this conversation" in dropped[1].content
        assert sum(len(m.content) + sum(len(c.arguments) for c in m.tool_calls) for m in dropped) <= budget
        assert dropped[-2].tool_calls[0].name == "write_file"  # the last step is there, a valid call
        assert dropped == conversation(first(ToolSyntax.HERMES), many, ToolSyntax.HERMES, budget)[0]  # alike


def test_a_call_s_arguments_are_read_within_their_caps_before_they_are_shortened():
    """A model's arguments are untrusted bytes: read by durable's reader with the caps a call's arguments have
    everywhere (bakeoff.models.tools.ARGUMENT_LIMITS). Within them the long strings are cut and the JSON kept valid;
    past them (nesting deeper than any tool's, NaN) the text is cut as text, never parsed further."""
    from bakeoff.models.tools import ARGUMENT_LIMITS
    from bakeoff.scaffolds.agent.conversation import SHRUNK_CHARS, _shrunk_arguments
    from bakeoff.taskapi.context import shorten

    whole = json.dumps({"path": "train.py", "content": "x" * 5000})
    assert json.loads(_shrunk_arguments(whole))["path"] == "train.py"
    too_deep = '{"path": "a", "content": ' + "[" * (ARGUMENT_LIMITS.max_depth + 1) + "]" * (
        ARGUMENT_LIMITS.max_depth + 1) + ', "pad": "' + "y" * 5000 + '"}'
    for hostile in (too_deep, '{"content": NaN, "pad": "' + "z" * 5000 + '"}'):
        assert _shrunk_arguments(hostile) == shorten(hostile, SHRUNK_CHARS)  # its head and tail, as text
