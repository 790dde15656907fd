"""The agent's conversation, rebuilt from its step records: the opening (our system prompt, the task), then per step
the model's reply and what its calls returned; cut to the context budget the same way every time.

Nothing but the records goes into it, so a resumed loop sends exactly what an uninterrupted one would. With a
native tool syntax the replies carry their calls (the chat template writes them its family's way) and each
result is a `tool` turn; with the text protocol a reply is its text with the calls written back as ```tool
blocks and the results come back as one user turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from string import Template

import durable
from bakeoff.models.base import Message
from bakeoff.models.tools import ARGUMENT_LIMITS, TEXT_FENCE, ToolCall, ToolSpec, ToolSyntax, describe_tools, json_text
from bakeoff.records import CaptureStatus, PromptCut
from bakeoff.scaffolds.agent.records import StepRecord
from bakeoff.scaffolds.agent.settings import AGENT_PROMPT, AgentSettings
from bakeoff.scaffolds.steps import call_id
from bakeoff.taskapi.context import shorten
from bakeoff.taskapi.spec import TaskSpec

SYSTEM_FILE = Path(__file__).with_name("system.md")
KEPT_WHOLE = 1  # the last step is never dropped (and shortened only when it alone is too long)
SHRUNK_CHARS = 300  # what an older step's long text keeps
DROPPED_NOTE = "[Steps 1 to {last} were cut from this conversation to fit the context; the files they wrote are still there.]"


def native(syntax: str) -> bool:
    """Whether calls travel as the model's own tool calls (else the text protocol, written in the messages)."""
    return syntax not in (ToolSyntax.TEXT, ToolSyntax.SCRIPTED)


def opening(task: TaskSpec, excerpt: str, excerpt_of: str, settings: AgentSettings, syntax: str,
            tools: Sequence[ToolSpec]) -> tuple[Message, Message]:
    """The system prompt (ours: the tools, the budgets, and the text protocol where the model has no syntax of
    its own) and the first user turn (the task's statement, the data's first lines, what to leave behind)."""
    budgets = (f"{settings.max_steps} steps (replies), {settings.max_tokens:,} generated tokens, "
               f"{settings.wall_s:g} seconds of wall-clock time and {settings.cpu_s:g} CPU seconds of commands")
    protocol = "" if native(syntax) else f"\n{describe_tools(tools)}\n"
    system = Template(SYSTEM_FILE.read_text(encoding="utf-8")).substitute(budgets=budgets, protocol=protocol)
    user = (f"{task.statement.strip()}\n\nThe first lines of {excerpt_of}:\n\n{excerpt.strip()}\n\n"
            f"{task.prompts[AGENT_PROMPT].strip()}\n")
    return Message("system", system.strip() + "\n"), Message("user", user)


def _text_call(call: ToolCall) -> str:
    if call.error is not None or not call.name:
        return f"{TEXT_FENCE}\n{call.arguments}\n```"
    try:
        arguments = call.parsed_arguments()
    except ValueError:
        arguments = call.arguments
    return f"{TEXT_FENCE}\n{json_text({'name': call.name, 'arguments': arguments})}\n```"


def _sendable(call: ToolCall) -> bool:
    return call.error is None and bool(call.name)


def reply_message(step: StepRecord, syntax: str) -> Message | None:
    """The model's reply as the next turns show it (None for an answer that never came)."""
    completion = step.completion
    if completion is None or (step.capture is not None and step.capture.status == CaptureStatus.UNCAPTURED):
        return None
    calls = completion.tool_calls
    if not native(syntax):
        text = "\n\n".join(part for part in (completion.text.strip(), *(_text_call(c) for c in calls)) if part)
        return Message("assistant", text)
    sent = tuple(replace(call, call_id=call_id(step.step, i)) for i, call in enumerate(calls) if _sendable(call))
    return Message("assistant", completion.text, tool_calls=sent)


def result_messages(step: StepRecord, syntax: str) -> tuple[Message, ...]:
    """What the step's calls returned, as the model is shown it (a note when there was no usable call)."""
    completion = step.completion
    if completion is None or (step.capture is not None and step.capture.status == CaptureStatus.UNCAPTURED):
        return ()
    calls = completion.tool_calls
    if not calls:
        reason = step.capture.reason.value if step.capture is not None else "no_tool_call"
        detail = step.capture.detail if step.capture is not None else ""
        return (Message("user", f"Your reply could not be used ({reason}{': ' + detail if detail else ''}). "
                                "Every reply must call one of the tools."),)
    results = list(step.results)
    if not native(syntax):
        parts = [f"Result of {r.tool}:\n{r.shown}" for r in results]
        return (Message("user", "\n\n".join(parts) or "(no result)"),)
    messages = []
    unsent = []
    for index, (call, result) in enumerate(zip(calls, results, strict=False)):
        if _sendable(call):
            messages.append(Message("tool", result.shown, tool_call_id=call_id(step.step, index), name=call.name))
        else:
            unsent.append(result.shown)
    if unsent:
        messages.append(Message("user", "\n\n".join(unsent)))
    return tuple(messages)


@dataclass(frozen=True)
class Turns:
    """The messages of one step's reply and results (the unit that is shrunk, then dropped)."""

    step: int
    messages: tuple[Message, ...]

    @property
    def chars(self) -> int:
        return sum(message_chars(m) for m in self.messages)


def message_chars(message: Message) -> int:
    return len(message.content) + sum(len(c.arguments) + len(c.name) for c in message.tool_calls)


def _shrunk(message: Message) -> Message:
    calls = tuple(replace(c, arguments=_shrunk_arguments(c.arguments)) for c in message.tool_calls)
    return replace(message, content=shorten(message.content, SHRUNK_CHARS), tool_calls=calls)


def _shrunk_arguments(arguments: str) -> str:
    """A call's long string arguments (a whole file) cut, the JSON kept valid."""
    if len(arguments) <= SHRUNK_CHARS:
        return arguments
    try:  # a model's bytes: read within the caps a call's arguments have everywhere
        value = durable.loads(arguments, limits=ARGUMENT_LIMITS, what="the call's arguments")
    except durable.UntrustedJSON:  # not JSON, or past a cap (a model's arguments may nest past the stack)
        return shorten(arguments, SHRUNK_CHARS)
    if isinstance(value, dict):
        value = {k: shorten(v, SHRUNK_CHARS) if isinstance(v, str) else v for k, v in value.items()}
    return json_text(value)


def conversation(first: tuple[Message, Message], steps: Sequence[StepRecord], syntax: str, budget_chars: int
                 ) -> tuple[tuple[Message, ...], tuple[PromptCut, ...]]:
    """The messages sent for the next step, and what was cut to fit `budget_chars`: the long texts of older
    steps are shortened first (oldest first), then the oldest steps are dropped, and the last step is shortened
    only when it alone is too long. The opening is never cut."""
    turns = []
    for step in steps:
        reply = reply_message(step, syntax)
        turns.append(Turns(step.step, ((reply,) if reply is not None else ()) + result_messages(step, syntax)))
    cuts: list[PromptCut] = []
    total = sum(message_chars(m) for m in first) + sum(t.chars for t in turns)

    def shrink(index: int) -> None:
        nonlocal total
        turn = turns[index]
        shrunk = Turns(turn.step, tuple(_shrunk(m) for m in turn.messages))
        if shrunk.chars < turn.chars:
            cuts.append(PromptCut(f"step {turn.step}", turn.chars, shrunk.chars))
            total -= turn.chars - shrunk.chars
            turns[index] = shrunk

    for index in range(len(turns) - KEPT_WHOLE):
        if total <= budget_chars:
            break
        shrink(index)
    dropped = 0
    while total > budget_chars and len(turns) - dropped > KEPT_WHOLE:
        total -= turns[dropped].chars
        cuts.append(PromptCut(f"step {turns[dropped].step}", turns[dropped].chars, 0))
        dropped += 1
    for index in range(dropped, len(turns)):  # what is left is still too long: the last steps' long texts
        if total <= budget_chars:
            break
        shrink(index)
    note = (Message("user", DROPPED_NOTE.format(last=turns[dropped - 1].step)),) if dropped else ()
    messages = (*first, *note, *(m for turn in turns[dropped:] for m in turn.messages))
    return _merged(messages), tuple(cuts)


def _merged(messages: Sequence[Message]) -> tuple[Message, ...]:
    """Consecutive user turns as one (a template may insist that roles alternate)."""
    merged: list[Message] = []
    for message in messages:
        if merged and message.role == "user" and merged[-1].role == "user" and not merged[-1].tool_calls:
            merged[-1] = Message("user", merged[-1].content + "\n\n" + message.content)
        else:
            merged.append(message)
    return tuple(merged)
