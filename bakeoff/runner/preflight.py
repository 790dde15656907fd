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

from bakeoff.models.errors import (
    BatchingServerMissing,
    EndpointNotAnswering,
    KeyNotSendable,
    ModelFileMissing,
    ModelHeaderUnreadable,
    PreflightFailed,
)
from bakeoff.models.kind import ModelSpec
from bakeoff.models.kinds import kind_of
from bakeoff.models.kinds.openai import ENDPOINT_TIMEOUT_S, served_models
from bakeoff.models.options import BackendOptions
from bakeoff.records import ModelEntry, Plan
from bakeoff.runner.model_entries import spec_of

if TYPE_CHECKING:
    from bakeoff.runner.context_preflight import ContextCheck

# The model checks' errors are the kinds' (bakeoff.models.errors); named here, where the batch's checks are.
__all__ = ["ENDPOINT_TIMEOUT_S", "BatchingServerMissing", "EndpointNotAnswering", "KeyNotSendable", "ModelFileMissing",
           "ModelHeaderUnreadable", "PreflightChecks", "PreflightFailed", "SandboxNotReady", "check_endpoint",
           "check_model", "check_model_file", "key_routes", "model_identity", "preflight", "served_models"]


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


def model_identity(spec: ModelSpec, cache: Path | None = None) -> str:
    """What a model is, whatever its label: 'sha256:<hex>' of its file, or 'openai:<base url>#<model>'."""
    return kind_of(spec).identity(spec, cache)


def model_options(model: ModelEntry) -> BackendOptions:
    """The options the model is checked with: those made at plan load, else its own (a hand-made entry)."""
    return model.backend or BackendOptions(**dict(model.options))


def check_model(model: ModelEntry, cache: Path | None = None, list_models: Callable[..., Any] | None = None) -> str:
    """Try one model as its runs will need it; its identity. PreflightFailed names the model and what is wrong."""
    spec = spec_of(model)
    kind = kind_of(spec)
    kind.check_file(spec, model.label)
    kind.check_ready(spec, model.label, model_options(model), list_models)
    return kind.identity(spec, cache)


def check_model_file(model: ModelEntry) -> None:
    """The model's file is there and, a GGUF, its header reads: checked in a moment, before anything slow (the
    engine test, the endpoints). An endpoint model has no file."""
    spec = spec_of(model)
    kind_of(spec).check_file(spec, model.label)


def key_routes(models: Iterable[ModelEntry]) -> list[str]:
    """For each model that sends a key, which variable's value goes to which host (checked: KeyNotSendable names
    a key that would leave over plain http, or a variable that is not a key's)."""
    from bakeoff.models.errors import BackendOptionInvalid

    lines = []
    for model in models:
        try:
            spec = spec_of(model)
            route = kind_of(spec).key_route(spec, model_options(model).api_key_env)
        except BackendOptionInvalid as exc:
            raise KeyNotSendable(f"model {model.label}: {exc}") from None
        if route is not None:
            lines.append(f"api key: model {model.label}: {route.describe()}")
    return lines


def check_endpoint(model: ModelEntry, list_models: Callable[..., Any] | None = None) -> None:
    """The model's server answers its model list and lists the model (nothing to try for a file's model)."""
    spec = spec_of(model)
    kind_of(spec).check_ready(spec, model.label, model_options(model), list_models)


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
            if checks.context is not None and kind_of(spec_of(model)).is_endpoint:
                checks.context.check(model)
    if checks.sandbox:
        check_sandbox(plan.sandbox, checks.image)
    for model in plan.models:  # the rest (finished ones) as far as their files allow
        if model.label not in identities:
            try:
                identities[model.label] = model_identity(spec_of(model), checks.hash_cache)
            except OSError:
                continue
    return identities


def plan_identities(stored: Mapping[str, str], found: Mapping[str, str]) -> dict[str, str]:
    """What batch.json keeps: the identities it had (a model's first identity stays) and those newly found."""
    return {**dict(found), **dict(stored)}
