"""The plan checked whole before the first run: a night's batch must not fail ten minutes in, or all night.

Every model that still has runs to do is tried the way its runs will need it: a model file exists and its GGUF
header reads (the scripted answers file exists), the batching engine's llama-server is there and answers for a
model served by it (engine = "server"), an endpoint's key may go to its host (key_routes: which variable goes
where) and the endpoint answers its model list and lists the model, and reads a prompt as long as the plan's
context whole (bakeoff.runner.context_preflight); the sandbox's
engine and image (or bubblewrap) are there; no other process holds the batch folder's lock. A failure is a named
error (a PreflightFailed) and nothing has started. What the checks learn, each model's identity (its file's
sha256, or endpoint and served model), goes into batch.json for the leaderboard.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bakeoff.errors import BakeoffError
from bakeoff.models.spec import ModelSpec
from bakeoff.records import ModelEntry, Plan

if TYPE_CHECKING:
    from bakeoff.runner.context_preflight import ContextCheck

ENDPOINT_TIMEOUT_S = 5.0


class PreflightFailed(BakeoffError):
    """Something a batch needs is not there; nothing was started."""


class ModelFileMissing(PreflightFailed):
    """A plan's model file (a GGUF, a scripted answers file) does not exist."""


class ModelHeaderUnreadable(PreflightFailed):
    """A plan's GGUF file is not one whose header bakeoff can read."""


class BatchingServerMissing(PreflightFailed):
    """A plan's GGUF model asks for the batching engine (engine = "server") and no llama-server runs here."""


class EndpointNotAnswering(PreflightFailed):
    """An OpenAI-compatible endpoint of the plan does not answer its model list, or does not list the model."""


class KeyNotSendable(PreflightFailed):
    """An endpoint model's api_key_env names no key, or its key would go over plain http to another host."""


class SandboxNotReady(PreflightFailed):
    """The plan's sandbox cannot be opened here (no Docker engine, no image, no bubblewrap)."""


@dataclass(frozen=True)
class PreflightChecks:
    """What to try. `sandbox` and `lock` are off where the caller has none (a test of the model checks alone)."""

    models: bool = True
    sandbox: bool = True
    lock: bool = True
    image: str | None = None  # the Docker image the runs use (sandbox.options' default when None)
    hash_cache: Path | None = None  # bakeoff.models.filehash's cache file (None: the user's)
    context: ContextCheck | None = None  # the context preflight of an endpoint (None: none; the batch sets it from the task)


def sha256_of(path: Path, cache: Path | None = None) -> str:
    from bakeoff.models.filehash import file_sha256

    return file_sha256(path, cache)


def model_identity(spec: ModelSpec, cache: Path | None = None) -> str:
    """What a model is, whatever its label: 'sha256:<hex>' of its file, or 'openai:<base url>#<model>'."""
    if spec.kind == "openai":
        return f"openai:{spec.target.rstrip('/')}#{spec.model}"
    path = spec.file()
    if path is None:
        return spec.text
    return f"sha256:{sha256_of(path, cache)}"


def check_model(model: ModelEntry, cache: Path | None = None, list_models: Callable[..., Any] | None = None) -> str:
    """Try one model as its runs will need it; its identity. PreflightFailed names the model and what is wrong."""
    spec = model.spec
    if spec.kind == "openai":
        check_endpoint(model, list_models)
        return model_identity(spec)
    check_model_file(model)
    if spec.kind == "gguf":
        check_engine(model)
    return model_identity(spec, cache)


def check_model_file(model: ModelEntry) -> None:
    """The model's file is there and, a GGUF, its header reads: checked in a moment, before anything slow (the
    engine test, the endpoints). An endpoint model has no file."""
    spec = model.spec
    path = spec.file()
    if spec.kind == "openai" or path is None:
        return
    if not path.is_file():
        what = "GGUF file" if spec.kind == "gguf" else "scripted answers file"
        raise ModelFileMissing(f"model {model.label}: no {what} at {path} (a relative path in a plan is read "
                               "against the plan file's folder)")
    if spec.kind == "gguf":
        from bakeoff.models.errors import ModelFileInvalid
        from bakeoff.models.gguf_header import read_info

        try:
            read_info(path)
        except ModelFileInvalid as exc:
            raise ModelHeaderUnreadable(f"model {model.label}: {exc}") from None


def check_engine(model: ModelEntry) -> None:
    """The batching engine's llama-server is there and answers --version (it starts only when the runs open it)."""
    from bakeoff.models.engine_kind import Engine
    from bakeoff.models.errors import BackendUnavailable
    from bakeoff.models.llama_server import find_server_build

    if model.backend is None or model.backend.engine != Engine.SERVER:
        return
    try:
        find_server_build()
    except BackendUnavailable as exc:
        raise BatchingServerMissing(f"model {model.label}: {exc}") from None


def api_key_env_of(model: ModelEntry) -> str:
    """The variable the model's key is read from: its options merged ("" sends none), else the default."""
    if model.backend is not None:
        return model.backend.api_key_env
    return str(dict(model.options).get("api_key_env", "OPENAI_API_KEY"))


def key_routes(models: Iterable[ModelEntry]) -> list[str]:
    """For each endpoint model, which variable's value goes to which host (checked: KeyNotSendable names a
    key that would leave over plain http, or a variable that is not a key's)."""
    from bakeoff.models.api_key import key_route
    from bakeoff.models.errors import BackendOptionInvalid

    lines = []
    for model in models:
        if model.spec.kind != "openai":
            continue
        try:
            route = key_route(api_key_env_of(model), model.spec.target)
        except BackendOptionInvalid as exc:
            raise KeyNotSendable(f"model {model.label}: {exc}") from None
        lines.append(f"api key: model {model.label}: {route.describe()}")
    return lines


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


def check_endpoint(model: ModelEntry, list_models: Callable[..., Any] | None = None) -> None:
    import httpx

    spec = model.spec
    key_routes([model])  # a key that may not go there is refused before any request
    lister = list_models or served_models
    try:
        names = lister(spec.target, api_key_env_of(model))
    except (httpx.HTTPError, ValueError) as exc:
        raise EndpointNotAnswering(f"model {model.label}: {spec.target} does not answer its model list "
                                   f"(GET {spec.target.rstrip('/')}/models: {type(exc).__name__}: {exc})") from None
    if spec.model not in names:
        from bakeoff.errors import did_you_mean

        shown = ", ".join(names[:20]) or "none"
        raise EndpointNotAnswering(f"model {model.label}: {spec.target} does not serve {spec.model!r}; it lists "
                                   f"{shown}" + did_you_mean(spec.model, names))


def check_sandbox(kind: str, image: str | None) -> None:
    """The engine answers and the image is there (Docker), or bubblewrap opens its namespaces; 'none' needs nothing."""
    if kind == "docker":
        _check_docker(image)
    elif kind == "bwrap":
        from sandbox.availability import check_bwrap

        usable = check_bwrap()
        if not usable.usable:
            raise SandboxNotReady(f"sandbox bwrap: {usable.detail}")


def _check_docker(image: str | None) -> None:
    from sandbox.availability import check_docker
    from sandbox.options import DockerOptions

    usable = check_docker(image or DockerOptions().image, run_command=False)
    if not usable.usable:
        raise SandboxNotReady(f"sandbox docker: {usable.detail}")


def check_lock_free(folder: Path) -> None:
    """BatchLocked when another process is writing `folder` (nothing is created where there is no folder)."""
    from bakeoff.batchfolder.layout import BatchLayout
    from bakeoff.batchfolder.lock import batch_lock

    if BatchLayout(folder).lock.is_file():
        with batch_lock(folder):
            pass  # free: taken and given back at once (the batch takes it again to write)


def preflight(plan: Plan, out_dir: Path, models: Iterable[ModelEntry], checks: PreflightChecks = PreflightChecks(),
              list_models: Callable[..., Any] | None = None) -> dict[str, str]:
    """Every check, cheapest first; the identity of every model of the plan by label (those with no runs left
    too, when their file is still there: a leaderboard needs them)."""
    if checks.lock:
        check_lock_free(out_dir)
    identities: dict[str, str] = {}
    if checks.models:
        for model in models:
            identities[model.label] = check_model(model, checks.hash_cache, list_models)
            if checks.context is not None and model.spec.kind == "openai":
                checks.context.check(model)
    if checks.sandbox:
        check_sandbox(plan.sandbox, checks.image)
    for model in plan.models:  # the rest (finished ones) as far as their files allow
        if model.label not in identities:
            try:
                identities[model.label] = model_identity(model.spec, checks.hash_cache)
            except OSError:
                continue
    return identities


def plan_identities(stored: Mapping[str, str], found: Mapping[str, str]) -> dict[str, str]:
    """What batch.json keeps: the identities it had (a model's first identity stays) and those newly found."""
    return {**dict(found), **dict(stored)}
