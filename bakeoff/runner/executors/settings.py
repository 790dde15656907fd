"""How a batch's runs are scheduled: the plan's `[executor]` table and the CLI's --executor/--address/--parallel.

The executor is not part of the plan's identity (not in batch.json's hash): the same batch folder may be
started under the local executor and resumed on a Ray cluster, or the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bakeoff.runner.executors.address import parse_address
from bakeoff.runner.plan import EXECUTOR_TABLE, Plan, PlanError, TaskOfCorpus, plan_from_mapping, read_plan_toml
from bakeoff.taskapi.spec import is_number

if TYPE_CHECKING:
    from bakeoff.models.discovery import ModelPlaces

EXECUTOR_KINDS = ("local", "ray")
EXECUTOR_KEYS = {"kind", "address", "parallel", "gpus_per_run", "cpus_per_run", "max_in_flight", "max_retries",
                 "models"}
MODEL_KEYS = {"gpus", "vram_gb", "max_in_flight"}
MAX_PARALLEL = 64


@dataclass(frozen=True)
class ModelResources:
    """What one run of a model asks of a Ray node (None: the executor's default for its kind)."""

    gpus: float | None = None  # GGUF runs default to gpus_per_run; HTTP endpoints to 0
    vram_gb: float | None = None  # a custom node resource: keeps a big model off a small card
    max_in_flight: int | None = None  # at most this many of the model's runs at once (an endpoint's capacity)


@dataclass(frozen=True)
class ExecutorSettings:
    kind: str = "local"
    address: str | None = None  # Ray: "auto", "ray://host:10001", "host:6379"; None starts a local cluster
    parallel: int = 1  # local: runs in flight in this process
    gpus_per_run: float = 1.0  # Ray: a GGUF run's GPU share (0.5 puts two runs on one card)
    cpus_per_run: float = 1.0  # Ray: logical CPUs a run holds on its node
    max_in_flight: int | None = None  # Ray: None is what the cluster's sandbox slots allow
    max_retries: int = 3  # Ray: how often a run whose worker died is started again
    models: Mapping[str, ModelResources] = field(default_factory=dict)  # by model label

    def for_model(self, label: str) -> ModelResources:
        return self.models.get(label, ModelResources())


def _number(table: str, key: str, value: Any, whole: bool, minimum: float) -> Any:
    if not is_number(value, whole) or value < minimum:
        kind = "a whole number" if whole else "a number"
        raise PlanError(f"bad [{table}]: {key} must be {kind} >= {minimum:g}, got {value!r}")
    return value


def _model_resources(label: str, raw: Any) -> ModelResources:
    table = f"executor.models.{label}"
    if not isinstance(raw, Mapping):
        raise PlanError(f"[{table}] must be a table, got {raw!r}")
    unknown = sorted(set(raw) - MODEL_KEYS)
    if unknown:
        raise PlanError(f"bad [{table}]: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(MODEL_KEYS))}")
    return ModelResources(
        gpus=_number(table, "gpus", raw["gpus"], False, 0) if "gpus" in raw else None,
        vram_gb=_number(table, "vram_gb", raw["vram_gb"], False, 0) if "vram_gb" in raw else None,
        max_in_flight=_number(table, "max_in_flight", raw["max_in_flight"], True, 1) if "max_in_flight" in raw else None,
    )


def executor_from_mapping(raw: Mapping[str, Any]) -> ExecutorSettings:
    """The `[executor]` table of a plan (empty: the local executor, one run at a time)."""
    if not isinstance(raw, Mapping):
        raise PlanError(f"executor must be a table ([executor]), got {raw!r}")
    unknown = sorted(set(raw) - EXECUTOR_KEYS)
    if unknown:
        raise PlanError(f"bad [executor]: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(EXECUTOR_KEYS))}")
    kind = raw.get("kind", "local")
    if kind not in EXECUTOR_KINDS:
        raise PlanError(f"bad [executor]: kind must be one of {', '.join(EXECUTOR_KINDS)}, got {kind!r}")
    address = raw.get("address")
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise PlanError(f"bad [executor]: address must be a non-empty string, got {address!r}")
    if address is not None:
        parse_address(address)  # its form is checked with the plan; whether it answers, before the batch
    models = raw.get("models", {})
    if not isinstance(models, Mapping):
        raise PlanError(f"bad [executor]: models must be a table of model labels, got {models!r}")
    return ExecutorSettings(
        kind=kind,
        address=address,
        parallel=min(_number("executor", "parallel", raw.get("parallel", 1), True, 1), MAX_PARALLEL),
        gpus_per_run=_number("executor", "gpus_per_run", raw.get("gpus_per_run", 1.0), False, 0),
        cpus_per_run=_number("executor", "cpus_per_run", raw.get("cpus_per_run", 1.0), False, 0),
        max_in_flight=_number("executor", "max_in_flight", raw["max_in_flight"], True, 1) if "max_in_flight" in raw else None,
        max_retries=_number("executor", "max_retries", raw.get("max_retries", 3), True, 0),
        models={str(label): _model_resources(str(label), table) for label, table in models.items()},
    )


def with_overrides(settings: ExecutorSettings, kind: str | None, address: str | None, parallel: int | None) -> ExecutorSettings:
    """The CLI's options win over the plan's table; --address alone implies the Ray executor."""
    if address is not None and kind is None:
        kind = "ray"
    if kind == "local" and address is not None:
        raise PlanError("--address names a Ray cluster: it goes with --executor ray")
    changes: dict[str, Any] = {}
    if kind is not None:
        changes["kind"] = kind
    if address is not None:
        parse_address(address)
        changes["address"] = address
    if parallel is not None:
        changes["parallel"] = min(parallel, MAX_PARALLEL)
    return replace(settings, **changes)


def load_plan_and_executor(path: Path, task_of: TaskOfCorpus | None = None,
                           places: ModelPlaces | None = None) -> tuple[Plan, ExecutorSettings]:
    """A plan file's plan (its task the corpus's, with `task_of`; hf: and ollama-file: names looked up in `places`)
    and its `[executor]` table (which is not part of the plan's hash)."""
    raw = read_plan_toml(path)
    executor = executor_from_mapping(raw.pop(EXECUTOR_TABLE, {}))
    return plan_from_mapping(raw, path.resolve().parent, task_of, places), executor
