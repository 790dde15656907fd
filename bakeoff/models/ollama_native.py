"""Ollama's native chat API (`ollama:NAME[:TAG]`): the context window set per request, its own usage recorded.

Ollama's OpenAI-compatible endpoint runs every model at Ollama's default context (2,048 or 4,096 tokens, by
version) and silently keeps only the end of a longer prompt; its native `POST /api/chat` takes `options.num_ctx`,
so a take-home's prompt fits the window the plan asked for. The seed, temperature, answer budget (`num_predict`)
and stop strings go in the same `options`; reasoning is Ollama's `think` (false for off, the level for gpt-oss
style models). Its answer's counts and durations (nanoseconds: load, prompt, generation) are the cost recorded.

The retry, rate-limit and effective-configuration machinery is the OpenAI-compatible backend's; this module is only
the wire format (its URL, request and answer shapes).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import httpx
import msgspec

import durable
from bakeoff.models.base import Completion, GenerationSettings, Message
from bakeoff.models.effective import UNKNOWN, EffectiveConfig, ollama_config
from bakeoff.models.errors import ReasoningModeUnsupported
from bakeoff.models.openai_compat import HttpSettings, OpenAICompatBackend
from bakeoff.models.tools import ToolSyntax, calls_from_openai

DEFAULT_HOST = "http://127.0.0.1:11434"
NANOSECONDS = 1e9
LIST_TIMEOUT_S = 5.0
LOCAL_HTTP = HttpSettings(api_key_env="", server="ollama")  # a local Ollama needs no key


class _Function(msgspec.Struct):
    name: str = ""
    arguments: dict[str, Any] | str = ""


class _Call(msgspec.Struct):
    function: _Function


class _AnswerMessage(msgspec.Struct):
    content: str = ""
    thinking: str = ""
    tool_calls: list[_Call] = []


class _ChatAnswer(msgspec.Struct):
    message: _AnswerMessage
    done_reason: str = "stop"
    prompt_eval_count: int = 0
    eval_count: int = 0
    prompt_eval_duration: int = 0
    eval_duration: int = 0
    load_duration: int = 0
    total_duration: int = 0
    model: str = ""


class _Listed(msgspec.Struct):
    name: str


class _Tags(msgspec.Struct):
    models: list[_Listed]


def listed_models(host: str, api_key_env: str = "", timeout_s: float = LIST_TIMEOUT_S) -> list[str]:
    """The model names Ollama's `GET /api/tags` lists (each `name:tag`); ValueError for an answer that is not a
    model list."""
    response = httpx.get(f"{host}/api/tags", timeout=timeout_s)
    response.raise_for_status()
    try:
        tags = msgspec.convert(durable.loads(response.content, what="Ollama's model list"), type=_Tags)
    except (durable.UntrustedJSON, msgspec.ValidationError) as exc:
        raise ValueError(f"not a model list: {exc}") from None
    return [model.name for model in tags.models]


def think_field(mode: str) -> dict[str, Any]:
    """The request's `think` for a reasoning mode (none for default)."""
    if mode == "default":
        return {}
    if mode not in ("off", "low", "medium", "high"):
        raise ReasoningModeUnsupported(f"reasoning must be default, off, low, medium or high, got {mode!r}")
    return {"think": False if mode == "off" else mode}


class OllamaBackend(OpenAICompatBackend):
    """One Ollama model over its native API; `num_ctx` the window every request asks for."""

    def __init__(self, host: str, model: str, num_ctx: int, http: HttpSettings = LOCAL_HTTP,
                 transport: httpx.BaseTransport | None = None) -> None:
        super().__init__(host.rstrip("/"), model, http, transport=transport)
        self.num_ctx = num_ctx
        self._think = think_field(http.reasoning)
        self._reasoning_fields = {}  # Ollama's switch is `think`, set above
        self._tokenize_url = None  # Ollama has no tokenizer endpoint

    @property
    def identity(self) -> str:
        return f"ollama:{self.base_url}#{self.model}"

    @property
    def tool_syntax(self) -> str:
        return ToolSyntax.OPENAI.value

    def _ask_effective(self) -> EffectiveConfig:
        try:
            return ollama_config(self._client, self.base_url, self.model) or EffectiveConfig(UNKNOWN)
        except httpx.HTTPError:
            return EffectiveConfig(UNKNOWN)

    def _chat_url(self) -> str:
        return f"{self.base_url}/api/chat"

    def _payload(self, messages: Sequence[Message], settings: GenerationSettings) -> dict:
        budget = settings.total_tokens if settings.reasoning_tokens and self.http.reasoning != "off" else settings.max_tokens
        options: dict[str, Any] = {"num_ctx": self.num_ctx, "seed": settings.seed, "temperature": settings.temperature,
                                   "num_predict": budget}
        if settings.stop:
            options["stop"] = list(settings.stop)
        payload: dict[str, Any] = {"model": self.model, "messages": [_native_message(m) for m in messages],
                                   "stream": False, "options": options, **self._think}
        if settings.tools:
            payload["tools"] = [tool.to_openai() for tool in settings.tools]
        return payload

    def _prompt_floor(self, messages: Sequence[Message]) -> int | None:
        return None  # Ollama counts only the prompt tokens its cache did not hold: no floor to hold it to

    def _budget(self, payload: dict) -> int:
        return int(payload["options"]["num_predict"])

    def _parse(self, response: httpx.Response, started: float, attempts: list[str], token_budget: int,
               tools_offered: bool = False) -> Completion:
        try:
            answer = msgspec.convert(durable.loads(response.content, what="Ollama's answer"), type=_ChatAnswer)
        except (durable.UntrustedJSON, msgspec.ValidationError) as exc:
            attempts.append("malformed response")
            return self._failure(f"malformed response ({exc}): {response.text[:300]}", "backend_error", started, attempts)
        calls = calls_from_openai([{"id": f"call_{i}", "type": "function",
                                    "function": {"name": c.function.name, "arguments": _argument_text(c.function)}}
                                   for i, c in enumerate(answer.message.tool_calls)]) if tools_offered else ()
        reasoning = answer.message.thinking.strip()
        reasoning_tokens, counted_by = self._count_reasoning(reasoning, answer.message.content, answer.eval_count, None)
        timed = answer.eval_duration > 0
        return Completion(
            text=answer.message.content,
            reasoning=reasoning,
            reasoning_tokens=reasoning_tokens,
            token_budget=token_budget,
            finish_reason="length" if answer.done_reason == "length" else "stop",
            prompt_tokens=answer.prompt_eval_count,
            completion_tokens=answer.eval_count,
            prompt_seconds=answer.prompt_eval_duration / NANOSECONDS,
            generation_seconds=answer.eval_duration / NANOSECONDS if timed else time.perf_counter() - started,
            backend=self.identity,
            tool_calls=calls,
            model_info={
                **({"tool_syntax": ToolSyntax.OPENAI.value, "tool_calls_from": "server" if calls else "none"}
                   if tools_offered else {}),
                "served_model": answer.model or None,
                "num_ctx": self.num_ctx,
                "load_seconds": answer.load_duration / NANOSECONDS,
                "total_seconds": answer.total_duration / NANOSECONDS,
                "timing_source": "server" if timed else "wall_clock",
                "attempts": len(attempts) + 1,
                "attempt_failures": attempts,
                "reasoning_tokens_counted_by": counted_by,
            },
        )


def _argument_text(function: _Function) -> str:
    """A call's arguments as JSON text, as every other backend hands them on (Ollama sends an object)."""
    return function.arguments if isinstance(function.arguments, str) else durable.dumps(function.arguments)


def _native_message(message: Message) -> dict[str, Any]:
    """A message as /api/chat takes it: a call's arguments as an object, a tool's answer by role alone."""
    data = message.template_dict()
    data.pop("tool_call_id", None)
    if message.tool_calls:
        data["tool_calls"] = [{"function": call.template_dict()["function"]} for call in message.tool_calls]
    return data
