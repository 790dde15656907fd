"""Tool calls read from raw replies in each family's syntax, an OpenAI reply's `tool_calls`, and the capture audit
of an agent's step (unknown tool, bad arguments, JSON that does not parse, no call at all, reasoning apart)."""

from __future__ import annotations

import json

import pytest

from bakeoff.answers import audit_tool_calls
from bakeoff.models.base import Completion
from bakeoff.models.tools import (
    MAX_CALLS,
    ToolCall,
    ToolSpec,
    ToolSyntax,
    calls_from_openai,
    parse_reply,
    syntax_of_rendering,
)
from bakeoff.records import CaptureReason, CaptureStatus
from bakeoff.scaffolds.agent.tools import TOOLS

RUN_LS = ("run", {"command": "ls -l"})


def named(calls) -> list[tuple[str, object]]:
    return [(c.name, json.loads(c.arguments)) for c in calls]


RAW_REPLIES = {
    ToolSyntax.HERMES: [
        ('Let me look.\n<tool_call>\n{"name": "run", "arguments": {"command": "ls -l"}}\n</tool_call>', [RUN_LS], "Let me look."),
        ('<tool_call>{"name": "run", "arguments": {"command": "ls -l"}}</tool_call>\n<tool_call>\n'
         '{"name": "submit", "arguments": {}}\n</tool_call>', [RUN_LS, ("submit", {})], ""),
        # the model stopped at its end-of-turn token before closing the tag
        ('<tool_call>\n{"name": "run", "arguments": {"command": "ls -l"}}\n', [RUN_LS], ""),
    ],
    ToolSyntax.LLAMA3_JSON: [
        ('{"name": "run", "parameters": {"command": "ls -l"}}', [RUN_LS], ""),
        ('<|python_tag|>{"name": "run", "parameters": {"command": "ls -l"}}; {"name": "submit", "parameters": {}}',
         [RUN_LS, ("submit", {})], ""),
        ('{"type": "function", "name": "run", "parameters": {"command": "ls -l"}}', [RUN_LS], ""),
    ],
    ToolSyntax.MISTRAL: [
        ('[TOOL_CALLS] [{"name": "run", "arguments": {"command": "ls -l"}, "id": "abcdefghi"}]', [RUN_LS], ""),
        ('Running it.[TOOL_CALLS]run[ARGS]{"command": "ls -l"}[TOOL_CALLS]submit[ARGS]{}', [RUN_LS, ("submit", {})],
         "Running it."),
    ],
    ToolSyntax.HARMONY: [
        ('<|channel|>analysis<|message|>I should list the files.<|end|><|start|>assistant<|channel|>commentary '
         'to=functions.run <|constrain|>json<|message|>{"command": "ls -l"}<|call|>', [RUN_LS],
         "<|channel|>analysis<|message|>I should list the files.<|end|>"),
        ('<|start|>assistant to=functions.run<|channel|>commentary json<|message|>{"command": "ls -l"}<|call|>',
         [RUN_LS], ""),
    ],
    ToolSyntax.TEXT: [
        ('I will train now.\n\n```tool\n{"name": "run", "arguments": {"command": "ls -l"}}\n```\n', [RUN_LS],
         "I will train now."),
        ('<tool_call>{"name": "run", "arguments": {"command": "ls -l"}}</tool_call>', [RUN_LS], ""),  # Hermes habit
    ],
}
CASES = [(syntax, reply, calls, rest) for syntax, replies in RAW_REPLIES.items() for reply, calls, rest in replies]


@pytest.mark.parametrize(("syntax", "reply", "calls", "rest"), CASES)
def test_a_raw_reply_in_its_family_syntax_gives_its_calls_and_the_rest_of_its_text(syntax, reply, calls, rest):
    parsed = parse_reply(reply, syntax)
    assert [c.error for c in parsed.calls] == [None] * len(calls)
    assert named(parsed.calls) == calls
    assert parsed.text == rest


@pytest.mark.parametrize("syntax", list(RAW_REPLIES))
def test_a_plain_answer_has_no_call(syntax):
    parsed = parse_reply("The data has 1500 rows and 18% spam.", syntax)
    assert parsed.calls == () and parsed.text == "The data has 1500 rows and 18% spam."


@pytest.mark.parametrize(("syntax", "reply"), [
    (ToolSyntax.HERMES, '<tool_call>\n{"name": "run", "arguments": {"command": "ls}\n</tool_call>'),
    (ToolSyntax.LLAMA3_JSON, '<|python_tag|>{"name": "run", "parameters": {"command": '),
    (ToolSyntax.MISTRAL, '[TOOL_CALLS]run[ARGS]{"command": '),
    (ToolSyntax.HARMONY, '<|channel|>commentary to=functions.run <|constrain|>json<|message|>{"command": "ls"<|call|>'),
    (ToolSyntax.TEXT, '```tool\n{"name": "run", "arguments": {"command": "ls"\n```'),
])
def test_call_markup_whose_json_does_not_parse_is_a_call_with_an_error(syntax, reply):
    calls = parse_reply(reply, syntax).calls
    assert len(calls) == 1 and calls[0].error is not None and "does not parse" in calls[0].error


def test_an_openai_reply_s_tool_calls_are_read_as_the_server_gave_them():
    items = [{"id": "call_1", "type": "function", "function": {"name": "run", "arguments": '{"command": "ls -l"}'}},
             {"id": "call_2", "type": "function", "function": {"name": "submit", "arguments": {}}},
             {"id": "call_3", "type": "function"}]
    calls = calls_from_openai(items)
    assert named(calls[:2]) == [RUN_LS, ("submit", {})] and calls[0].call_id == "call_1"
    assert calls[2].error == "a tool call without a function"
    assert calls_from_openai(None) == ()
    with pytest.raises(TypeError):
        calls_from_openai({"not": "a list"})


def test_a_flood_of_markup_is_read_in_one_pass_and_bounded():
    flood = "<tool_call>{" * 50_000 + '[TOOL_CALLS]x[ARGS]{"' * 20_000 + "to=functions.x <|message|>{" * 20_000
    for syntax in RAW_REPLIES:
        assert len(parse_reply(flood, syntax).calls) <= MAX_CALLS


def completion(text: str = "", calls: tuple[ToolCall, ...] = (), **fields) -> Completion:
    values = dict(text=text, finish_reason="stop", prompt_tokens=10, completion_tokens=20, prompt_seconds=0.0,
                  generation_seconds=0.0, backend="scripted:x", tool_calls=calls)
    return Completion(**{**values, **fields})


def call(name: str, arguments: str) -> ToolCall:
    return ToolCall(name, arguments)


@pytest.mark.parametrize(("calls", "reason", "detail"), [
    ((call("run", '{"command": "ls"}'),), None, ""),
    ((call("rm_rf", "{}"),), CaptureReason.UNKNOWN_TOOL, "there is no tool 'rm_rf'"),
    ((call("run", "{}"),), CaptureReason.BAD_ARGUMENTS, "missing argument(s): command"),
    ((call("run", '{"command": 3}'),), CaptureReason.BAD_ARGUMENTS, "must be a JSON string"),
    ((call("run", '{"command": "ls", "cwd": "/"}'),), CaptureReason.BAD_ARGUMENTS, "unknown argument(s): cwd"),
    ((call("run", '["ls"]'),), CaptureReason.BAD_ARGUMENTS, "not an object"),
    ((call("run", '{"command": '),), CaptureReason.MALFORMED_CALL, "are not JSON"),
    ((ToolCall("", "{oops", "", "<tool_call>: the JSON does not parse"),), CaptureReason.MALFORMED_CALL, "does not parse"),
])
def test_the_audit_names_what_is_wrong_with_a_call(calls, reason, detail):
    capture, problems = audit_tool_calls(completion(calls=calls), TOOLS)
    if reason is None:
        assert capture.status == CaptureStatus.CAPTURED and problems == (None,)
        return
    assert capture.status == CaptureStatus.UNUSABLE and capture.reason == reason and detail in capture.detail
    assert problems[0] is not None and problems[0][0] == reason


def test_each_call_of_a_step_is_judged_on_its_own():
    calls = (call("write_file", '{"path": "a.py", "content": "print(1)"}'), call("nope", "{}"),
             call("run", '{"command": "python a.py"}'))
    capture, problems = audit_tool_calls(completion(calls=calls), TOOLS)
    assert capture.reason == CaptureReason.UNKNOWN_TOOL
    assert [p[0] if p else None for p in problems] == [None, CaptureReason.UNKNOWN_TOOL, None]


def test_no_call_at_all_is_its_own_reason_and_the_usual_failures_come_first():
    assert audit_tool_calls(completion("I think the data is fine."), TOOLS)[0].reason == CaptureReason.NO_TOOL_CALL
    cut = completion("def main(", finish_reason="length", completion_tokens=700, token_budget=700)
    assert audit_tool_calls(cut, TOOLS)[0].reason == CaptureReason.CUT_OFF
    failed = Completion.failure("gguf:x", "the engine died", "backend_crash")
    assert audit_tool_calls(failed, TOOLS)[0].status == CaptureStatus.UNCAPTURED


def test_reasoning_is_kept_apart_never_searched_for_calls():
    # A call written inside the reasoning is not a call; an answer after reasoning that calls a tool is one.
    thinking = completion("", reasoning='<tool_call>{"name": "run", "arguments": {"command": "ls"}}</tool_call>',
                          reasoning_tokens=30)
    capture, _ = audit_tool_calls(thinking, TOOLS)
    assert capture.status == CaptureStatus.UNUSABLE and capture.reason == CaptureReason.NO_ANSWER
    runaway = completion("", reasoning="hmm " * 100, reasoning_tokens=400, finish_reason="length",
                         completion_tokens=400, token_budget=400)
    assert audit_tool_calls(runaway, TOOLS)[0].reason == CaptureReason.RUNAWAY_REASONING
    answered = completion("", (call("list_files", "{}"),), reasoning="Look first.", reasoning_tokens=3)
    assert audit_tool_calls(answered, TOOLS)[0].status == CaptureStatus.CAPTURED


def test_a_tools_file_in_the_openai_shape_reads_back():
    tool = TOOLS[0]
    assert ToolSpec.from_openai(tool.to_openai()) == tool
    with pytest.raises(ValueError):
        ToolSpec.from_openai({"type": "function", "function": {"description": "no name"}})


def test_the_syntax_is_read_from_what_a_template_renders():
    assert syntax_of_rendering(None, "<tools>\n{...}\n</tools>") == ToolSyntax.HERMES
    assert syntax_of_rendering('[TOOL_CALLS] [{"name": "probe_tool"}]', "[AVAILABLE_TOOLS]") == ToolSyntax.MISTRAL
    assert syntax_of_rendering(None, "namespace functions {") == ToolSyntax.HARMONY
    assert syntax_of_rendering('{"name": "probe_tool", "parameters": {"x": 1}}', '"name": "probe_tool"') == \
        ToolSyntax.LLAMA3_JSON
    assert syntax_of_rendering("Say hi.", "Say hi.") == ToolSyntax.TEXT  # takes tools, shows no call: ours


@pytest.mark.parametrize("syntax", [ToolSyntax.HERMES, ToolSyntax.LLAMA3_JSON, ToolSyntax.MISTRAL, ToolSyntax.TEXT])
def test_a_reply_nested_past_every_stack_is_no_call_and_no_crash(syntax):
    deep = "[" * 200_000
    markup = {ToolSyntax.HERMES: f"<tool_call>{deep}", ToolSyntax.LLAMA3_JSON: deep,
              ToolSyntax.MISTRAL: f"[TOOL_CALLS] {deep}", ToolSyntax.TEXT: f"```tool\n{deep}\n```"}[syntax]
    parsed = parse_reply(markup, syntax)
    assert all(call.error for call in parsed.calls)  # read as malformed at most, never raised


def test_a_call_in_a_reply_is_read_by_durable_s_reader_so_what_is_not_json_is_a_malformed_call():
    """A reply's calls are read through durable.loads_prefix (the one JSON door): NaN, Infinity and a number of a
    thousand digits are not JSON, so such a call is malformed, named, never a value Python's reader alone takes."""
    for value in ("NaN", "-Infinity", "9" * 1000):
        parsed = parse_reply(f'<tool_call>{{"name": "run", "arguments": {{"command": {value}}}}}</tool_call>',
                             ToolSyntax.HERMES)
        assert [call.error for call in parsed.calls] == ["<tool_call>: the JSON does not parse"], value
    parsed = parse_reply('<tool_call>{"name": "run", "arguments": {"command": "ls"}}</tool_call> done',
                         ToolSyntax.HERMES)
    assert [(call.name, json.loads(call.arguments)) for call in parsed.calls] == [("run", {"command": "ls"})]


def test_arguments_nested_too_deeply_are_malformed_and_reach_a_template_as_text():
    arguments = '{"command": ' + "[" * 5000 + "]" * 5000 + "}"
    call = ToolCall("run", arguments, "c1")
    with pytest.raises(ValueError, match="nests"):
        call.parsed_arguments()
    assert call.template_dict()["function"]["arguments"] == arguments  # the text, not a structure of 5000 levels
    completion = Completion(text="", finish_reason="stop", prompt_tokens=1, completion_tokens=1, prompt_seconds=0.0,
                            generation_seconds=0.0, backend="scripted", tool_calls=(call,))
    capture, problems = audit_tool_calls(completion, TOOLS, 100)
    assert capture.status == CaptureStatus.UNUSABLE
    assert problems[0] is not None and problems[0][0] == CaptureReason.MALFORMED_CALL and "nests" in problems[0][1]


def test_calls_are_written_again_as_strict_json_even_from_non_finite_numbers():
    """Python's JSON reader takes NaN and 1e999; what bakeoff writes again must be JSON any reader takes."""
    from bakeoff.models.tools import calls_from_openai, json_text

    strict = {"parse_constant": lambda name: pytest.fail(f"{name} written")}
    assert json.loads(json_text({"x": float("nan"), "y": [float("inf"), 1.5]}), **strict) == {"x": "nan",
                                                                                             "y": ["inf", 1.5]}
    calls = calls_from_openai([{"id": "c1", "function": {"name": "run", "arguments": {"command": float("-inf")}}}])
    assert json.loads(calls[0].arguments, **strict) == {"command": "-inf"} and calls[0].error is None
