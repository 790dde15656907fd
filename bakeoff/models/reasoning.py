"""Keeping a model's reasoning apart from its answer.

Reasoning models write their thinking before the answer, in one of a few
markups. `split_output` cuts a raw generation into (reasoning, answer) for a
known format; `detect_output_format` guesses the format from the text alone
(for a server that hands the markup back inside `content`). The answer is the
only part anything is ever read from: files, EXPECTED_F1 claims and verdicts.

Formats:
- "none": no reasoning markup; the whole output is the answer.
- "think": `<think>` ... `</think>` then the answer. When the chat template
  opens `<think>` itself (the prompt ends inside it), the output starts in the
  reasoning and only the closing tag appears.
- "think_bracket": the same with `[THINK]` ... `[/THINK]`.
- "harmony": messages on channels, `<|channel|>NAME<|message|>TEXT<|end|>`;
  `analysis` (and `commentary`) are reasoning, `final` is the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class ReasoningFormat(StrEnum):
    NONE = "none"
    THINK = "think"
    THINK_BRACKET = "think_bracket"
    HARMONY = "harmony"


# Opening and closing markers of the tag formats.
TAGS = {
    ReasoningFormat.THINK: ("<think>", "</think>"),
    ReasoningFormat.THINK_BRACKET: ("[THINK]", "[/THINK]"),
}
HARMONY_CHANNEL = "<|channel|>"
HARMONY_MESSAGE = "<|message|>"
# A harmony message ends at any of these (or where the output stops).
_HARMONY_ENDS = ("<|end|>", "<|return|>", "<|call|>", "<|start|>")
_HARMONY_REASONING_CHANNELS = ("analysis", "commentary")


@dataclass(frozen=True)
class SplitOutput:
    reasoning: str  # "" when the model did not reason (or reasoned nothing)
    answer: str
    unfinished: bool = False  # the output ended inside the reasoning: there is no answer


def split_output(text: str, fmt: ReasoningFormat, opened_in_prompt: bool = False) -> SplitOutput:
    """(reasoning, answer) of one raw generation in format `fmt`.

    `opened_in_prompt`: the prompt already ends inside an opened reasoning tag
    (a template that writes `<think>` itself), so the output starts in the reasoning.
    """
    fmt = ReasoningFormat(fmt)
    if fmt is ReasoningFormat.NONE:
        return SplitOutput("", text)
    if fmt is ReasoningFormat.HARMONY:
        return _split_harmony(text)
    return _split_tagged(text, *TAGS[fmt], opened_in_prompt)


def _split_tagged(text: str, opening: str, closing: str, opened_in_prompt: bool) -> SplitOutput:
    body = text.lstrip()
    if body.startswith(opening):
        body = body[len(opening):]
    elif not opened_in_prompt:
        return SplitOutput("", text)  # no reasoning: an answer that merely mentions the tag later stays whole
    # The first closing tag ends the reasoning: what follows is the answer, even if it mentions the tags.
    reasoning, found, answer = body.partition(closing)
    if not found:
        return SplitOutput(reasoning.strip(), "", unfinished=True)
    return SplitOutput(reasoning.strip(), answer.lstrip())


def _harmony_messages(text: str) -> list[tuple[str, str, bool]]:
    """(channel, content, ended) of every message in a harmony output, in order."""
    messages = []
    position = text.find(HARMONY_CHANNEL)
    while position != -1:
        header_start = position + len(HARMONY_CHANNEL)
        body_start = text.find(HARMONY_MESSAGE, header_start)
        if body_start == -1:  # the output stopped inside a header
            messages.append((_channel_name(text[header_start:]), "", False))
            break
        channel = _channel_name(text[header_start:body_start])
        body_start += len(HARMONY_MESSAGE)
        ends = [(text.find(end, body_start), end) for end in _HARMONY_ENDS]
        ends = [(index, end) for index, end in ends if index != -1]
        if not ends:
            messages.append((channel, text[body_start:], False))
            break
        index, end = min(ends)
        messages.append((channel, text[body_start:index], True))
        position = text.find(HARMONY_CHANNEL, index + len(end))
    return messages


def _channel_name(header: str) -> str:
    # A header may carry more than the name ("commentary to=functions.x"): the first word is the channel.
    words = header.split()
    return words[0] if words else ""


def _split_harmony(text: str) -> SplitOutput:
    messages = _harmony_messages(text)
    if not messages:
        # No channel markers at all: the server or renderer dropped them; nothing to tell apart.
        return SplitOutput("", text)
    reasoning = [content.strip() for channel, content, _ in messages if channel in _HARMONY_REASONING_CHANNELS]
    answers = [content for channel, content, _ in messages if channel not in _HARMONY_REASONING_CHANNELS]
    last_channel, _, last_ended = messages[-1]
    unfinished = not answers and last_channel in _HARMONY_REASONING_CHANNELS and not last_ended
    return SplitOutput("\n\n".join(part for part in reasoning if part), "".join(answers).strip(), unfinished)


def detect_output_format(text: str) -> tuple[ReasoningFormat, bool]:
    """The format an output is written in, judged from its own markers, and whether it starts inside reasoning.

    Used where the template is unknown (a server returning raw markup). A
    closing tag with no opening tag before it means the template opened the
    reasoning (DeepSeek-R1 style); an output that only mentions a tag later,
    with an opening before any closing, is taken as a plain answer.
    """
    if HARMONY_CHANNEL in text and HARMONY_MESSAGE in text:
        return ReasoningFormat.HARMONY, False
    body = text.lstrip()
    for fmt, (opening, closing) in TAGS.items():
        if body.startswith(opening):
            return fmt, False
        close_at = text.find(closing)
        if close_at != -1 and opening not in text[:close_at]:
            return fmt, True
    return ReasoningFormat.NONE, False


def split_detected(text: str) -> SplitOutput:
    """`split_output` in whatever format the text's own markers show."""
    fmt, opened = detect_output_format(text)
    return split_output(text, fmt, opened)


# Mentioned in prompts a template renders: how to see that a generation prompt ends inside reasoning.
def prompt_opens_reasoning(prompt: str, fmt: ReasoningFormat) -> bool:
    """True when the rendered prompt ends inside an opened reasoning tag (the template wrote the opening)."""
    if fmt not in TAGS:
        return False
    opening, closing = TAGS[fmt]
    return prompt.rfind(opening) > prompt.rfind(closing)


_WORD = re.compile(r"\S+")


def count_words(text: str) -> int:
    """Tokens counted as words, where there is no tokenizer (scripted answers)."""
    return len(_WORD.findall(text))
