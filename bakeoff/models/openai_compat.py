"""The OpenAI-compatible backend: llama.cpp's server, Ollama, vLLM, a hosted control model.

POSTs to <base_url>/chat/completions. A 429 (or a 503 with Retry-After) is waited for as the server asks, within
the `rate_limit_wait_s` budget, and past it recorded `rate_limited` (bakeoff.models.rate_limit). Retries with
exponential backoff on other 5xx and on failed connections; never on other 4xx (the request itself is
wrong and would fail again; a 400 refusing a prompt longer than the server's context is recorded as
`context_truncated`, bakeoff.models.truncation). A timeout is not retried: a model that ran out of
time once would do so again, and the run records it as uncaptured.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import httpx

from bakeoff.models.api_key import bearer_headers
from bakeoff.models.base import Completion, GenerationSettings, Message
from bakeoff.models.effective import EffectiveConfig, effective_config
from bakeoff.models.rate_limit import (
    DEFAULT_RATE_LIMIT_WAIT_S,
    RATE_LIMITED,
    RateLimitWaits,
    asks_to_wait,
    retry_after_s,
)
from bakeoff.models.reasoning import split_detected
from bakeoff.models.servers import reasoning_fields
from bakeoff.models.tools import ToolSyntax, calls_from_openai, parse_text_protocol
from bakeoff.models.truncation import CONTEXT_TRUNCATED, context_filled, is_context_refusal, text_floor

RETRY_STATUSES = frozenset({429}) | frozenset(range(500, 600))
MAX_RETRY_AFTER_S = 60.0


@dataclass(frozen=True)
class HttpSettings:
    api_key_env: str = "OPENAI_API_KEY"
    max_retries: int = 3  # extra attempts after the first
    backoff_s: float = 1.0  # first wait; doubles with each retry
    rate_limit_wait_s: float = DEFAULT_RATE_LIMIT_WAIT_S  # a call's waits on 429s, all together (bakeoff.models.rate_limit)
    connect_timeout_s: float = 10.0
    reasoning: str = "default"  # default, off, low, medium, high
    server: str = ""  # "llama.cpp", "vllm" or "ollama": which field carries the reasoning switch
    ask_effective: bool = True  # ask the server once what it runs (bakeoff.models.effective)


class OpenAICompatBackend:
    def __init__(
        self,
        base_url: str,
        model: str,
        http: HttpSettings = HttpSettings(),
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        server_api_key: str | None = None,  # the key itself, of a server bakeoff started (http.api_key_env is "")
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.http = http
        self._sleep = sleep
        headers = bearer_headers(http.api_key_env, self.base_url)  # refused by name: a non-key, or plain http out
        # One client per backend: connections are kept alive across turns.
        self._client = httpx.Client(headers=headers, transport=transport)
        if server_api_key is not None:
            self._client.headers["Authorization"] = f"Bearer {server_api_key}"
        self._reasoning_fields = reasoning_fields(http.reasoning, http.server)  # refused here, before any request
        self._tokenize_url: str | None = self.base_url.removesuffix("/v1") + "/tokenize"
        self._effective: dict | None = None  # what the server said it runs, asked before the first turn

    @property
    def identity(self) -> str:
        return f"openai:{self.base_url}#{self.model}"

    @property
    def tool_syntax(self) -> str:
        return ToolSyntax.OPENAI.value

    def _payload(self, messages: Sequence[Message], settings: GenerationSettings) -> dict:
        payload = {
            "model": self.model,
            "messages": [_api_message(m) for m in messages],
            "max_tokens": settings.max_tokens,
            "temperature": settings.temperature,
            "seed": settings.seed,
            **self._reasoning_fields,
        }
        if settings.reasoning_tokens and self.http.reasoning != "off":
            payload["max_tokens"] = settings.total_tokens  # room to reason on top of the answer's budget
        if settings.stop:
            payload["stop"] = list(settings.stop)
        if settings.tools:
            payload["tools"] = [tool.to_openai() for tool in settings.tools]
            choice = settings.tool_choice
            named = choice not in ("auto", "required", "none")
            payload["tool_choice"] = {"type": "function", "function": {"name": choice}} if named else choice
        return payload

    def _prompt_floor(self, messages: Sequence[Message]) -> int | None:
        """bakeoff's own floor on the prompt's tokens, which a server's count below means a cut prompt."""
        return text_floor(messages)

    def _budget(self, payload: dict) -> int:
        """The most tokens the request lets the model generate."""
        return int(payload["max_tokens"])

    def _wait_before_retry(self, attempt: int, response: httpx.Response | None) -> None:
        wait = self.http.backoff_s * (2**attempt)
        retry_after = response.headers.get("retry-after") if response is not None else None
        if retry_after:
            try:
                wait = max(wait, min(float(retry_after), MAX_RETRY_AFTER_S))
            except ValueError:
                pass  # an HTTP date: keep our own backoff
        self._sleep(wait)

    def chat(self, messages: Sequence[Message], *, key: str, settings: GenerationSettings) -> Completion:
        if self._effective is None:
            self._effective = self._ask_effective().info() if self.http.ask_effective else {}
        completion = self._chat(messages, settings)
        return replace(completion, model_info={**self._effective, **completion.model_info}) if self._effective \
            else completion

    def _ask_effective(self) -> EffectiveConfig:
        return effective_config(self._client, self.base_url, self.model)

    def _chat_url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _chat(self, messages: Sequence[Message], settings: GenerationSettings) -> Completion:
        url = self._chat_url()
        timeout = httpx.Timeout(settings.timeout_s, connect=min(self.http.connect_timeout_s, settings.timeout_s))
        payload = self._payload(messages, settings)
        started = time.perf_counter()
        attempts: list[str] = []
        waits = RateLimitWaits(self.http.rate_limit_wait_s, self.http.backoff_s)
        retries = 0  # of failures other than rate limits: at most max_retries
        while True:
            sent = time.perf_counter()
            try:
                response = self._client.post(url, json=payload, timeout=timeout)
            except httpx.TimeoutException as exc:
                if isinstance(exc, httpx.ConnectTimeout) and retries < self.http.max_retries:
                    attempts.append(f"connect timeout: {exc}")
                    self._wait_before_retry(retries, None)
                    retries += 1
                    continue
                attempts.append(f"{type(exc).__name__}: {exc}")
                kind = "transport_error" if isinstance(exc, httpx.ConnectTimeout) else "timeout"
                return self._failure(f"{type(exc).__name__}: {exc}", kind, started, attempts)
            except httpx.TransportError as exc:
                attempts.append(f"{type(exc).__name__}: {exc}")
                if retries < self.http.max_retries:
                    self._wait_before_retry(retries, None)
                    retries += 1
                    continue
                return self._failure(f"{type(exc).__name__}: {exc}", "transport_error", started, attempts)
            status = response.status_code
            retry_after = response.headers["retry-after"] if "retry-after" in response.headers else None
            if asks_to_wait(status, retry_after):  # the key's rate, not the model: waited for within a budget
                attempts.append(f"HTTP {status}")
                asked = retry_after_s(retry_after, time.time())
                wait = waits.next_wait(asked)
                if wait is None:
                    return self._failure(waits.gave_up(status, asked), RATE_LIMITED, started, attempts, waits)
                self._sleep(wait)
                continue
            if status in RETRY_STATUSES and retries < self.http.max_retries:
                attempts.append(f"HTTP {status}")
                self._wait_before_retry(retries, response)
                retries += 1
                continue
            if status >= 400:
                attempts.append(f"HTTP {status}")
                detail = response.text[:500]
                kind = CONTEXT_TRUNCATED if is_context_refusal(status, detail) else "backend_error"
                return self._failure(f"HTTP {status}: {detail}", kind, started, attempts)
            # The answer's own time: the waits and failed attempts before it are not the model's.
            completion = self._parse(response, sent, attempts, self._budget(payload), bool(settings.tools))
            if completion.error is not None:
                return completion
            info = {**completion.model_info, "rate_limit_wait_s": waits.waited_s} if waits.count else completion.model_info
            return replace(completion, prompt_floor=self._prompt_floor(messages), context_filled=context_filled(completion),
                           model_info=info)

    def _failure(self, error: str, kind: str, started: float, attempts: list[str],
                 waits: RateLimitWaits | None = None) -> Completion:
        waited = {"rate_limit_wait_s": waits.waited_s} if waits is not None else {}
        return Completion.failure(
            self.identity,
            error,
            kind,
            generation_seconds=time.perf_counter() - started,
            model_info={"attempts": len(attempts), "attempt_failures": attempts, **waited},
        )

    def _parse(self, response: httpx.Response, started: float, attempts: list[str], token_budget: int,
               tools_offered: bool = False) -> Completion:
        elapsed = time.perf_counter() - started
        try:
            body = response.json()
            choice = body["choices"][0]
            text = choice["message"].get("content") or ""
            if not isinstance(text, str):
                raise TypeError(f"content is a {type(text).__name__}, not text")
            reasoning, text, unfinished = _reasoning_of(choice["message"], text)
            calls = calls_from_openai(choice["message"].get("tool_calls")) if tools_offered else ()
            calls_from = "server" if calls else "none"
            if tools_offered and not calls:  # a server that left the model's markup in content
                parsed = parse_text_protocol(text)
                if parsed.calls:
                    text, calls, calls_from = parsed.text, parsed.calls, "content"
            finish_reason = str(choice.get("finish_reason") or "stop")
            usage = body.get("usage") or {}
            prompt_tokens = int(usage.get("prompt_tokens") or 0)
            completion_tokens = int(usage.get("completion_tokens") or 0)
            cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
            reported = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
            timings = body.get("timings") or {}  # llama.cpp's own server reports these
            if "prompt_ms" in timings and "predicted_ms" in timings:
                prompt_s, generation_s, source = timings["prompt_ms"] / 1000, timings["predicted_ms"] / 1000, "server"
                cached = cached or int(timings.get("cache_n") or 0)
            else:
                prompt_s, generation_s, source = 0.0, elapsed, "wall_clock"
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            attempts.append("malformed response")
            return self._failure(f"malformed response ({exc!r}): {response.text[:300]}", "backend_error", started, attempts)
        reasoning_tokens, counted_by = self._count_reasoning(reasoning, text, completion_tokens, reported)
        return Completion(
            text=text,
            reasoning=reasoning,
            reasoning_tokens=reasoning_tokens,
            reasoning_unfinished=unfinished,
            token_budget=token_budget,
            finish_reason=finish_reason,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            prompt_seconds=prompt_s,
            generation_seconds=generation_s,
            backend=self.identity,
            cached_prompt_tokens=cached,
            tool_calls=calls,
            model_info={
                **({"tool_syntax": ToolSyntax.OPENAI.value, "tool_calls_from": calls_from} if tools_offered else {}),
                "served_model": body.get("model"),
                "system_fingerprint": body.get("system_fingerprint"),
                "timing_source": source,
                "attempts": len(attempts) + 1,
                "attempt_failures": attempts,
                "reasoning_tokens_counted_by": counted_by,
            },
        )

    def close(self) -> None:
        self._client.close()

    def _count_reasoning(self, reasoning: str, answer: str, completion_tokens: int, reported) -> tuple[int, str]:
        """Reasoning tokens, and how they were counted: "none", "server_usage", "server_tokenizer" or "share"."""
        counted_by_server = isinstance(reported, int) and not isinstance(reported, bool) and reported >= 0
        if counted_by_server and (reported > 0 or reasoning):
            return reported, "server_usage"  # also when the text is hidden (OpenAI's reasoning models send none)
        if not reasoning:
            return 0, "none"
        counted = self._server_token_count(reasoning)
        if counted is not None:
            return counted, "server_tokenizer"
        # No tokenizer to ask: the reasoning's share of the generated text, in characters.
        share = len(reasoning) / (len(reasoning) + len(answer))
        return round(completion_tokens * share), "share"

    def _server_token_count(self, text: str) -> int | None:
        """Tokens of `text` by the server's own /tokenize (llama.cpp: content; vLLM: prompt); None if it has none."""
        if self._tokenize_url is None:
            return None
        try:
            response = self._client.post(self._tokenize_url, json={"content": text, "prompt": text, "model": self.model,
                                                                   "add_special": False}, timeout=self.http.connect_timeout_s)
            tokens = response.json().get("tokens") if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            tokens = None
        if not isinstance(tokens, list):
            self._tokenize_url = None  # asked once: a server without the endpoint is not asked again
            return None
        return len(tokens)


def _api_message(message: Message) -> dict:
    """A message as the chat completions API takes it: a call's arguments as JSON text."""
    data = message.template_dict()
    data.pop("name", None)  # a tool turn is known by its call id; strict servers refuse other keys
    if message.tool_calls:
        data["tool_calls"] = [{"id": call.call_id or f"call_{index}", "type": "function",
                               "function": {"name": call.name, "arguments": call.arguments}}
                              for index, call in enumerate(message.tool_calls)]
    return data


def _reasoning_of(message: dict, content: str) -> tuple[str, str, bool]:
    """(reasoning, answer, unfinished) from a response message, whichever way the server carries reasoning."""
    fields = []
    for name in ("reasoning_content", "reasoning"):
        value = message.get(name)
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} is a {type(value).__name__}, not text")
        if value and value.strip() not in fields:  # the same text in both fields is one reasoning
            fields.append(value.strip())
    split = split_detected(content)  # markup left in content by a server that does not parse it
    if split.reasoning:
        fields.append(split.reasoning)
    return "\n\n".join(fields), split.answer, split.unfinished
