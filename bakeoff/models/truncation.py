"""Was the prompt cut? bakeoff's own count of what it sent, against what the server says it read.

A server whose context is smaller than the prompt either refuses it (llama.cpp's server: HTTP 400
`exceed_context_size_error`; vLLM and OpenAI: a 400 naming the maximum context length) or, worse, drops the
start of it and answers anyway (Ollama's OpenAI-compatible endpoint at its default context). Either way the
model never saw the whole prompt: the turn is uncaptured (`context_truncated`), never the model's failure.

The silent case shows in `usage.prompt_tokens`: fewer tokens than the prompt bakeoff sent. bakeoff counts
exactly where it has the model's tokenizer (its own GGUF engines); for an endpoint it knows only the text, so
its count is a floor: the characters over the most characters a token of any tokenizer spans in real text.
"""

from __future__ import annotations

from collections.abc import Sequence

from bakeoff.models.base import Completion, Message

# Tokenizers of current models average 3 to 4.5 characters a token on English prose and fewer on code;
# 6 keeps the floor below any of them (a floor that overshot would call an honest server a cutter), and
# still sits far above what a cut prompt reports (a 16K-token prompt cut to 4,096 tokens).
MAX_CHARS_PER_TOKEN = 6

# No server runs a context this small: a prompt shorter than it was not cut, whatever a server (or a test's
# stand-in for one) reports, and a short prompt's floor is too rough to judge by.
MIN_JUDGED_TOKENS = 256

CONTEXT_TRUNCATED = "context_truncated"  # the capture reason and error kind (bakeoff.records.enums)

# What servers say when they refuse a prompt longer than their context (matched in lower case).
_CONTEXT_REFUSALS = (
    "exceed_context_size_error",  # llama.cpp's server: its error type
    "exceeds the available context size",  # llama.cpp's server: its message
    "context_length_exceeded",  # OpenAI's error code
    "maximum context length",  # vLLM and OpenAI: "This model's maximum context length is N tokens"
)


def text_floor(messages: Sequence[Message]) -> int:
    """The fewest tokens the messages' text can be, whatever the tokenizer (chat template tokens not counted)."""
    chars = sum(len(message.content) + sum(len(call.arguments) for call in message.tool_calls) for message in messages)
    return chars // MAX_CHARS_PER_TOKEN


def is_context_refusal(status: int, body: str) -> bool:
    """True when an HTTP error answer is the server refusing a prompt longer than its context."""
    if status != 400 and status != 413:
        return False
    lowered = body.lower()
    return any(phrase in lowered for phrase in _CONTEXT_REFUSALS)


def context_filled(completion: Completion) -> bool:
    """True when a server ended the answer at `length` short of the budget it was asked for: only its context
    (prompt and answer together) stops a generation there. A server reporting no usage says nothing."""
    budget = completion.token_budget
    return (completion.finish_reason == "length" and budget is not None and completion.prompt_tokens > 0
            and 0 < completion.completion_tokens < budget)


def truncation_of(completion: Completion) -> str | None:
    """Why the model never had the room it was promised, or None: the server read fewer prompt tokens than
    bakeoff sent (it cut the prompt), or its context filled before the answer's budget did.

    A server that reports no prompt tokens (0) says nothing either way."""
    if completion.context_filled and completion.finish_reason == "length":
        return (f"the server's context filled after {completion.prompt_tokens} prompt and "
                f"{completion.completion_tokens} answer tokens, short of the answer's budget of "
                f"{completion.token_budget}: its context is smaller than the plan's (raise the server's context: "
                "llama-server -c, Ollama's num_ctx)")
    floor = completion.prompt_floor
    if floor is None or floor < MIN_JUDGED_TOKENS or completion.prompt_tokens <= 0 or completion.prompt_tokens >= floor:
        return None
    return (f"the server read {completion.prompt_tokens} prompt tokens of a prompt of at least {floor}: it cut "
            "the prompt to fit its context (raise the server's context: llama-server -c, Ollama's num_ctx)")
