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

What the split trusts (an answer is hostile input, and its code may spell any marker):
- Reasoning opened by the chat template is known from the rendered prompt, never guessed from the output:
  `prompt_opens_reasoning` is true only when the prompt really ends inside an opened reasoning block.
  Where the prompt is not seen (an OpenAI-compatible server, replayed answers), `detect_output_format` judges
  from the output's markers, and a marker inside a closed fenced code block is code, not markup: a plain answer
  whose code holds `</think>` stays a plain answer.
- A harmony message ends at an end marker that is structure (followed by the next message's `<|start|>` or
  `<|channel|>`, or at the end of the output) or that lies outside the message's closed fenced blocks: a final
  message whose code prints `<|end|>` keeps its code whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from bakeoff.fences import closed_block_spans, find_unfenced


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
HARMONY_START = "<|start|>"
# A harmony message ends at any of these (or where the output stops).
_HARMONY_ENDS = ("<|end|>", "<|return|>", "<|call|>", HARMONY_START)
# What follows a real end marker: the next message's start, or its channel; after <|start|>, a role and a header.
_NEXT_MESSAGE = (HARMONY_START, HARMONY_CHANNEL)
_NEXT_HEADER = re.compile(r"[^<>\s]{1,64}(?: [^<>]{0,64})?<\|(?:channel|message)\|>")
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


def _message_end(text: str, body_start: int) -> tuple[int, str] | None:
    """Where the harmony message whose text starts at `body_start` ends: (index, marker), None when it runs on
    to the end of the output. A marker followed by the next message's header, or by nothing, is structure; any
    other marker ends the message only outside the message's closed fenced blocks (there it is code)."""
    body = text[body_start:]
    spans = None
    candidates = sorted((index, end) for end in _HARMONY_ENDS if (index := body.find(end)) != -1)
    while candidates:
        index, end = candidates.pop(0)
        after = body[index + len(end):]
        structure = _NEXT_HEADER.match(after) if end == HARMONY_START else after.startswith(_NEXT_MESSAGE)
        if structure or not after.strip():
            return body_start + index, end
        spans = closed_block_spans(body) if spans is None else spans
        if find_unfenced(body, end, index, spans) == index:
            return body_start + index, end
        following = body.find(end, index + len(end))
        if following != -1:
            candidates = sorted([*candidates, (following, end)])
    return None


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
        ending = _message_end(text, body_start)
        if ending is None:
            messages.append((channel, text[body_start:], False))
            break
        index, end = ending
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

    Used where the template is unknown (a server returning raw markup, replayed answers). Markers inside closed
    fenced code blocks are code and count for nothing. A closing tag with no opening tag before it means the
    template opened the reasoning (DeepSeek-R1 style); an output that only mentions a tag later, with an
    opening before any closing, is taken as a plain answer.
    """
    spans = closed_block_spans(text)
    channel = find_unfenced(text, HARMONY_CHANNEL, 0, spans)
    if channel != -1 and find_unfenced(text, HARMONY_MESSAGE, channel, spans) != -1:
        return ReasoningFormat.HARMONY, False
    body = text.lstrip()
    for fmt, (opening, closing) in TAGS.items():
        if body.startswith(opening):
            return fmt, False
        close_at = find_unfenced(text, closing, 0, spans)
        if close_at != -1 and find_unfenced(text[:close_at], opening, 0, spans) == -1:
            return fmt, True
    return ReasoningFormat.NONE, False


def split_detected(text: str) -> SplitOutput:
    """`split_output` in whatever format the text's own markers show."""
    fmt, opened = detect_output_format(text)
    return split_output(text, fmt, opened)


# Mentioned in prompts a template renders: how to see that a generation prompt ends inside reasoning.
def prompt_opens_reasoning(prompt: str, fmt: ReasoningFormat) -> bool:
    """True when the rendered prompt really ends inside an opened reasoning tag: the template wrote the opening
    as the last thing of the generation prompt. An opening earlier in the prompt (a user's message quoting a
    tag, a turn of history) opens nothing the model continues."""
    if fmt not in TAGS:
        return False
    opening, _closing = TAGS[fmt]
    return prompt.rstrip().endswith(opening)


_WORD = re.compile(r"\S+")


def count_words(text: str) -> int:
    """Tokens counted as words, where there is no tokenizer (scripted answers)."""
    return len(_WORD.findall(text))
