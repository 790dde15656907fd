"""The llama.cpp backend: a GGUF model served by llama-cpp-python in a child process.

The `Llama` object lives in the engine's own process (bakeoff.models.engine_child),
loaded once and kept for every conversation and turn, so prefix reuse works as
before. What the child does not survive, the batch does: when the child dies
while answering (a segfault, an abort, the OOM killer) the turn is a failure
with error_kind "backend_crash" and the exit status in its error, and the next
turn starts a fresh child (the model is reloaded). After MAX_CONSECUTIVE_CRASHES
crashed turns in a row the backend stops restarting and fails every later turn
at once with the same reason. A generation still running past its deadline
plus a grace period is ended by stopping the child.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bakeoff.errors import BakeoffError
from bakeoff.models.base import Completion, GenerationSettings, Message
from bakeoff.models.engine import EngineDied, EngineOverran, EngineProcess
from bakeoff.models.engine_build import build_flags_for, read_build_stamp
from bakeoff.models.engine_kind import Engine
from bakeoff.models.engine_messages import (
    ChatReply,
    ChatRequest,
    Done,
    EngineFacts,
    LoadConfig,
    Rendered,
    RenderFailed,
    RenderRequest,
    ResetRequest,
)
from bakeoff.models.errors import BackendUnavailable, ModelFileNotFound
from bakeoff.models.filehash import file_sha256
from bakeoff.models.gguf_header import GgufInfo, read_info
from bakeoff.models.memory import GpuMemory, GpuMemoryProbe, MemoryEstimate, NvmlProbe
from bakeoff.models.scheduling import default_threads
from bakeoff.models.template_process import TemplateLimits

MAX_CONSECUTIVE_CRASHES = 3
BACKEND_CRASH = "backend_crash"


@dataclass(frozen=True)
class GgufSettings:
    n_ctx: int = 4096
    n_gpu_layers: int = -1  # -1: every layer on the GPU (where the build supports it)
    load_seed: int = 0
    # Generation threads; None: every usable core other work leaves free (llama-cpp-python's own default is
    # half the cores; bakeoff.models.scheduling states the rule, also when runs share the machine).
    n_threads: int | None = None
    # Prompt-processing threads; None: as many as for generation. On a machine shared with other busy
    # processes, 1 can be several times faster (no spinning at thread barriers).
    n_threads_batch: int | None = None
    hash_cache_file: Path | None = None
    # How long past a turn's deadline the engine may take to stop at its next token
    # before its process is stopped (a long prompt evaluation cannot be interrupted).
    deadline_grace_s: float = 10.0
    load_timeout_s: float = 900.0  # a load that takes longer than this is a failure (the child is stopped)
    build_stamp: Path | None = None  # None: <venv>/bakeoff-llama-build.json
    reasoning: str = "default"  # default, off, low, medium, high: set through the model's chat template
    # The chat template's own process: how long a check or render may take, and the memory it may add.
    template_limits: TemplateLimits = field(default_factory=TemplateLimits)


class GgufBackend:
    def __init__(self, path: Path, settings: GgufSettings = GgufSettings(), gpu_probe: GpuMemoryProbe | None = None,
                 engine_entry: Callable | None = None) -> None:
        """`engine_entry` is the child's entry point (default engine_child.serve); the preflight passes its own."""
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelFileNotFound(f"no such GGUF file: {self.path}")
        self.settings = settings
        self.info: GgufInfo = read_info(self.path)
        self.gpu: GpuMemory | None = (gpu_probe or NvmlProbe()).read()
        threads = settings.n_threads or default_threads()
        self._config = LoadConfig(
            info=self.info, n_ctx=settings.n_ctx, n_gpu_layers=settings.n_gpu_layers, load_seed=settings.load_seed,
            n_threads=threads, n_threads_batch=settings.n_threads_batch or threads, gpu=self.gpu,
            gpu_simulated=gpu_probe is not None, reasoning=settings.reasoning, template_limits=settings.template_limits,
        )
        self._entry = engine_entry
        self._crashes = 0  # consecutive turns the engine died on
        self._last_crash = ""
        self._starts = 0
        engine = self._start()
        self._engine: EngineProcess | None = engine
        facts = engine.loaded_facts
        self.gpu_offload_supported = facts.gpu_offload_supported
        self.estimate: MemoryEstimate = facts.estimate
        try:
            self._model_info = self._describe(facts)
        except BaseException:
            self.close()
            raise

    def _start(self) -> EngineProcess:
        """A new child with the model loaded; its death while loading is BackendUnavailable."""
        self._starts += 1
        try:
            return EngineProcess.start(self._config, self._entry, self.settings.load_timeout_s)
        except EngineDied as died:
            raise BackendUnavailable(f"the llama.cpp engine process {died} while loading {self.path}") from None
        except EngineOverran:
            raise BackendUnavailable(
                f"the llama.cpp engine did not load {self.path} within {self.settings.load_timeout_s:g} s") from None

    def _describe(self, facts: EngineFacts) -> dict:
        stamp = read_build_stamp(self.settings.build_stamp)
        return {
            "engine": Engine.BINDING.value,
            "path": str(self.path),
            "sha256": file_sha256(self.path, self.settings.hash_cache_file),
            "file_bytes": self.info.file_bytes,
            "architecture": self.info.architecture,
            "model_name": self.info.name,
            "quantization": self.info.quantization,
            "parameters": self.info.parameters,  # from the header's tensor table
            "n_ctx": facts.n_ctx,
            "n_layer": self.info.n_layer,
            "n_gpu_layers_requested": self.settings.n_gpu_layers,
            "offloaded_layers": self.estimate.offloaded_layers if self.gpu_offload_supported else 0,
            "gpu": self.gpu.name if self.gpu else None,
            "estimated_gpu_bytes": self.estimate.total_bytes if self.gpu_offload_supported else 0,
            "chat_template": "gguf",
            "chat_template_sha256": facts.chat_template_sha256,
            "reasoning_format": facts.reasoning_format,
            "reasoning_mode": self.settings.reasoning,
            "reasoning_template_kwargs": dict(facts.reasoning_kwargs),
            "tool_syntax": facts.tool_syntax,
            "llama_cpp_python_version": facts.llama_cpp_python_version,
            "llama_cpp_libraries": dict(facts.libraries),
            "llama_cpp_system_info": facts.system_info,
            "llama_cpp_build_flags": build_flags_for(stamp, facts.llama_cpp_python_version),
            "llama_cpp_build_key": stamp.key,
            "n_threads": facts.n_threads,
            "n_threads_batch": facts.n_threads_batch,
        }

    @property
    def identity(self) -> str:
        return f"gguf:{self.path}"

    @property
    def tool_syntax(self) -> str:
        """How this model's calls are written (its chat template's way, else the text protocol)."""
        return str(self._model_info["tool_syntax"])

    @property
    def engine_pid(self) -> int | None:
        """The engine process's id (benchmarks read its CPU time); None while no engine runs."""
        return self._engine.pid if self._engine is not None else None

    def reset_cache(self) -> None:
        """Forget the KV cache, so the next turn starts cold (for benchmarks; stages never call it)."""
        if self._engine is not None:
            reply = self._engine.request(ResetRequest(), wait_s=None)
            assert isinstance(reply, Done), reply

    def render_prompt(self, messages: Sequence[Message], tools: Sequence = ()) -> str:
        """The prompt the model's chat template makes of `messages` (and tools offered), with this backend's
        reasoning mode."""
        reply = self._running_engine().request(RenderRequest(tuple(messages), tuple(tools)), wait_s=None)
        if isinstance(reply, RenderFailed):
            raise reply.error
        assert isinstance(reply, Rendered), reply
        return reply.prompt

    def _info(self) -> dict:
        return {**self._model_info, "engine_starts": self._starts, "engine_pid": self.engine_pid}

    def chat(self, messages: Sequence[Message], *, key: str, settings: GenerationSettings) -> Completion:
        started = time.perf_counter()
        if self._crashes >= MAX_CONSECUTIVE_CRASHES:
            return self._failure(
                f"the llama.cpp engine crashed on {self._crashes} consecutive turns (last: {self._last_crash}); "
                "it is not restarted again and every later turn of this model fails at once", 0.0, BACKEND_CRASH)
        try:
            engine = self._running_engine()
            reply = engine.request(ChatRequest(tuple(messages), settings), settings.timeout_s + self.settings.deadline_grace_s)
        except EngineDied as died:
            return self._crashed(f"the llama.cpp engine process {died} while answering", started)
        except BakeoffError as exc:  # the restart could not load the model again
            return self._crashed(f"the llama.cpp engine could not be restarted: {exc}", started)
        except EngineOverran:
            engine.kill()
            self._engine = None
            return self._failure(
                f"timed out after {settings.timeout_s:g} s: the engine was still busy "
                f"{self.settings.deadline_grace_s:g} s past the deadline and was stopped (restarted for the next turn)",
                time.perf_counter() - started, "timeout")
        self._crashes = 0
        return self._completion(reply)

    def _running_engine(self) -> EngineProcess:
        """The engine, restarted when the last turn crashed it or it died between turns."""
        if self._engine is not None and not self._engine.alive:
            self._engine.kill()  # reaps it; no turn was being answered, so none is lost
            self._engine = None
        if self._engine is None:
            self._engine = self._start()
        return self._engine

    def _crashed(self, detail: str, started: float) -> Completion:
        if self._engine is not None:
            self._engine.kill()
        self._engine = None
        self._crashes += 1
        self._last_crash = detail
        suffix = "; restarted for the next turn" if self._crashes < MAX_CONSECUTIVE_CRASHES else (
            f"; {MAX_CONSECUTIVE_CRASHES} crashed turns in a row: not restarted again")
        return self._failure(detail + suffix, time.perf_counter() - started, BACKEND_CRASH)

    def _completion(self, reply: ChatReply) -> Completion:
        if reply.error is not None:
            return self._failure(reply.error, reply.generation_seconds, reply.error_kind or "backend_error",
                                 partial_text=reply.partial_text)
        return Completion(
            text=reply.text,
            reasoning=reply.reasoning,
            reasoning_tokens=reply.reasoning_tokens,
            reasoning_unfinished=reply.reasoning_unfinished,
            token_budget=reply.token_budget,
            finish_reason=reply.finish_reason,
            prompt_tokens=reply.prompt_tokens,
            prompt_floor=reply.prompt_tokens,  # counted here with the model's own tokenizer: exact
            completion_tokens=reply.completion_tokens,
            prompt_seconds=reply.prompt_seconds,
            generation_seconds=reply.generation_seconds,
            backend=self.identity,
            cached_prompt_tokens=reply.cached_prompt_tokens,
            model_info=self._info(),
            tool_calls=tuple(reply.tool_calls),
        )

    def _failure(self, error: str, elapsed: float, kind: str, partial_text: str = "") -> Completion:
        info = self._info()
        if partial_text:
            info["partial_text"] = partial_text
        return Completion.failure(self.identity, error, kind, generation_seconds=elapsed, model_info=info)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.stop()
            self._engine = None
