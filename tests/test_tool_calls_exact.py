"""The tool-call parser's every branch pinned to its exact result: each family's markup at its edges (a call
left open, text around the calls, the ninth call, a name or a block that is not one), the error each refusal
names, and the shapes written back (OpenAI tools, chat template calls, the probe). Written against the
survivors of a mutation run (docs/mutation.md): each assertion is one that a planted bug in
bakeoff/models/tools.py would break."""

from __future__ import annotations

import pytest

from bakeoff.models.base import Message
from bakeoff.models.tools import (
    MAX_CALLS,
    PROBE_CALL,
    ParsedReply,
    ToolCall,
    ToolSpec,
    ToolSyntax,
    calls_from_openai,
    describe_tools,
    json_text,
    parse_harmony,
    parse_hermes,
    parse_llama3,
    parse_mistral,
    parse_reply,
    parse_text_protocol,
    probe_conversation,
    syntax_of_rendering,
    template_messages,
)

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}


def call(name: str, arguments: str, call_id: str = "", error: str | None = None) -> ToolCall:
    return ToolCall(name, arguments, call_id, error)


# -- the tools offered ------------------------------------------------------------------------------------


def test_a_tool_is_written_in_the_openai_shape_with_a_copy_of_its_schema():
    tool = ToolSpec("run", "Run a command.", SCHEMA)
    shape = tool.to_openai()
    assert shape == {"type": "function", "function": {"name": "run", "description": "Run a command.",
                                                      "parameters": SCHEMA}}
    assert type(shape["function"]["parameters"]) is dict and shape["function"]["parameters"] is not SCHEMA


def test_a_tool_reads_from_the_openai_shape_or_its_bare_function_part():
    assert ToolSpec.from_openai({"name": "run", "description": "Run.", "parameters": SCHEMA}) == \
        ToolSpec("run", "Run.", SCHEMA)
    bare = ToolSpec.from_openai({"type": "function", "function": {"name": "ls", "description": None,
                                                                   "parameters": None}})
    assert bare == ToolSpec("ls", "", {}) and type(bare.parameters) is dict
    assert ToolSpec.from_openai({"function": {"name": "ls"}}) == ToolSpec("ls", "", {})
    assert ToolSpec.from_openai({"function": {"name": "ls", "description": 7}}).description == "7"


SHAPE = 'a tool is {"type": "function", "function": {"name": ..., "parameters": {...}}}'


@pytest.mark.parametrize("data", [
    ["run"], {"function": "run"}, {"function": {"description": "no name"}}, {"function": {"name": ""}},
    {"function": {"name": 3}}, {"name": None},
])
def test_a_tool_that_is_not_the_openai_shape_is_refused_with_the_shape(data):
    with pytest.raises(ValueError) as refused:
        ToolSpec.from_openai(data)
    assert str(refused.value) == SHAPE


def test_a_tool_whose_parameters_are_not_an_object_is_refused_by_name():
    with pytest.raises(ValueError) as refused:
        ToolSpec.from_openai({"function": {"name": "run", "parameters": ["command"]}})
    assert str(refused.value) == "tool run: parameters must be a JSON schema object"


def test_the_tools_in_words_list_each_argument_and_its_type_then_the_protocol():
    tools = [ToolSpec("run", "Run a command.", {"properties": {"command": {"type": "string"}, "cwd": {}}}),
             ToolSpec("submit", "Hand in.")]
    text = describe_tools(tools)
    head = "The tools:\n- run(command: string, cwd: any): Run a command.\n- submit(): Hand in.\n\n"
    assert text.startswith(head)
    assert text[len(head):].startswith("To call a tool, end your reply with one fenced block")
    assert describe_tools([ToolSpec("x", "y", {"properties": None})]).startswith("The tools:\n- x(): y\n\n")


# -- one call -------------------------------------------------------------------------------------------


def test_arguments_parse_within_the_caps_and_blank_ones_are_an_empty_object():
    assert call("run", "").parsed_arguments() == {} and call("run", " \n\t").parsed_arguments() == {}
    assert call("run", '{"command": "ls"}').parsed_arguments() == {"command": "ls"}
    at_cap = '"' + "a" * ((4 << 20) - 2) + '"'
    assert len(call("run", at_cap).parsed_arguments()) == (4 << 20) - 2
    with pytest.raises(ValueError, match="over 4194304 bytes"):
        call("run", at_cap + " ").parsed_arguments()
    assert call("run", "[" * 32 + "]" * 32).parsed_arguments() is not None
    with pytest.raises(ValueError) as deep:
        call("run", "[" * 33 + "]" * 33).parsed_arguments()
    assert str(deep.value) == "the call's arguments nests 33 levels deep (the cap is 32)"
    with pytest.raises(ValueError) as bad:
        call("run", "{oops").parsed_arguments()
    assert str(bad.value).startswith("the call's arguments is not valid JSON")


def test_a_call_is_written_as_a_record_and_read_back():
    whole = ToolCall("run", '{"command": "ls"}', "c1", "why")
    assert whole.to_dict() == {"name": "run", "arguments": '{"command": "ls"}', "call_id": "c1", "error": "why"}
    assert ToolCall.from_dict(whole.to_dict()) == whole
    assert ToolCall.from_dict({}) == ToolCall("", "", "", None)
    assert ToolCall.from_dict({"name": None, "arguments": {"command": "ls"}, "id": "x9", "error": 0}) == \
        ToolCall("", '{"command": "ls"}', "x9", "0")
    assert ToolCall.from_dict({"name": "a", "call_id": "c2", "id": "x9"}).call_id == "c2"


def test_a_call_reaches_a_chat_template_as_an_object_or_as_its_text():
    assert call("run", '{"command": "ls"}', "c1").template_dict() == {
        "id": "c1", "type": "function", "function": {"name": "run", "arguments": {"command": "ls"}}}
    assert call("run", "{oops", "c1").template_dict()["function"]["arguments"] == "{oops"


def test_decoded_json_is_written_again_without_escaping_letters_and_with_non_finite_numbers_as_text():
    assert json_text({"path": "données.csv", "n": [1, 2.5]}) == '{"path": "données.csv", "n": [1, 2.5]}'
    assert json_text({"a": (float("inf"), {"b": float("-inf")}), "c": 1.5, "d": "x"}) == \
        '{"a": ["inf", {"b": "-inf"}], "c": 1.5, "d": "x"}'
    assert json_text([float("nan")]) == '["nan"]'
    assert json_text({"à": float("inf")}) == '{"à": "inf"}'  # the fallback writes letters as they are too


# -- Hermes ---------------------------------------------------------------------------------------------


def test_hermes_keeps_the_text_around_and_between_its_blocks():
    reply = 'Look.\n<tool_call>{"name": "a", "arguments": {}}</tool_call> then <tool_call>\r\n\t {"name": "b"}' \
            "</tool_call>\nDone."
    assert parse_hermes(reply) == ParsedReply("Look.\n then \nDone.", (call("a", "{}"), call("b", "{}")))


def test_hermes_reads_each_shape_of_an_object_and_names_what_is_not_a_call():
    reply = ('<tool_call>{"name": "a", "arguments": "raw text", "id": 7}</tool_call>'
             '<tool_call>{"name": "b", "parameters": {"x": 1}}</tool_call>'
             '<tool_call>{"name": "c", "parameters": {"x": 1}, "arguments": {"y": 2}}</tool_call>'
             '<tool_call>[1, 2]</tool_call><tool_call>{"arguments": {}}</tool_call>'
             '<tool_call>{"name": ""}</tool_call>')
    assert parse_hermes(reply).calls == (
        call("a", "raw text", "7"), call("b", '{"x": 1}'), call("c", '{"y": 2}'),
        call("", "[1, 2]", "", "the call is not a JSON object"),
        call("", '{"arguments": {}}', "", "the call names no tool"),
        call("", '{"name": ""}', "", "the call names no tool"))


def test_hermes_reads_a_block_to_its_close_tag_or_to_the_end_and_skips_only_blanks_before_the_json():
    assert parse_hermes("<tool_call>{bad</tool_call> after") == ParsedReply(
        "after", (call("", "{bad", "", "<tool_call>: the JSON does not parse"),))
    assert parse_hermes("<tool_call>{bad") == ParsedReply(
        "", (call("", "{bad", "", "<tool_call>: the JSON does not parse"),))
    assert parse_hermes("<tool_call> \t\r\n</tool_call>").calls == (
        call("", " \t\r\n", "", "<tool_call>: the JSON does not parse"),)
    assert parse_hermes('<tool_call>X{"name": "run"}</tool_call>').calls[0].error == \
        "<tool_call>: the JSON does not parse"


def test_an_object_s_arguments_are_read_from_the_lowercase_key_alone():
    value = '{"name": "a", "ARGUMENTS": {"x": 1}, "arguments": {"y": 2}}'
    assert parse_hermes(f"<tool_call>{value}</tool_call>").calls == (call("a", '{"y": 2}'),)
    assert parse_text_protocol(f"```tool\n{value}\n```").calls == (call("a", '{"y": 2}'),)
    assert parse_mistral(f"[TOOL_CALLS] [{value}]").calls == (call("a", '{"y": 2}'),)


def test_hermes_names_markup_whose_json_does_not_parse_and_keeps_at_most_2000_characters_of_it():
    body = '{"name": "run", "arguments": {"command": "' + "x" * 3000
    parsed = parse_hermes(f"<tool_call>{body}")
    assert parsed == ParsedReply("", (call("", body[:2000], "", "<tool_call>: the JSON does not parse"),))


def test_hermes_reads_at_most_eight_calls_and_leaves_the_rest_as_text():
    blocks = "".join(f'<tool_call>{{"name": "t{i}"}}</tool_call>' for i in range(MAX_CALLS + 1))
    parsed = parse_hermes(blocks + " end")
    assert [c.name for c in parsed.calls] == [f"t{i}" for i in range(MAX_CALLS)]
    assert parsed.text == f'<tool_call>{{"name": "t{MAX_CALLS}"}}</tool_call> end'


# -- Llama 3 --------------------------------------------------------------------------------------------


def test_llama3_reads_calls_separated_by_semicolons_and_blanks_and_leaves_what_follows_as_text():
    reply = ' {"name": "a", "parameters": {"x": 1}}\t;\r\n{"name": "b", "arguments": {"y": 2}} ; and then text '
    assert parse_llama3(reply) == ParsedReply("and then text", (call("a", '{"x": 1}'), call("b", '{"y": 2}')))
    both = '{"name": "c", "arguments": {"y": 2}, "parameters": {"x": 1}}'
    assert parse_llama3(both).calls == (call("c", '{"x": 1}'),)


def test_llama3_separators_are_only_blanks_and_semicolons():
    assert parse_llama3('{"name": "a"}X{"name": "b"}') == ParsedReply('X{"name": "b"}', (call("a", "{}"),))


def test_llama3_tells_an_answer_that_is_json_from_a_call():
    assert parse_llama3(' {"answer": 42} ') == ParsedReply('{"answer": 42}')
    assert parse_llama3("The answer is {1}.") == ParsedReply("The answer is {1}.")
    assert parse_llama3("<|python_tag|> print(1)") == ParsedReply("<|python_tag|> print(1)")
    # after a first call, an object without a name is a call that names no tool
    assert parse_llama3('{"name": "a"}; {"x": 1}').calls == (
        call("a", "{}"), call("", '{"x": 1}', "", "the call names no tool"))
    # a tag says "this is a call", so an object without a name is one too
    assert parse_llama3('<|python_tag|>{"x": 1}').calls == (call("", '{"x": 1}', "", "the call names no tool"),)


def test_llama3_markup_that_never_parses_is_one_malformed_call():
    assert parse_llama3('{"name": "run", ') == ParsedReply(
        "", (call("", '{"name": "run",', "", "the JSON call: the JSON does not parse"),))
    assert parse_llama3('<|python_tag|> {"name": "run", ') == ParsedReply(
        "", (call("", '{"name": "run",', "", "the JSON call: the JSON does not parse"),))
    # a call that parses, then markup that does not: the call, and the rest as text
    assert parse_llama3('<|python_tag|>{"name": "a"}; {"name": ') == ParsedReply('{"name":', (call("a", "{}"),))


def test_llama3_reads_at_most_eight_calls():
    reply = "; ".join(f'{{"name": "t{i}"}}' for i in range(MAX_CALLS + 1))
    parsed = parse_llama3(reply)
    assert [c.name for c in parsed.calls] == [f"t{i}" for i in range(MAX_CALLS)]
    assert parsed.text == f'{{"name": "t{MAX_CALLS}"}}'


# -- Mistral --------------------------------------------------------------------------------------------


def test_mistral_s_list_form_keeps_the_text_before_and_after_and_each_id():
    reply = 'Sure.[TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}, "id": "abcdefghi"}, {"name": "b"}] Done.'
    assert parse_mistral(reply) == ParsedReply("Sure. Done.", (call("a", '{"x": 1}', "abcdefghi"), call("b", "{}")))
    items = ", ".join(f'{{"name": "t{i}"}}' for i in range(MAX_CALLS + 1))
    assert [c.name for c in parse_mistral(f"[TOOL_CALLS][{items}]").calls] == [f"t{i}" for i in range(MAX_CALLS)]


def test_mistral_s_name_and_args_form_reads_each_pair_and_names_what_is_not_one():
    reply = ('Before [TOOL_CALLS] run [ARGS] {"command":"ls"}[TOOL_CALLS]bad name[ARGS]{}'
             '[TOOL_CALLS]noargs[TOOL_CALLS]x[ARGS] {"a": [1,' + "2" * 3000)
    parsed = parse_mistral(reply)
    assert parsed.text == "Before"
    assert parsed.calls == (
        call("run", '{"command": "ls"}'),
        call("", "bad name[ARGS]{}", "", "[TOOL_CALLS]: the JSON does not parse"),
        call("", "noargs", "", "[TOOL_CALLS]: the JSON does not parse"),
        call("x", ('{"a": [1,' + "2" * 3000)[:2000], "", "[ARGS]: the JSON does not parse"))


def test_mistral_s_pairs_split_at_the_first_args_mark_and_a_bad_pair_does_not_end_the_reading():
    assert parse_mistral('[TOOL_CALLS]run[ARGS]{"a": "[ARGS]"}').calls == (call("run", '{"a": "[ARGS]"}'),)
    assert parse_mistral("[TOOL_CALLS]a[ARGS]{bad[TOOL_CALLS]b[ARGS]{}").calls == (
        call("a", "{bad", "", "[ARGS]: the JSON does not parse"), call("b", "{}"))


def test_mistral_names_are_at_most_128_letters_digits_and_marks():
    assert parse_mistral(f"[TOOL_CALLS]{'a' * 128}[ARGS]{{}}").calls == (call("a" * 128, "{}"),)
    assert parse_mistral(f"[TOOL_CALLS]{'a' * 129}[ARGS]{{}}").calls[0].error == \
        "[TOOL_CALLS]: the JSON does not parse"
    assert parse_mistral("[TOOL_CALLS]a.b-c_9[ARGS]{}").calls == (call("a.b-c_9", "{}"),)
    assert parse_mistral("[TOOL_CALLS][ARGS]{}").calls[0].error == "[TOOL_CALLS]: the JSON does not parse"


def test_mistral_reads_at_most_eight_pairs_and_an_object_after_the_marker_is_no_list():
    pairs = "".join(f"[TOOL_CALLS]t{i}[ARGS]{{}}" for i in range(MAX_CALLS + 1))
    assert [c.name for c in parse_mistral(pairs).calls] == [f"t{i}" for i in range(MAX_CALLS)]
    assert parse_mistral('[TOOL_CALLS] {"name": "a"}').calls == (
        call("", ' {"name": "a"}', "", "[TOOL_CALLS]: the JSON does not parse"),)


# -- Harmony --------------------------------------------------------------------------------------------


def test_harmony_leaves_the_text_around_a_call_and_drops_the_call_s_own_header():
    reply = ('Hi<|start|>assistant<|channel|>commentary to=functions.run <|constrain|>json<|message|>'
             ' {"command": "ls"} <|call|>after')
    assert parse_harmony(reply) == ParsedReply("Hiafter", (call("run", '{"command": "ls"}'),))


@pytest.mark.parametrize("end", ["<|end|>", "<|return|>", "<|start|>"])
def test_harmony_arguments_end_at_the_first_end_token_which_stays_in_the_text(end):
    parsed = parse_harmony(f'to=functions.run<|message|>{{"command": "ls"}}{end}tail')
    assert parsed == ParsedReply(f"{end}tail", (call("run", '{"command": "ls"}'),))


def test_harmony_arguments_with_anything_after_the_json_do_not_parse_and_are_kept_capped():
    parsed = parse_harmony('to=functions.run<|message|>{"command": "ls"} and more<|call|>')
    assert parsed.calls == (call("run", '{"command": "ls"} and more', "", "to=functions: the JSON does not parse"),)
    long = '{"command": "' + "x" * 30_000
    assert parse_harmony(f"to=functions.run<|message|>{long}").calls == (
        call("run", long[:20000], "", "to=functions: the JSON does not parse"),)
    fine = '{"command": "' + "x" * 30_000 + '"}'
    assert parse_harmony(f"to=functions.run<|message|>{fine}<|call|>").calls == (call("run", fine),)


def test_harmony_a_call_that_stops_before_its_arguments_is_named_and_the_text_before_it_kept():
    """The text before a call cut off ahead of its arguments was dropped with it (found by a mutant that kept it)."""
    assert parse_harmony("to=functions.run <|constrain|>json") == ParsedReply(
        "", (call("run", "", "", "the call stopped before its arguments"),))
    assert parse_harmony("I will list the files.<|start|>assistant<|channel|>commentary to=functions.run") == \
        ParsedReply("I will list the files.", (call("run", "", "", "the call stopped before its arguments"),))
    first = 'to=functions.a<|message|>{}<|call|>Then to=functions.b json'
    assert parse_harmony(first) == ParsedReply(
        "Then", (call("a", "{}"), call("b", "", "", "the call stopped before its arguments")))


def test_harmony_a_call_s_header_is_the_last_start_before_it_since_the_previous_call():
    two = ('A<|start|>assistant to=functions.a<|message|>{}<|call|>B to=functions.b<|message|>{}<|call|>C')
    assert parse_harmony(two) == ParsedReply("AB C", (call("a", "{}"), call("b", "{}")))
    earlier = 'X<|start|>user<|message|>hi<|end|><|start|>assistant to=functions.run<|message|>{}<|call|>'
    assert parse_harmony(earlier) == ParsedReply("X<|start|>user<|message|>hi<|end|>", (call("run", "{}"),))


def test_harmony_reads_at_most_eight_calls_within_a_window_of_a_million_characters():
    calls = "".join(f"to=functions.t{i}<|message|>{{}}<|call|>" for i in range(MAX_CALLS + 1))
    parsed = parse_harmony(calls)
    assert [c.name for c in parsed.calls] == [f"t{i}" for i in range(MAX_CALLS)]
    assert parsed.text == f"to=functions.t{MAX_CALLS}<|message|>{{}}<|call|>"
    assert parse_harmony("x" * 999_900 + "to=functions.run<|message|>{}<|call|>").calls == (call("run", "{}"),)
    assert parse_harmony("x" * 1_000_000 + "to=functions.run<|message|>{}<|call|>").calls == ()


# -- our text protocol ----------------------------------------------------------------------------------


def test_the_text_protocol_reads_only_fences_whose_info_is_tool_and_keeps_the_other_text():
    reply = ('```toolbox\nnot a call\n```\nThen:\n```tool  \n{"name": "run", "arguments": {"command": "ls"}}\n```'
             "\nafter")
    assert parse_text_protocol(reply) == ParsedReply(
        "```toolbox\nnot a call\n```\nThen:\n\nafter", (call("run", '{"command": "ls"}'),))


def test_the_text_protocol_reads_an_open_block_to_the_end_and_names_bad_json():
    assert parse_text_protocol('```tool\n{"name": "run"}') == ParsedReply("", (call("run", "{}"),))
    assert parse_text_protocol('```tool\n{"name": \n```\nrest') == ParsedReply(
        "rest", (call("", '{"name": ', "", "```tool: the JSON does not parse"),))
    # a fence on the last line, with no line after it, is not a block: the reply is read as Hermes
    assert parse_text_protocol('say ```tool') == ParsedReply("say ```tool")


def test_the_text_protocol_reads_at_most_eight_blocks():
    blocks = "".join(f'```tool\n{{"name": "t{i}"}}\n```\n' for i in range(MAX_CALLS + 1))
    parsed = parse_text_protocol(blocks)
    assert [c.name for c in parsed.calls] == [f"t{i}" for i in range(MAX_CALLS)]
    assert parsed.text == f'```tool\n{{"name": "t{MAX_CALLS}"}}\n```'


@pytest.mark.parametrize("syntax", ["openai", ToolSyntax.OPENAI])
def test_an_openai_reply_s_text_carries_no_call_and_is_stripped(syntax):
    assert parse_reply('  <tool_call>{"name": "run"}</tool_call>\n', syntax) == \
        ParsedReply('<tool_call>{"name": "run"}</tool_call>')


def test_a_syntax_is_named_by_its_value_and_an_unknown_one_is_refused():
    assert parse_reply('<tool_call>{"name": "run"}</tool_call>', "hermes").calls == (call("run", "{}"),)
    assert parse_reply('```tool\n{"name": "run"}\n```', "scripted").calls == (call("run", "{}"),)
    with pytest.raises(ValueError):
        parse_reply("hi", "klingon")


# -- an OpenAI reply's calls ----------------------------------------------------------------------------


def test_an_openai_reply_s_calls_each_keep_their_id_text_and_error():
    items = [{"id": "c1", "function": {"name": "run"}},
             {"id": None, "function": {"name": 5, "arguments": '{"a": 1}'}},
             {"function": {"name": "", "arguments": {"a": "é"}}},
             "x" * 3000, 7]
    assert calls_from_openai(items) == (
        call("run", "", "c1"), call("", '{"a": 1}', "", "the call names no tool"),
        call("", '{"a": "é"}', "", "the call names no tool"),
        call("", json_text("x" * 3000)[:2000], "", "a tool call without a function"),
        call("", "7", "", "a tool call without a function"))
    many = [{"function": {"name": f"t{i}"}} for i in range(MAX_CALLS + 1)]
    assert [c.name for c in calls_from_openai(many)] == [f"t{i}" for i in range(MAX_CALLS)]
    with pytest.raises(TypeError) as refused:
        calls_from_openai({"function": {}})
    assert str(refused.value) == "tool_calls is a dict, not a list"


# -- which syntax a template writes ---------------------------------------------------------------------


def test_the_probe_is_a_user_turn_a_call_and_its_result():
    assert probe_conversation() == [
        {"role": "user", "content": "Say hi."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "abcdefghi", "type": "function", "function": {"name": "probe_tool", "arguments": {"x": 1}}}]},
        {"role": "tool", "content": "ok", "tool_call_id": "abcdefghi", "name": "probe_tool"}]
    assert PROBE_CALL.call_id.isalnum() and len(PROBE_CALL.call_id) == 9


@pytest.mark.parametrize(("with_call", "tools_only", "syntax"), [
    ("to=functions.probe_tool", "", ToolSyntax.HARMONY),
    (None, "namespace functions {", ToolSyntax.HARMONY),
    ("[TOOL_CALLS] to=functions.x", "", ToolSyntax.HARMONY),
    ("[TOOL_CALLS]", "", ToolSyntax.MISTRAL),
    (None, "[AVAILABLE_TOOLS]", ToolSyntax.MISTRAL),
    ("[TOOL_CALLS] <tool_call>", "", ToolSyntax.MISTRAL),
    ("<tool_call>", "", ToolSyntax.HERMES),
    ("<tool_call>", "namespace functions", ToolSyntax.HERMES),  # the call's own rendering decides first
    (None, "<tools>", ToolSyntax.HERMES),
    ("<|python_tag|>", "probe_tool", ToolSyntax.LLAMA3_JSON),
    ('{"name":\n  "probe_tool"}', "probe_tool", ToolSyntax.LLAMA3_JSON),
    ("<|python_tag|>", "a tool", ToolSyntax.TEXT),  # the tools are not shown: not a tool template
    ('{"name": "other"}', "probe_tool", ToolSyntax.TEXT),
    (None, "probe_tool", ToolSyntax.TEXT),
    ("", "probe_tool", ToolSyntax.TEXT),
])
def test_each_template_marker_names_its_syntax_in_order(with_call, tools_only, syntax):
    assert syntax_of_rendering(with_call, tools_only) == syntax


def test_messages_reach_a_template_as_their_own_dicts():
    messages = [Message("user", "hi"), Message("assistant", "", (call("run", "{}", "c1"),)),
                Message("tool", "ok", tool_call_id="c1", name="run")]
    assert template_messages(messages) == [message.template_dict() for message in messages]
    assert template_messages([]) == []
