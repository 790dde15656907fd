"""The options a backend is opened with, and the checks of the ones a plan may set.

Pure data and checks: the plan record reads its models' options through this module without loading a backend.
Which options each backend kind reads is the kind's own (bakeoff.models.kinds).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bakeoff.models.api_key import check_key_name
from bakeoff.models.engine_kind import Engine
from bakeoff.models.errors import BackendOptionInvalid
from bakeoff.models.rate_limit import DEFAULT_RATE_LIMIT_WAIT_S

if TYPE_CHECKING:  # only for the annotations: no backend library loads with the options
    import httpx

    from bakeoff.models.memory import GpuMemoryProbe

DEFAULT_N_CTX = 4096  # the context a model is loaded with when nothing asks for another


@dataclass(frozen=True)
class BackendOptions:
    """Settings for opening a backend; each backend reads the ones it knows."""

    n_ctx: int | None = None  # None: DEFAULT_N_CTX, or in a batch the task's context (ModelEntry.opening_options)
    n_gpu_layers: int = -1  # -1: offload every layer
    load_seed: int = 0  # the seed llama.cpp starts with; each chat() sets its own
    n_threads: int | None = None  # gguf generation threads (None: llama-cpp-python's default)
    n_threads_batch: int | None = None  # gguf prompt-processing threads (None: all cores)
    api_key_env: str = "OPENAI_API_KEY"
    max_retries: int = 3
    backoff_s: float = 1.0
    rate_limit_wait_s: float = DEFAULT_RATE_LIMIT_WAIT_S  # openai only: a call's waits on 429s, all together
    gpu_probe: GpuMemoryProbe | None = None  # None reads NVML
    hash_cache_file: Path | None = None  # None: ~/.cache/bakeoff/sha256.json
    transport: httpx.BaseTransport | None = None  # for tests of the HTTP seam
    # Reasoning mode: default, off, low, medium, high. gguf maps it through the model's chat
    # template (enable_thinking, reasoning_effort); openai through the server's field (`server`).
    reasoning: str = "default"
    server: str = ""  # openai only: "llama.cpp", "vllm" or "ollama"
    engine: str = Engine.BINDING  # gguf only: Engine
    # How many generations the backend serves at once (runs in flight share it): the in-process binding
    # serves one; an endpoint or the server engine may take more (the server gets --parallel this).
    max_concurrent: int = 1
    extra: dict = field(default_factory=dict)


# What a plan may set ([model_options], or a model's own entry): (type, smallest value) of each option that
# a TOML value can hold. The other BackendOptions fields are seams for tests and tools, never plan values.
PLAN_OPTIONS: dict[str, tuple[type, int | None]] = {
    "n_ctx": (int, 1), "n_gpu_layers": (int, None), "load_seed": (int, 0), "n_threads": (int, 1),
    "n_threads_batch": (int, 1), "api_key_env": (str, None), "max_retries": (int, 0), "backoff_s": (float, 0),
    "rate_limit_wait_s": (float, 0),
    "reasoning": (str, None), "server": (str, None), "engine": (str, None), "max_concurrent": (int, 1),
}
# Options that schedule a model's work without changing what it answers: kept out of the plan's identity,
# so a batch resumes under another concurrency (records never depend on it).
SCHEDULING_OPTIONS = frozenset({"max_concurrent"})


def check_plan_option(name: str, value: object) -> None:
    """Refuse a plan's backend option that no backend reads, or whose value has the wrong type or range."""
    if name not in PLAN_OPTIONS:
        raise BackendOptionInvalid(f"unknown key(s) {name}; known: {', '.join(sorted(PLAN_OPTIONS))}")
    kind, least = PLAN_OPTIONS[name]
    fits = not isinstance(value, bool) and isinstance(value, (int, float) if kind is float else kind)
    if fits and isinstance(value, float):
        fits = math.isfinite(value)  # TOML's nan and inf pass a range check, then break the batch mid-run
    if fits and least is not None and isinstance(value, (int, float)):
        fits = value >= least
    if not fits:
        what = {int: "a whole number", float: "a number", str: "text"}[kind]
        bound = "" if least is None else (" > 0" if least == 1 else f" >= {least}")
        raise BackendOptionInvalid(f"{name} must be {what}{bound}, got {value!r}")
    if name == "api_key_env":
        check_key_name(str(value))  # its value is sent as a bearer token: only a key's name
    if name == "engine" and value not in tuple(Engine):
        raise BackendOptionInvalid(f"engine must be one of {', '.join(Engine)}, got {value!r}")


def options_from_plan(values: Mapping[str, Any]) -> BackendOptions:
    """A plan's backend options (shared and a model's own, merged) as the typed BackendOptions, checked."""
    unknown = sorted(set(values) - set(PLAN_OPTIONS))
    if unknown:
        raise BackendOptionInvalid(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(PLAN_OPTIONS))}")
    for name, value in values.items():
        check_plan_option(name, value)
    return BackendOptions(**values)
