"""openai:BASE_URL#MODEL: an OpenAI-compatible server (bakeoff.models.openai_compat); BASE_URL includes /v1.

One server answers every run: its key is routed (which variable goes to which host), it must list the model
before the batch starts, its context is probed, and a cluster caps its runs at the concurrency it declares.
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

ENDPOINT_TIMEOUT_S = 5.0


class OpenAIKind:
    name = "openai"
    form = "openai:BASE_URL#MODEL"
    prefix = "openai:"
    prefixes: tuple[str, ...] = ("openai:",)
    # What HttpSettings reads (tests/test_runner_plan_options.py checks it); n_ctx is the context the plan
    # declares for the server (its probe), max_concurrent how many runs share it.
    options: frozenset[str] | None = frozenset(
        {"n_ctx", "api_key_env", "max_retries", "backoff_s", "rate_limit_wait_s", "reasoning", "server",
         "max_concurrent"})
    is_endpoint = True
    uses_gpu = False
    engine_name = "openai-compatible endpoint"
    open_weights = False  # unknown: the server's

    def bare(self, text: str) -> bool:
        return False

    def parse(self, text: str) -> ModelSpec:
        url, _, model = text.removeprefix(self.prefix).partition("#")
        if not url.startswith(("http://", "https://")) or not model:
            raise ModelSpecError(f"an OpenAI-compatible spec is {self.form}, got {text!r}")
        return ModelSpec(text, self.name, url, model)

    def label_base(self, text: str) -> str:
        rest = text.removeprefix(self.prefix)
        return rest.rpartition("#")[2] or rest

    def absolute(self, spec: ModelSpec, base_dir: Path) -> ModelSpec:
        return spec

    def resolve(self, spec: ModelSpec, places: ModelPlaces | None) -> ModelSpec:
        return spec

    def check_options(self, spec: ModelSpec, options: BackendOptions) -> None:
        return None

    def check_reasoning(self, spec: ModelSpec, reasoning: str, server: str, limits: TemplateLimits | None) -> None:
        from bakeoff.models.servers import reasoning_fields

        reasoning_fields(reasoning, server)  # the server must be named for a mode to be sent

    def check_file(self, spec: ModelSpec, label: str) -> None:
        return None  # no file

    def check_ready(self, spec: ModelSpec, label: str, options: BackendOptions, list_models: ModelLister | None) -> None:
        """The endpoint answers its model list and lists the model (its key checked first: KeyNotSendable)."""
        self.checked_route(spec, label, options.api_key_env)  # a key that may not go there is refused before any request
        require_listed(spec, label, list_models or served_models, options.api_key_env, where=spec.target,
                       list_url=f"{spec.target.rstrip('/')}/models")

    def key_route(self, spec: ModelSpec, api_key_env: str) -> KeyRoute:
        from bakeoff.models.api_key import key_route

        return key_route(api_key_env, spec.target)

    def checked_route(self, spec: ModelSpec, label: str, api_key_env: str) -> KeyRoute:
        """The key's route, or KeyNotSendable naming the model."""
        from bakeoff.models.errors import BackendOptionInvalid, KeyNotSendable

        try:
            return self.key_route(spec, api_key_env)
        except BackendOptionInvalid as exc:
            raise KeyNotSendable(f"model {label}: {exc}") from None

    def identity(self, spec: ModelSpec, cache: Path | None) -> str:
        return f"{self.prefix}{spec.target.rstrip('/')}#{spec.model}"

    def engine_model(self, spec: ModelSpec) -> Path | None:
        return None

    def build(self, spec: ModelSpec, options: BackendOptions) -> ModelBackend:
        from bakeoff.models.openai_compat import HttpSettings, OpenAICompatBackend

        http = HttpSettings(api_key_env=options.api_key_env, max_retries=options.max_retries,
                            backoff_s=options.backoff_s, rate_limit_wait_s=options.rate_limit_wait_s,
                            reasoning=options.reasoning, server=options.server)
        return OpenAICompatBackend(spec.target, spec.model, http, transport=options.transport)


def served_models(base_url: str, api_key_env: str, timeout_s: float = ENDPOINT_TIMEOUT_S) -> list[str]:
    """The model names GET <base_url>/models lists (the OpenAI-compatible model list)."""
    import httpx

    from bakeoff.models.api_key import bearer_headers

    headers = bearer_headers(api_key_env, base_url)
    response = httpx.get(f"{base_url.rstrip('/')}/models", headers=headers, timeout=timeout_s)
    response.raise_for_status()
    body = response.json()
    listed = body.get("data") if isinstance(body, dict) else None
    if not isinstance(listed, list):
        raise ValueError("the answer has no 'data' list")
    return [str(item.get("id")) for item in listed if isinstance(item, dict) and item.get("id") is not None]


OPENAI = OpenAIKind()
