"""ollama:NAME[:TAG] (Ollama on this machine) or ollama:http://HOST:PORT#NAME[:TAG]: Ollama's native chat API
(bakeoff.models.ollama_native), its context window set to the take-home's on every request.

One server answers every run, as an OpenAI-compatible endpoint does; it sends no key (Ollama has none), lists its
models at `GET /api/tags`, and must list the model before the batch starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bakeoff.models.errors import ModelSpecError
from bakeoff.models.kind import ModelLister, ModelSpec, require_listed

if TYPE_CHECKING:
    from bakeoff.models.api_key import KeyRoute
    from bakeoff.models.base import ModelBackend
    from bakeoff.models.discovery import ModelPlaces
    from bakeoff.models.options import BackendOptions
    from bakeoff.models.template_process import TemplateLimits

LOCAL_HOST = "http://127.0.0.1:11434"
ASK_CONTEXT = 8192  # `bakeoff ask` without --n-ctx; a batch always sends the take-home's context


def _with_tag(name: str) -> str:
    """Ollama's own rule: a name without a tag is its `latest`."""
    return name if ":" in name else f"{name}:latest"


class OllamaKind:
    name = "ollama"
    form = "ollama:NAME[:TAG] or ollama:http://HOST:PORT#NAME[:TAG]"
    prefix = "ollama:"
    prefixes: tuple[str, ...] = ("ollama:",)
    options: frozenset[str] | None = frozenset({"n_ctx", "max_retries", "backoff_s", "rate_limit_wait_s", "reasoning",
                                                "max_concurrent"})
    is_endpoint = True
    uses_gpu = False
    engine_name = "ollama"
    open_weights = True

    def bare(self, text: str) -> bool:
        return False

    def parse(self, text: str) -> ModelSpec:
        rest = text.removeprefix(self.prefix)
        host, hash_sign, model = rest.rpartition("#")
        if not hash_sign:
            host, model = LOCAL_HOST, rest
        well_formed = host.startswith(("http://", "https://")) and not model.startswith(("http://", "https://"))
        if not well_formed or not model or any(c.isspace() for c in model):
            raise ModelSpecError(f"an Ollama spec is {self.form}, got {text!r}")
        return ModelSpec(text, self.name, host.rstrip("/"), _with_tag(model))

    def label_base(self, text: str) -> str:
        rest = text.removeprefix(self.prefix)
        return rest.rpartition("#")[2].replace(":", "-").replace("/", "-") or rest

    def absolute(self, spec: ModelSpec, base_dir: Path) -> ModelSpec:
        return spec

    def resolve(self, spec: ModelSpec, places: ModelPlaces | None) -> ModelSpec:
        return spec

    def check_options(self, spec: ModelSpec, options: BackendOptions) -> None:
        return None

    def check_reasoning(self, spec: ModelSpec, reasoning: str, server: str, limits: TemplateLimits | None) -> None:
        from bakeoff.models.ollama_native import think_field

        think_field(reasoning)

    def check_file(self, spec: ModelSpec, label: str) -> None:
        return None

    def check_ready(self, spec: ModelSpec, label: str, options: BackendOptions, list_models: ModelLister | None) -> None:
        """Ollama answers its model list and lists the model."""
        from bakeoff.models.ollama_native import listed_models

        require_listed(spec, label, list_models or listed_models, "", where=f"Ollama at {spec.target}",
                       list_url=f"{spec.target}/api/tags", fetch_hint=f" (`ollama pull {spec.model}` fetches it)")

    def key_route(self, spec: ModelSpec, api_key_env: str) -> KeyRoute | None:
        return None  # Ollama takes no key

    def identity(self, spec: ModelSpec, cache: Path | None) -> str:
        return f"{self.prefix}{spec.target}#{spec.model}"

    def engine_model(self, spec: ModelSpec) -> Path | None:
        return None

    def build(self, spec: ModelSpec, options: BackendOptions) -> ModelBackend:
        from bakeoff.models.ollama_native import OllamaBackend
        from bakeoff.models.openai_compat import HttpSettings

        http = HttpSettings(api_key_env="", max_retries=options.max_retries, backoff_s=options.backoff_s,
                            rate_limit_wait_s=options.rate_limit_wait_s, reasoning=options.reasoning, server="ollama")
        return OllamaBackend(spec.target, spec.model, options.n_ctx or ASK_CONTEXT, http, transport=options.transport)


OLLAMA = OllamaKind()
