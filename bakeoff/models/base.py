"""The model backend contract every stage uses.

Stages never import llama_cpp or httpx: they receive a `ModelBackend`.
A backend never raises for a model's silence: an answer that did not come
back is a `Completion` with `error` set, so the capture audit can count it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from bakeoff.models.tools import ToolCall, ToolSpec


@dataclass(frozen=True)
class Message:
    role: str  # "system", "user", "assistant" or "tool"
    content: str
    tool_calls: tuple[ToolCall, ...] = ()  # an assistant turn's tool calls
    tool_call_id: str = ""  # a "tool" turn: the call it answers
    name: str = ""  # a "tool" turn: the tool that answered

    def template_dict(self) -> dict[str, Any]:
        """The message as chat templates and OpenAI's API read it (keys beyond role and content only when set)."""
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.template_dict() for call in self.tool_calls]
        if self.tool_call_id:
            data["tool_call_id"] = self.tool_call_id
        if self.name:
            data["name"] = self.name
        return data


@dataclass(frozen=True)
class GenerationSettings:
    max_tokens: int = 1024
    temperature: float = 0.0
    seed: int = 0
    stop: tuple[str, ...] = ()
    timeout_s: float = 600.0
    # Room for reasoning on top of max_tokens (the answer's budget). A backend adds
    # it to what it asks for when the model may reason, so thinking never eats the answer's share.
    reasoning_tokens: int = 0
    # Tools offered for this turn (a tool loop's step); the backend renders them its model's way and reads the calls.
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: str = "auto"  # "auto", "required", or a tool's name (a server may be made to call it)

    @property
    def total_tokens(self) -> int:
        """The cap on everything generated: answer budget plus reasoning budget."""
        return self.max_tokens + self.reasoning_tokens


@dataclass(frozen=True)
class Completion:
    """One answer, or the record of its absence."""

    text: str
    finish_reason: str  # "stop", "length", or "error"
    prompt_tokens: int
    completion_tokens: int
    prompt_seconds: float  # prompt processing
    generation_seconds: float
    backend: str  # the backend's identity, e.g. "gguf:/path/model.gguf"
    error: str | None = None  # set when nothing came back (timeout, transport error...)
    cached_prompt_tokens: int = 0  # prompt tokens served from a reused prefix
    model_info: dict = field(default_factory=dict)  # sha256, quantization, n_ctx, offload, versions
    # Why nothing came back, as a name the capture audit counts by:
    # "timeout", "transport_error", "backend_error", "backend_crash" (the engine process died) or
    # "context_truncated" (the server refused a prompt longer than its context) or "rate_limited" (an endpoint's
    # 429s outlasted the wait budget, bakeoff.models.rate_limit); None when `error` is None.
    error_kind: str | None = None
    # What the model thought before answering, kept apart from `text` (the answer only):
    # nothing is ever parsed out of it. Empty when the model did not reason.
    reasoning: str = ""
    reasoning_tokens: int = 0  # counted with the model's tokenizer (or words, for scripted answers)
    # True when the output ended inside the reasoning (it never reached an answer).
    reasoning_unfinished: bool = False
    # The most tokens the backend let the model generate for this answer (None: not known).
    token_budget: int | None = None
    # The calls read from the answer when tools were offered (bakeoff.models.tools), in the model's syntax.
    tool_calls: tuple[ToolCall, ...] = ()
    # bakeoff's own count of the prompt it sent, as a floor: exact where bakeoff has the model's tokenizer, a
    # bound from the text otherwise (bakeoff.models.truncation). A server reporting fewer `prompt_tokens` cut
    # the prompt, and the audit records the turn uncaptured (context_truncated). None: not counted.
    prompt_floor: int | None = None
    # True when a server stopped the answer at `length` short of the budget it was asked for: its context (prompt
    # and answer together) filled first, a context smaller than the one the plan sized the turn for.
    context_filled: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def failure(
        cls,
        backend: str,
        error: str,
        error_kind: str,
        *,
        generation_seconds: float = 0.0,
        prompt_tokens: int = 0,
        model_info: dict | None = None,
    ) -> Completion:
        """The record of an answer that did not come back: no text, finish_reason "error"."""
        return cls(
            text="",
            finish_reason="error",
            prompt_tokens=prompt_tokens,
            completion_tokens=0,
            prompt_seconds=0.0,
            generation_seconds=generation_seconds,
            backend=backend,
            error=error,
            error_kind=error_kind,
            model_info=dict(model_info or {}),
        )


ERROR_KINDS = ("timeout", "transport_error", "backend_error", "backend_crash", "context_truncated", "rate_limited")


def turn_key(conversation: str, turn: int) -> str:
    """The key a caller passes to `chat()`: "<conversation>#<turn>", turns counted from 1.

    The scripted backend looks answers up by this key, so a resumed or
    re-ordered run is served the answer recorded for the same turn.
    """
    if "#" in conversation:
        raise ValueError(f"a conversation name may not contain '#': {conversation!r}")
    if turn < 1:
        raise ValueError(f"turns are counted from 1, got {turn}")
    return f"{conversation}#{turn}"


def split_key(key: str) -> tuple[str, int | None]:
    """("<conversation>", turn) from a key; turn is None when the key names no turn."""
    conversation, sep, turn = key.rpartition("#")
    if sep and turn.isdigit():
        return conversation, int(turn)
    return key, None


@runtime_checkable
class ModelBackend(Protocol):
    """Anything that can answer a chat."""

    @property
    def identity(self) -> str: ...

    def chat(
        self,
        messages: Sequence[Message],
        *,
        key: str,
        settings: GenerationSettings,
    ) -> Completion:
        """Answer `messages`. `key` names the conversation and turn (used by replay and prefix reuse)."""
        ...

    def close(self) -> None: ...
