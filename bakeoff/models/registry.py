"""Model specs -> backends (through the spec's kind, bakeoff.models.kinds), and the list of models usable on
this machine. The spec forms are bakeoff.models.spec's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bakeoff.models.base import ModelBackend
from bakeoff.models.discovery import MODELS_DIR_ENV
from bakeoff.models.errors import ModelFileNotFound
from bakeoff.models.kinds import KINDS, kind_of
from bakeoff.models.kinds.gguf import GGUF
from bakeoff.models.options import (
    DEFAULT_N_CTX,
    PLAN_OPTIONS,
    SCHEDULING_OPTIONS,
    BackendOptions,
    check_plan_option,
    options_from_plan,
)
from bakeoff.models.spec import ModelSpec, default_model_path, parse_spec

if TYPE_CHECKING:  # only for the annotations: registry stays light, backends load when opened
    from bakeoff.models.discovery import Search
    from bakeoff.models.memory import GpuMemory
    from bakeoff.models.template_process import TemplateLimits

__all__ = ["DEFAULT_N_CTX", "MODELS_DIR_ENV", "OPTIONS_READ_BY", "PLAN_OPTIONS", "SCHEDULING_OPTIONS", "BackendOptions",
           "ModelEntry", "check_plan_option", "check_reasoning_mode", "default_model_path",
           "list_found", "list_models", "models_dir_from_env", "open_backend", "options_from_plan", "parse_spec"]


# Which plan options each kind's backend reads (a kind that reads any, scripted, is absent), from the kinds.
OPTIONS_READ_BY = {kind.name: kind.options for kind in KINDS if kind.options is not None}


def open_backend(spec: str | ModelSpec, options: BackendOptions | None = None) -> ModelBackend:
    """The backend a spec names, ready to chat. Heavy libraries load only for the backend chosen."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    return kind_of(parsed).build(parsed, options or BackendOptions())


def check_reasoning_mode(spec: str | ModelSpec, reasoning: str, server: str = "",
                         limits: TemplateLimits | None = None) -> None:
    """Refuse, without loading anything, a reasoning mode the model or server has no switch for (the spec's kind
    says how: a gguf model's chat template, an endpoint's named server; scripted answers replay any mode)."""
    if reasoning == "default":
        return
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    kind_of(parsed).check_reasoning(parsed, reasoning, server, limits)


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
    found_in: str = ""  # the place it was found (bakeoff.models.discovery): "Hugging Face cache", "Ollama store"
    known_as: str = ""  # what that place calls it: ORG/REPO, PUBLISHER/REPO, NAME:TAG ("" for a plain folder)

    def gpu_fit(self, gpu: GpuMemory | None) -> str:
        """'fits', 'too big' or 'no GPU', against a memory.GpuMemory reading (None: no GPU)."""
        if gpu is None:
            return "no GPU"
        if self.estimated_gpu_bytes is None:
            return "?"
        return "fits" if self.estimated_gpu_bytes <= gpu.free_bytes else "too big"


def _entry(spec: str, path: Path, n_ctx: int, found_in: str = "", known_as: str = "") -> ModelEntry:
    from bakeoff.models.errors import ModelFileInvalid
    from bakeoff.models.gguf_header import read_info
    from bakeoff.models.memory import estimate_gpu_memory

    try:
        info = read_info(path)
    except ModelFileInvalid as exc:
        return ModelEntry(spec, path, path.stat().st_size, "?", "?", path.stem, note=f"unreadable: {exc}",
                          found_in=found_in, known_as=known_as)
    estimate = estimate_gpu_memory(info, n_ctx, n_gpu_layers=-1)
    return ModelEntry(spec, path, info.file_bytes, info.quantization, info.architecture, info.name,
                      estimated_gpu_bytes=estimate.total_bytes, n_ctx=n_ctx, found_in=found_in, known_as=known_as)


def models_dir_from_env() -> Path | None:
    value = os.environ.get(MODELS_DIR_ENV)
    return Path(value).expanduser() if value else None


def list_models(models_dir: Path | None, n_ctx: int = 4096) -> list[ModelEntry]:
    """The default model (when installed) and every .gguf file under `models_dir`, with GPU estimates for n_ctx."""
    from bakeoff.models.discovery import Place, search_folder

    return list_found([search_folder(Place("models folder", models_dir, required=True))], n_ctx)


def list_found(searches: list[Search], n_ctx: int = 4096) -> list[ModelEntry]:
    """The default model (when installed) and every GGUF the searches found (bakeoff.models.discovery), each with
    a spec naming its absolute path and GPU estimates for n_ctx. A models folder that is named but missing is
    ModelFileNotFound: the user asked for it; the other places are the tools' defaults, and only said empty."""
    entries = []
    try:
        entries.append(_entry("default", default_model_path(), n_ctx))
    except ModelFileNotFound:
        pass
    for search in searches:
        folder = search.place.folder
        if search.place.required and folder is not None and not folder.is_dir():
            raise ModelFileNotFound(f"models folder does not exist: {folder}")
        for found in search.found:
            path = found.path.absolute()
            entries.append(_entry(f"{GGUF.prefix}{path}", path, n_ctx, found.source, found.name))
    return entries
