"""Usage as the providers really send it: the OpenAI body (cached and reasoning tokens in their detail objects),
Anthropic's OpenAI-compatible layer (the detail objects empty or absent: its documentation says prompt caching is
not served there and the details stay empty), and a server that sends the details as null. Each body below is
written in the shape of that provider's public API reference; the backend reads prompt, cached, completion and
reasoning tokens from it through the real HTTP code (an httpx mock transport, the backend's one transport seam)."""

from __future__ import annotations

import httpx
import pytest

from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.options import BackendOptions
from bakeoff.models.registry import open_backend

HELLO = [Message("user", "Say hello.")]


def body(model: str, usage: dict, content: str = "Hello.") -> dict:
    return {"id": "chatcmpl-7", "object": "chat.completion", "created": 1764000000, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": usage}


OPENAI = body("gpt-5-mini-2025-08-07", {
    "prompt_tokens": 1830, "completion_tokens": 410, "total_tokens": 2240,
    "prompt_tokens_details": {"cached_tokens": 1536, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 384, "audio_tokens": 0, "accepted_prediction_tokens": 0,
                                  "rejected_prediction_tokens": 0}})
ANTHROPIC_EMPTY = body("claude-sonnet-4-5", {
    "prompt_tokens": 1830, "completion_tokens": 26, "total_tokens": 1856,
    "prompt_tokens_details": {}, "completion_tokens_details": {}})
ANTHROPIC_BARE = body("claude-sonnet-4-5", {"prompt_tokens": 1830, "completion_tokens": 26, "total_tokens": 1856})
NULL_DETAILS = body("qwen3-8b", {"prompt_tokens": 1830, "completion_tokens": 26, "total_tokens": 1856,
                                 "prompt_tokens_details": None, "completion_tokens_details": None})


def completion_of(reply: dict):
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=reply))
    backend = open_backend("openai:http://model.invalid/v1#m", BackendOptions(transport=transport))
    try:
        return backend.chat(HELLO, key="u#1", settings=GenerationSettings())
    finally:
        backend.close()


def test_openai_usage_gives_cached_and_reasoning_tokens():
    done = completion_of(OPENAI)
    assert (done.prompt_tokens, done.cached_prompt_tokens, done.completion_tokens) == (1830, 1536, 410)
    assert done.reasoning_tokens == 384 and done.model_info["reasoning_tokens_counted_by"] == "server_usage"
    assert done.model_info["served_model"] == "gpt-5-mini-2025-08-07"


@pytest.mark.parametrize("reply", [ANTHROPIC_EMPTY, ANTHROPIC_BARE, NULL_DETAILS], ids=["empty", "absent", "null"])
def test_usage_without_details_counts_no_cache_and_no_reasoning(reply):
    done = completion_of(reply)
    assert done.error_kind is None, done.error
    assert (done.prompt_tokens, done.cached_prompt_tokens, done.completion_tokens) == (1830, 0, 26)
    assert done.reasoning_tokens == 0 and done.text == "Hello."
