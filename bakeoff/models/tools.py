"""Tool calls: the tools a model is offered, the calls it makes, and reading them in each family's own syntax.

A model that is trained for tools writes its calls in its family's markup, and its chat template shows which:

- `hermes` (Hermes, Qwen 2.5/3): `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, one block a call;
- `llama3_json` (Llama 3.1-3.3): the answer is a JSON object `{"name": ..., "parameters": {...}}`, after an
  optional `<|python_tag|>`, several separated by `;`;
- `mistral`: `[TOOL_CALLS] [{"name": ..., "arguments": {...}, "id": ...}]`, or the newer
  `[TOOL_CALLS]NAME[ARGS]{...}` (one pair a call);
- `harmony` (gpt-oss): a message on the commentary channel addressed `to=functions.NAME`, its JSON arguments
  ending at `<|call|>`;
- `text`: our own plain-text protocol, for a template that has no tool support (stated in the loop's system
  prompt, `TEXT_PROTOCOL`): a fenced block whose info string is `tool`, holding `{"name": ..., "arguments": {...}}`.

An OpenAI-compatible server parses calls itself and returns them as `tool_calls` (`openai`); the scripted
backend replays recorded ones (`scripted`). Everything here is pure: the chat template is rendered elsewhere
(bakeoff.models.chat_template) and the reply is any text. A reply is hostile input: every scan is linear.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import msgspec

from durable import JsonLimits, JSONUnwritable, UntrustedJSON, dumps, loads, loads_prefix


class ToolSyntax(StrEnum):
    """How a model's tool calls reach bakeoff (model_info's `tool_syntax`)."""

    HERMES = "hermes"
    LLAMA3_JSON = "llama3_json"
    MISTRAL = "mistral"
    HARMONY = "harmony"
    TEXT = "text"  # our plain-text protocol, stated in the system prompt
    OPENAI = "openai"  # an OpenAI-compatible server's `tool_calls`
    SCRIPTED = "scripted"  # replayed calls (or the text protocol in a hand-written answer)


NATIVE_SYNTAXES = (ToolSyntax.HERMES, ToolSyntax.LLAMA3_JSON, ToolSyntax.MISTRAL, ToolSyntax.HARMONY)
ARGUMENT_LIMITS = JsonLimits(max_bytes=4 << 20, max_depth=32)  # a whole file is one string; no tool nests deeper


@dataclass(frozen=True)
class ToolSpec:
    """One tool offered to the model: its name, what it does, and its arguments as a JSON schema object."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI (and Hugging Face chat template) shape: {"type": "function", "function": {...}}."""
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": dict(self.parameters)}}

    @classmethod
    def from_openai(cls, data: Mapping[str, Any]) -> ToolSpec:
        """A tool in the OpenAI shape (or its bare `function` part); ValueError for anything else."""
        function = data.get("function", data) if isinstance(data, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str) or not function["name"]:
            raise ValueError("a tool is {\"type\": \"function\", \"function\": {\"name\": ..., \"parameters\": {...}}}")
        parameters = function.get("parameters") or {}
        if not isinstance(parameters, Mapping):
            raise ValueError(f"tool {function['name']}: parameters must be a JSON schema object")
        return cls(function["name"], str(function.get("description") or ""), dict(parameters))


class TranscriptCall(msgspec.Struct):
    """A call as a transcript line holds it. Its fields take any JSON value: a hand-written script is read as
    leniently as it always was (a number as a name is its text, `id` stands for `call_id`)."""

    name: Any = None
    arguments: Any = ""
    call_id: Any = None
    id: Any = None
    error: Any = None


@dataclass(frozen=True)
class ToolCall:
    """One call as the model wrote it: the tool's name and its arguments as JSON text (not yet trusted).

    `error` says why the markup could not be read as a call at all (JSON that does not parse, no name); the
    capture audit (bakeoff.answers.audit_tool_calls) judges the rest (an unknown tool, bad arguments)."""

    name: str
    arguments: str
    call_id: str = ""
    error: str | None = None

    def parsed_arguments(self) -> Any:
        """The arguments as JSON values (ValueError when they do not parse, or nest or run past the caps: a
        model's text reaches the chat template's process and the tools only through here)."""
        if not self.arguments.strip():
            return {}
        try:
            return loads(self.arguments, limits=ARGUMENT_LIMITS, what="the call's arguments")
        except UntrustedJSON as exc:
            raise ValueError(str(exc)) from None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "call_id": self.call_id, "error": self.error}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall:
        """A call of a transcript line (to_dict's object, or a hand-written script's)."""
        line = msgspec.convert(dict(data), TranscriptCall)
        arguments = line.arguments
        if not isinstance(arguments, str):  # a hand-written script may give the arguments as an object
            arguments = json_text(arguments)
        return cls(str(line.name or ""), arguments, str(line.call_id or line.id or ""),
                   str(line.error) if line.error is not None else None)

    def template_dict(self) -> dict[str, Any]:
        """The call as chat templates read it (arguments as an object where they parse, else the text)."""
        try:
            arguments: Any = self.parsed_arguments()
        except ValueError:
            arguments = self.arguments
        return {"id": self.call_id, "type": "function", "function": {"name": self.name, "arguments": arguments}}


@dataclass(frozen=True)
class ParsedReply:
    """A reply split into its calls and the rest of its text."""

    text: str
    calls: tuple[ToolCall, ...] = ()


MAX_CALLS = 8  # calls read from one reply; more is not a step, it is a flood


def json_text(value: Any) -> str:
    """A model's decoded JSON as text again, through durable's writer. Python's reader takes NaN and Infinity (and
    1e999 as infinity), which no JSON reader need accept: such numbers are written as strings instead."""
    try:
        return dumps(value, ensure_ascii=False)
    except JSONUnwritable:
        return dumps(_finite(value), ensure_ascii=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Mapping):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def _call_from_object(value: Any, arguments_key: str, call_id: str = "") -> ToolCall:
    """A call from a decoded {"name": ..., "arguments"/"parameters": ...} object."""
    if not isinstance(value, Mapping):
        return ToolCall("", json_text(value), call_id, "the call is not a JSON object")
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return ToolCall("", json_text(value), call_id, "the call names no tool")
    arguments = value.get(arguments_key, value.get("arguments", value.get("parameters", {})))
    text = arguments if isinstance(arguments, str) else json_text(arguments)
    return ToolCall(name, text, str(value.get("id") or call_id))


def _decode(text: str, start: int = 0) -> tuple[Any, int] | None:
    """One JSON value starting at `start` (after blanks): (value, end), or None."""
    while start < len(text) and text[start] in " \t\r\n":
        start += 1
    try:
        return loads_prefix(text, start, what="the call")
    except UntrustedJSON:  # a reply of ten thousand brackets is no call
        return None


def _malformed(raw: str, what: str) -> ToolCall:
    return ToolCall("", raw[:2000], "", f"{what}: the JSON does not parse")


def parse_hermes(text: str) -> ParsedReply:
    """`<tool_call>{...}</tool_call>` blocks (the last one may be left open where the model stopped)."""
    calls: list[ToolCall] = []
    rest: list[str] = []
    position = 0
    while len(calls) < MAX_CALLS:
        start = text.find("<tool_call>", position)
        if start == -1:
            break
        rest.append(text[position:start])
        body_start = start + len("<tool_call>")
        end = text.find("</tool_call>", body_start)
        body = text[body_start:end if end != -1 else len(text)]
        decoded = _decode(body)
        calls.append(_call_from_object(decoded[0], "arguments") if decoded else _malformed(body, "<tool_call>"))
        position = end + len("</tool_call>") if end != -1 else len(text)
    rest.append(text[position:])
    return ParsedReply("".join(rest).strip(), tuple(calls))


def parse_llama3(text: str) -> ParsedReply:
    """A reply that is JSON call objects (`{"name": ..., "parameters": ...}`, `;`-separated), after an optional
    <|python_tag|>; any other reply is plain text with no call."""
    body = text.strip()
    tagged = body.startswith("<|python_tag|>")
    if tagged:
        body = body[len("<|python_tag|>"):].strip()
    if not body.startswith("{"):
        return ParsedReply(text.strip())
    calls: list[ToolCall] = []
    position = 0
    while position < len(body) and len(calls) < MAX_CALLS:
        decoded = _decode(body, position)
        if decoded is None:
            if not calls and tagged:  # <|python_tag|> then no JSON: a call that does not parse
                calls.append(_malformed(body[position:], "the JSON call"))
                position = len(body)
            break  # after the calls, the rest is text
        value, position = decoded
        if not calls and not tagged and not (isinstance(value, Mapping) and "name" in value):
            return ParsedReply(text.strip())  # a JSON answer that is not a call
        calls.append(_call_from_object(value, "parameters"))
        while position < len(body) and body[position] in " \t\r\n;":
            position += 1
    if not calls:  # "{" that never parsed, with no tag: the model wrote a malformed call
        return ParsedReply("", (_malformed(body, "the JSON call"),))
    return ParsedReply(body[position:].strip(), tuple(calls))


_MISTRAL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def parse_mistral(text: str) -> ParsedReply:
    """`[TOOL_CALLS] [{...}, ...]` or `[TOOL_CALLS]name[ARGS]{...}` (repeated)."""
    marker = text.find("[TOOL_CALLS]")
    if marker == -1:
        return ParsedReply(text.strip())
    before, body = text[:marker], text[marker + len("[TOOL_CALLS]"):]
    decoded = _decode(body)
    if decoded is not None and isinstance(decoded[0], list):
        items, end = decoded
        calls = tuple(_call_from_object(item, "arguments") for item in items[:MAX_CALLS])
        return ParsedReply((before + body[end:]).strip(), calls)
    calls_found: list[ToolCall] = []
    for segment in body.split("[TOOL_CALLS]")[:MAX_CALLS]:
        name, found, arguments = segment.partition("[ARGS]")
        name = name.strip()
        if not found or not _MISTRAL_NAME.fullmatch(name):
            calls_found.append(_malformed(segment, "[TOOL_CALLS]"))
            continue
        parsed = _decode(arguments)
        if parsed is None:
            calls_found.append(ToolCall(name, arguments.strip()[:2000], "", "[ARGS]: the JSON does not parse"))
            continue
        calls_found.append(ToolCall(name, json_text(parsed[0])))
    return ParsedReply(before.strip(), tuple(calls_found))


_HARMONY_TO = re.compile(r"to=functions\.([A-Za-z0-9_.-]{1,128})")
_HARMONY_ENDS = ("<|call|>", "<|end|>", "<|return|>", "<|start|>")


def parse_harmony(text: str) -> ParsedReply:
    """Messages addressed `to=functions.NAME` (on the commentary channel); the rest is left as it was."""
    calls: list[ToolCall] = []
    position = 0
    rest: list[str] = []
    while len(calls) < MAX_CALLS:
        found = _HARMONY_TO.search(text, position, min(len(text), position + 1_000_000))
        if found is None:
            break
        # The text before the call's own header is the reply's, kept even where the call is cut off below.
        header_start = text.rfind("<|start|>", position, found.start())
        rest.append(text[position:header_start if header_start != -1 else found.start()])
        body_start = text.find("<|message|>", found.end())
        if body_start == -1:
            calls.append(ToolCall(found.group(1), "", "", "the call stopped before its arguments"))
            position = len(text)
            break
        body_start += len("<|message|>")
        ends = [index for index in (text.find(end, body_start) for end in _HARMONY_ENDS) if index != -1]
        end = min(ends) if ends else len(text)
        arguments = text[body_start:end].strip()
        decoded = _decode(arguments)
        error = None if decoded is not None and decoded[1] == len(arguments) else "to=functions: the JSON does not parse"
        calls.append(ToolCall(found.group(1), arguments[:20000] if error else arguments, "", error))
        position = end + (len("<|call|>") if text.startswith("<|call|>", end) else 0)
    rest.append(text[position:])
    return ParsedReply("".join(rest).strip(), tuple(calls))


TEXT_FENCE = "```tool"
TEXT_PROTOCOL = (
    "To call a tool, end your reply with one fenced block whose info string is `tool`, holding one JSON object "
    "with the tool's name and its arguments, for example:\n\n"
    "```tool\n{\"name\": \"run\", \"arguments\": {\"command\": \"python train.py\"}}\n```\n\n"
    "One call per reply. The result comes back in the next message."
)


def describe_tools(tools: Sequence[ToolSpec]) -> str:
    """The tools as a list in words, with the text protocol: what a model with no tool syntax of its own is told."""
    lines = []
    for tool in tools:
        properties = tool.parameters.get("properties") or {}
        arguments = ", ".join(f"{name}: {spec.get('type', 'any')}" for name, spec in properties.items())
        lines.append(f"- {tool.name}({arguments}): {tool.description}")
    return "The tools:\n" + "\n".join(lines) + "\n\n" + TEXT_PROTOCOL


def parse_text_protocol(text: str) -> ParsedReply:
    """Our plain-text protocol: ```tool fenced blocks holding {"name", "arguments"}; a Hermes <tool_call> block
    is read too (models that know no other way write it)."""
    calls: list[ToolCall] = []
    rest: list[str] = []
    position = 0
    while len(calls) < MAX_CALLS:
        start = text.find(TEXT_FENCE, position)
        if start == -1:
            break
        line_end = text.find("\n", start)
        if line_end == -1 or text[start + len(TEXT_FENCE):line_end].strip():
            rest.append(text[position:start + len(TEXT_FENCE)])
            position = start + len(TEXT_FENCE)
            continue
        rest.append(text[position:start])
        close = text.find("\n```", line_end)
        body = text[line_end + 1:close if close != -1 else len(text)]
        decoded = _decode(body)
        calls.append(_call_from_object(decoded[0], "arguments") if decoded else _malformed(body, "```tool"))
        position = close + len("\n```") if close != -1 else len(text)
    rest.append(text[position:])
    if calls:
        return ParsedReply("".join(rest).strip(), tuple(calls))
    return parse_hermes(text)


PARSERS = {
    ToolSyntax.HERMES: parse_hermes,
    ToolSyntax.LLAMA3_JSON: parse_llama3,
    ToolSyntax.MISTRAL: parse_mistral,
    ToolSyntax.HARMONY: parse_harmony,
    ToolSyntax.TEXT: parse_text_protocol,
    ToolSyntax.SCRIPTED: parse_text_protocol,
}


def parse_reply(text: str, syntax: ToolSyntax | str) -> ParsedReply:
    """The calls in a raw reply written in `syntax` (an `openai` reply carries its calls apart: none here)."""
    parser = PARSERS.get(ToolSyntax(syntax))
    return parser(text) if parser is not None else ParsedReply(text.strip())


def calls_from_openai(items: Any) -> tuple[ToolCall, ...]:
    """An OpenAI reply's `tool_calls` list: [{"id", "type": "function", "function": {"name", "arguments"}}]."""
    if items is None:
        return ()
    if not isinstance(items, list):
        raise TypeError(f"tool_calls is a {type(items).__name__}, not a list")
    calls = []
    for item in items[:MAX_CALLS]:
        function = item.get("function") if isinstance(item, Mapping) else None
        if not isinstance(function, Mapping):
            calls.append(ToolCall("", json_text(item)[:2000], "", "a tool call without a function"))
            continue
        arguments = function.get("arguments", "")
        text = arguments if isinstance(arguments, str) else json_text(arguments)
        name = function.get("name")
        calls.append(ToolCall(name if isinstance(name, str) else "", text, str(item.get("id") or ""),
                              None if isinstance(name, str) and name else "the call names no tool"))
    return tuple(calls)


# -- which syntax a chat template writes -----------------------------------------------------------------

PROBE_TOOL = ToolSpec("probe_tool", "A tool that exists only to see how the template writes tools.",
                      {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]})
PROBE_CALL = ToolCall("probe_tool", '{"x": 1}', "abcdefghi")  # 9 alphanumerics: Mistral's templates insist


def probe_conversation() -> list[dict[str, Any]]:
    """A user turn, an assistant call and its result: what a template renders to show its call syntax."""
    return [{"role": "user", "content": "Say hi."},
            {"role": "assistant", "content": "", "tool_calls": [PROBE_CALL.template_dict()]},
            {"role": "tool", "content": "ok", "tool_call_id": PROBE_CALL.call_id, "name": PROBE_CALL.name}]


def syntax_of_rendering(with_call: str | None, tools_only: str) -> ToolSyntax:
    """The syntax a template writes, from its rendering of `probe_conversation()` (None when it refused it)
    and of a user turn alone, both with PROBE_TOOL offered. A template that shows no known call markup gets
    the text protocol."""
    for rendered in (with_call or "", tools_only):
        if "to=functions." in rendered or "namespace functions" in rendered:
            return ToolSyntax.HARMONY
        if "[TOOL_CALLS]" in rendered or "[AVAILABLE_TOOLS]" in rendered:
            return ToolSyntax.MISTRAL
        if "<tool_call>" in rendered or "<tools>" in rendered:
            return ToolSyntax.HERMES
    if with_call and ("<|python_tag|>" in with_call or re.search(r'"name":\s*"probe_tool"', with_call)) \
            and "probe_tool" in tools_only:
        return ToolSyntax.LLAMA3_JSON
    return ToolSyntax.TEXT


def template_messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """Messages (bakeoff.models.base.Message) as chat templates read them."""
    return [message.template_dict() for message in messages]
