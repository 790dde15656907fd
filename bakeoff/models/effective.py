"""What an OpenAI-compatible server says it really runs: its engine, context, quantization, build and template.

A plan names a model; the server decides what answers. llama.cpp's server may run with a context smaller than the
plan's, Ollama picks its own quantization and `num_ctx`, vLLM caps the length. The report and the leaderboard need
what ran, so each backend asks its server once, before its first turn, and every completion's model_info carries
the answer (docs/models.md, "What ran").

Each engine is asked in its own words: llama.cpp's `GET /props`, Ollama's `GET /api/version` then `POST /api/show`, vLLM's `max_model_len`
in `GET /v1/models`. The answers are other programs' bytes: read by durable's capped reader into typed shapes that ignore unknown keys
and refuse wrong types, and a server that answers none of them is recorded as `unknown`, never an error (a hosted
API has none of these endpoints).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec

import durable

PROBE_TIMEOUT_S = 5.0
UNKNOWN = "unknown"


class _GenerationSettings(msgspec.Struct):
    n_ctx: int | None = None


class _LlamaProps(msgspec.Struct):
    default_generation_settings: _GenerationSettings | None = None
    build_info: str | None = None
    chat_template: str | None = None
    model_path: str | None = None


class _OllamaDetails(msgspec.Struct):
    quantization_level: str | None = None
    parameter_size: str | None = None
    format: str | None = None


class _OllamaShow(msgspec.Struct):
    details: _OllamaDetails | None = None
    parameters: str | None = None
    template: str | None = None


class _OllamaVersion(msgspec.Struct):
    version: str


class _ServedModel(msgspec.Struct):
    id: str
    max_model_len: int | None = None
    owned_by: str | None = None


class _ModelList(msgspec.Struct):
    data: list[_ServedModel]


@dataclass(frozen=True)
class EffectiveConfig:
    """What the server reported (None where it did not say)."""

    engine: str
    context: int | None = None
    quantization: str | None = None
    build: str | None = None
    chat_template_sha256: str | None = None

    def info(self) -> dict[str, Any]:
        """The model_info keys (ModelFacts reads `engine` and `quantization`)."""
        return {"engine": self.engine, "served_context": self.context, "quantization": self.quantization,
                "server_build": self.build, "served_chat_template_sha256": self.chat_template_sha256}


def _digest(text: str | None) -> str | None:
    return hashlib.sha256(text.encode()).hexdigest() if text else None


def _decoded(response: httpx.Response, shape: type[Any]) -> Any:
    """The body as `shape`, or None when it is not one (wrong status, not JSON, wrong types)."""
    if response.status_code != 200:
        return None
    try:
        return msgspec.convert(durable.loads(response.content, what="a server's answer"), type=shape)
    except (durable.UntrustedJSON, msgspec.ValidationError):
        return None


NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def _llama_cpp(client: httpx.Client, root: str) -> EffectiveConfig | None:
    props = _decoded(client.get(f"{root}/props", timeout=PROBE_TIMEOUT_S), _LlamaProps)
    if props is None or props.default_generation_settings is None or props.default_generation_settings.n_ctx is None:
        return None
    return EffectiveConfig("llama.cpp", props.default_generation_settings.n_ctx, None, props.build_info,
                           _digest(props.chat_template))


def ollama_config(client: httpx.Client, root: str, model: str) -> EffectiveConfig | None:
    # Known by its version endpoint first: a POST goes only to a server that said it is Ollama.
    version = _decoded(client.get(f"{root}/api/version", timeout=PROBE_TIMEOUT_S), _OllamaVersion)
    if version is None:
        return None
    show = _decoded(client.post(f"{root}/api/show", json={"model": model}, timeout=PROBE_TIMEOUT_S), _OllamaShow)
    if show is None or show.details is None:
        return None
    found = NUM_CTX.search(show.parameters or "")
    return EffectiveConfig("ollama", int(found.group(1)) if found else None, show.details.quantization_level,
                           version.version, _digest(show.template))


def _vllm(client: httpx.Client, base_url: str, model: str) -> EffectiveConfig | None:
    listed = _decoded(client.get(f"{base_url}/models", timeout=PROBE_TIMEOUT_S), _ModelList)
    served = next((m for m in listed.data if m.id == model), None) if listed is not None else None
    if served is None or served.max_model_len is None:
        return None
    return EffectiveConfig("vllm", served.max_model_len)


def effective_config(client: httpx.Client, base_url: str, model: str) -> EffectiveConfig:
    """Ask the server at `base_url` (ending /v1) what it runs; `unknown` when no engine's question is answered."""
    root = base_url.rstrip("/").removesuffix("/v1")
    try:
        return (_llama_cpp(client, root) or ollama_config(client, root, model) or _vllm(client, base_url.rstrip("/"), model)
                or EffectiveConfig(UNKNOWN))
    except httpx.HTTPError:
        return EffectiveConfig(UNKNOWN)
