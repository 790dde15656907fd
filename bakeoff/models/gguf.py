"""The llama.cpp backend: a GGUF model in process, through llama-cpp-python.

One `Llama` object per backend, loaded once and kept for every conversation
and turn. llama-cpp-python keeps the tokens of its last evaluation and, on the
next call, re-reads only what follows the longest common token prefix; so a
second turn of a conversation (the first turn's prompt and answer, then a new
user message) costs little prompt processing. Nothing here resets or reloads
the model between calls, and the chat template is the one stored in the GGUF
(llama-cpp-python picks it up from the file's metadata).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bakeoff.models.base import Completion, GenerationSettings, Message
from bakeoff.models.errors import BackendUnavailable, ModelFileInvalid, ModelFileNotFound
from bakeoff.models.filehash import file_sha256
from bakeoff.models.gguf_header import GgufInfo, read_info
from bakeoff.models.memory import GpuMemory, GpuMemoryProbe, MemoryEstimate, NvmlProbe, check_fits


@dataclass(frozen=True)
class GgufSettings:
    n_ctx: int = 4096
    n_gpu_layers: int = -1  # -1: every layer on the GPU (where the build supports it)
    load_seed: int = 0
    n_threads: int | None = None  # generation threads; None: llama-cpp-python's choice (half the cores)
    # Prompt-processing threads; None: all cores. On a machine shared with other
    # busy processes, 1 can be several times faster (no spinning at thread barriers).
    n_threads_batch: int | None = None
    hash_cache_file: Path | None = None


class _Deadline:
    """A stopping criterion that ends the answer at the first token past the deadline.

    llama.cpp's decode cannot be interrupted from Python; stopping at the next
    token is the earliest clean stop, and the Llama state stays usable.
    """

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.fired = False

    def __call__(self, input_ids, logits) -> bool:
        if time.perf_counter() >= self.deadline:
            self.fired = True
        return self.fired


def _native_library_versions(llama_cpp) -> dict:
    """llama.cpp and ggml versions, from the versioned shared-library names shipped in the wheel."""
    versions = {}
    for library in sorted((Path(llama_cpp.__file__).parent / "lib").glob("lib*.so.*.*.*")):
        name, _, version = library.name.partition(".so.")
        versions[name] = version
    return versions


def _common_prefix(previous: list[int], current: list[int]) -> int:
    count = 0
    for a, b in zip(previous, current):
        if a != b:
            break
        count += 1
    return count


class GgufBackend:
    def __init__(self, path: Path, settings: GgufSettings = GgufSettings(), gpu_probe: GpuMemoryProbe | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelFileNotFound(f"no such GGUF file: {self.path}")
        self.settings = settings
        self.info: GgufInfo = read_info(self.path)
        try:
            import llama_cpp
        except ImportError as exc:
            raise BackendUnavailable(f"llama-cpp-python is not installed: {exc}") from None
        self._llama_cpp = llama_cpp
        self.gpu_offload_supported = bool(llama_cpp.llama_supports_gpu_offload())
        self.gpu: GpuMemory | None = (gpu_probe or NvmlProbe()).read()
        # The check runs before loading, against what this build would put on the GPU.
        # An injected probe (a simulated GPU) stands for a GPU the build can use.
        requested_layers = settings.n_gpu_layers if self.gpu_offload_supported or gpu_probe else 0
        self.estimate: MemoryEstimate = check_fits(self.info, settings.n_ctx, requested_layers, self.gpu)
        self._llm = self._load()
        try:
            self._formatter = self._chat_formatter()
            self._model_info = self._describe()
        except BaseException:
            self.close()
            raise

    def _load(self):
        try:
            return self._llama_cpp.Llama(
                model_path=str(self.path),
                n_ctx=self.settings.n_ctx,
                n_gpu_layers=self.settings.n_gpu_layers,
                seed=self.settings.load_seed,
                n_threads=self.settings.n_threads,
                n_threads_batch=self.settings.n_threads_batch,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise BackendUnavailable(f"llama.cpp could not load {self.path}: {exc}") from None

    def _describe(self) -> dict:
        llama_cpp = self._llama_cpp
        return {
            "path": str(self.path),
            "sha256": file_sha256(self.path, self.settings.hash_cache_file),
            "file_bytes": self.info.file_bytes,
            "architecture": self.info.architecture,
            "model_name": self.info.name,
            "quantization": self.info.quantization,
            "n_ctx": self._llm.n_ctx(),
            "n_layer": self.info.n_layer,
            "n_gpu_layers_requested": self.settings.n_gpu_layers,
            "offloaded_layers": self.estimate.offloaded_layers if self.gpu_offload_supported else 0,
            "gpu": self.gpu.name if self.gpu else None,
            "estimated_gpu_bytes": self.estimate.total_bytes if self.gpu_offload_supported else 0,
            "chat_template": "gguf",
            "llama_cpp_python_version": llama_cpp.__version__,
            "llama_cpp_libraries": _native_library_versions(llama_cpp),
            "llama_cpp_system_info": llama_cpp.llama_print_system_info().decode(errors="replace").strip(),
        }

    @property
    def identity(self) -> str:
        return f"gguf:{self.path}"

    @property
    def llama(self):
        """The loaded llama_cpp.Llama (for benchmarks; stages never touch it)."""
        return self._llm

    def _chat_formatter(self):
        """The chat template stored in the GGUF, rendered the way llama-cpp-python renders it."""
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = self._llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelFileInvalid(f"{self.path} has no chat template in its metadata (a base model?)")
        model = self._llm._model
        eos_id, bos_id = self._llm.token_eos(), self._llm.token_bos()
        return Jinja2ChatFormatter(
            template=template,
            eos_token=model.token_get_text(eos_id) if eos_id != -1 else "",
            bos_token=model.token_get_text(bos_id) if bos_id != -1 else "",
            stop_token_ids=[eos_id],
        )

    def _prefill(self, tokens: list[int]) -> int:
        """Evaluate all but the last prompt token, reusing the longest cached prefix.

        The last token is left for llama-cpp-python's generate() to evaluate on
        its own, cold or warm alike: so the logits the first answer token is
        sampled from come from the same computation whatever the cache held,
        and the same seed gives the same text. Returns the tokens reused.
        """
        llm = self._llm
        reused = _common_prefix(llm._input_ids.tolist(), tokens[:-1])
        if getattr(llm, "_is_recurrent", False) and reused != llm.n_tokens:
            reused = 0  # a recurrent state cannot be rolled back to a shorter prefix
        llm.n_tokens = reused
        if len(tokens) - 1 > reused:
            llm.eval(tokens[reused:-1])
        return reused

    def chat(self, messages: Sequence[Message], *, key: str, settings: GenerationSettings) -> Completion:
        llm = self._llm
        started = time.perf_counter()
        deadline = _Deadline(started + settings.timeout_s)
        try:
            rendered = self._formatter(messages=[{"role": m.role, "content": m.content} for m in messages])
            tokens = llm.tokenize(rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True)
            if len(tokens) >= llm.n_ctx():
                return self._failure(f"prompt of {len(tokens)} tokens does not fit n_ctx={llm.n_ctx()}", 0.0)
            reused = self._prefill(tokens)
            prefilled = time.perf_counter()
            stopping = list(rendered.stopping_criteria or []) + [deadline]
            response = llm.create_completion(
                prompt=tokens,
                max_tokens=settings.max_tokens,
                temperature=settings.temperature,
                seed=settings.seed,
                stop=list(rendered.stop or []) + list(settings.stop),
                stopping_criteria=self._llama_cpp.StoppingCriteriaList(stopping),
            )
        except (ValueError, RuntimeError) as exc:
            return self._failure(f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
        finished = time.perf_counter()
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        if deadline.fired:
            return self._failure(
                f"timed out after {settings.timeout_s:g} s (answer ended at the deadline)",
                finished - started,
                kind="timeout",
                partial_text=choice.get("text") or "",
            )
        return Completion(
            text=choice.get("text") or "",
            finish_reason=choice.get("finish_reason") or "stop",
            prompt_tokens=len(tokens),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            prompt_seconds=prefilled - started,
            generation_seconds=finished - prefilled,
            backend=self.identity,
            cached_prompt_tokens=reused,
            model_info=dict(self._model_info),
        )

    def _failure(self, error: str, elapsed: float, kind: str = "backend_error", partial_text: str = "") -> Completion:
        info = dict(self._model_info)
        if partial_text:
            info["partial_text"] = partial_text
        return Completion.failure(self.identity, error, kind, generation_seconds=elapsed, model_info=info)

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
            self._llm = None
