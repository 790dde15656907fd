"""The plan a batch runs, typed: its models (each a spec with the backend options it is opened with),
runs, task, corpus, sandbox, seed, limits and settings. batch.json keeps it as `plan` (`Plan.to_dict`, whose
canonical JSON is hashed: a resumed batch must be started with the same plan).

Reading a plan file (TOML, with its checks and messages) is bakeoff.runner.plan's; this module is the data.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.errors import BakeoffError
from bakeoff.models.errors import BackendOptionInvalid
from bakeoff.models.kind import ModelSpec
from bakeoff.models.options import SCHEDULING_OPTIONS, BackendOptions, options_from_plan
from bakeoff.records.codec import JsonObject, JsonRecord, decode
from bakeoff.records.errors import DamagedRecord

DEFAULT_REASONING = "default"
DEFAULT_SCAFFOLD = "staged"  # the six fixed stages (bakeoff.scaffolds.registry names every scaffold)


def row_label(label: str, scaffold: str) -> str:
    """A (model, scaffold) pair's name: its runs' ids (<row>-r01) and the report's row. A staged row is the
    model's label alone, so that a plan of staged runs keeps the run ids it always had."""
    return label if scaffold == DEFAULT_SCAFFOLD else f"{label}-{scaffold}"


class PlanError(BakeoffError):
    """The plan file or the run options are invalid."""


class PlanChanged(BakeoffError):
    """A batch folder was started with another plan; resuming it with this one would mix results."""


@dataclass(frozen=True)
class Price(JsonRecord):
    """What a priced model's provider charges, in US dollars per million tokens: prompt tokens, prompt tokens the
    provider served from its cache (at the input price where it gives none), and generated tokens (reasoning
    included: providers bill it as output)."""

    input: float
    output: float
    cached_input: float | None = None
    WRITTEN_WHEN_SET = ("cached_input",)

    def dollars(self, prompt_tokens: float, cached_tokens: float, output_tokens: float) -> float:
        cached_rate = self.input if self.cached_input is None else self.cached_input
        fresh = max(prompt_tokens - cached_tokens, 0.0)
        return (fresh * self.input + cached_tokens * cached_rate + output_tokens * self.output) / 1e6


@dataclass(frozen=True)
class RunLimits(JsonRecord):
    """Caps of every execution in a run's sandbox."""

    memory_mb: int = 4096
    pids: int = 512
    cpus: int | float = 2.0  # as the plan gave it: a whole number is kept whole, so the plan hashes the same
    output_kb: int = 1024


@dataclass(frozen=True)
class ModelEntry:
    """One model of a plan: the label its runs are named by, its spec, its reasoning mode, its own backend
    options (as the plan gave them), and what the plan's loading made of them: the BackendOptions it is opened
    with (shared and own options merged, and checked) and its parsed spec."""

    label: str  # names the model's runs: <label>-r01
    spec: str  # as batch.json keeps it (a relative file made absolute); bakeoff.models.spec parses it
    reasoning: str = DEFAULT_REASONING  # default, off, low, medium, high (bakeoff.runner.model_entries)
    options: tuple[tuple[str, Any], ...] = ()  # this model's own backend options (n_ctx, n_gpu_layers...)
    # None: made from `options` and the reasoning mode alone. Derived from the fields above and the plan's
    # [model_options], so it takes no part in comparing entries.
    backend: BackendOptions | None = field(default=None, compare=False)
    # The spec parsed once, where the plan was loaded (its kind's value: bakeoff.models.kinds). None in an entry
    # read back from batch.json or made by hand, which the runner parses where it needs it (model_entries.spec_of):
    # a record holds the text, and reading one needs no backend kind.
    parsed: ModelSpec | None = field(default=None, compare=False)
    price: Price | None = None  # a priced model's (an API control's): the report's money

    def opening_options(self, context_tokens: int) -> BackendOptions:
        """What the model is opened with in a batch: a gguf model is loaded with the task's context unless
        its options set n_ctx."""
        options = self.backend or backend_options({}, self.options, self.reasoning)
        return options if options.n_ctx is not None else dataclasses.replace(options, n_ctx=context_tokens)

    def to_dict(self) -> JsonObject:
        # Only what differs from the defaults: a plan written before these keys keeps its hash.
        entry: JsonObject = {"label": self.label, "spec": self.spec}
        if self.reasoning != DEFAULT_REASONING:
            entry["reasoning"] = self.reasoning
        options = identity_options(dict(self.options))
        if options:
            entry["options"] = options
        if self.price is not None:
            entry["price"] = self.price.to_json()
        return entry


def identity_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Backend options without those that only schedule work (max_concurrent): they take no part in the plan's
    identity, so a batch resumes under another concurrency (records never depend on it)."""
    return {name: value for name, value in options.items() if name not in SCHEDULING_OPTIONS}


def backend_options(model_options: Mapping[str, Any], own: tuple[tuple[str, Any], ...], reasoning: str) -> BackendOptions:
    """[model_options], then the model's own options, then its reasoning mode: the typed, checked result
    (BackendOptionInvalid for a key no backend reads or a value of the wrong type or range)."""
    merged: dict[str, Any] = {**dict(model_options), **dict(own)}
    if reasoning != DEFAULT_REASONING:
        merged["reasoning"] = reasoning
    return options_from_plan(merged)


@dataclass(frozen=True)
class Plan(JsonRecord):
    models: tuple[ModelEntry, ...]
    corpus: str  # absolute path of the task's data folder
    runs: int = 5
    task: str = ""  # a plan file that names none runs bakeoff.tasks.registry.DEFAULT_TASK
    sandbox: str = "docker"  # sandbox.kinds.KINDS
    seed: int = 0
    limits: RunLimits = field(default_factory=RunLimits)
    task_settings: Mapping[str, Any] = field(default_factory=dict)
    model_options: Mapping[str, Any] = field(default_factory=dict)
    # How each model is driven through the task, an axis like the reasoning modes: every (model, scaffold) is a
    # row of runs. Its scaffolds' own settings by scaffold name ([scaffold_settings.NAME]: a loop's budgets...).
    scaffolds: tuple[str, ...] = (DEFAULT_SCAFFOLD,)
    scaffold_settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def rows(self) -> list[tuple[ModelEntry, str]]:
        """(model, scaffold) in the plan's order: each model under each of its scaffolds."""
        return [(model, scaffold) for model in self.models for scaffold in self.scaffolds]

    def to_dict(self) -> JsonObject:
        data: JsonObject = {
            "models": [m.to_dict() for m in self.models],
            "corpus": self.corpus,
            "runs": self.runs,
            "task": self.task,
            "sandbox": self.sandbox,
            "seed": self.seed,
            "limits": self.limits.to_json(),
            "task_settings": _jsonable(dict(self.task_settings)),
            "model_options": _jsonable(identity_options(self.model_options)),
        }
        # Only when they are not the defaults: a plan of staged runs keeps its hash.
        if self.scaffolds != (DEFAULT_SCAFFOLD,):
            data["scaffolds"] = list(self.scaffolds)
        if self.scaffold_settings:
            data["scaffold_settings"] = _jsonable(dict(self.scaffold_settings))
        return data

    def sha256(self) -> str:
        canonical = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def model(self, label: str) -> ModelEntry | None:
        return next((m for m in self.models if m.label == label), None)

    def to_json(self) -> JsonObject:
        return self.to_dict()

    @classmethod
    def from_json(cls, data: Any, where: str = "") -> Plan:
        """The plan batch.json recorded (DamagedRecord for one that cannot be a plan)."""
        return _plan_from_json(data)


@dataclass(frozen=True)
class _ModelJson:
    """A model of a plan as batch.json keeps it (ModelEntry.to_dict): its spec as text, its own options as an object."""

    label: str
    spec: str
    reasoning: str = DEFAULT_REASONING
    options: dict[str, Any] = field(default_factory=dict)
    price: Price | None = None


@dataclass(frozen=True)
class _PlanJson:
    """A plan as batch.json keeps it (Plan.to_dict), before its models' specs and options are read."""

    models: tuple[_ModelJson, ...] = ()
    corpus: str = ""
    runs: int = 0
    task: str = ""
    sandbox: str = "docker"
    seed: int = 0
    limits: RunLimits = field(default_factory=RunLimits)
    task_settings: dict[str, Any] = field(default_factory=dict)
    model_options: dict[str, Any] = field(default_factory=dict)
    scaffolds: tuple[str, ...] = ()
    scaffold_settings: dict[str, dict[str, Any]] = field(default_factory=dict)


def _model_entry(item: _ModelJson, model_options: Mapping[str, Any]) -> ModelEntry:
    """A model of the plan batch.json kept: its spec as written (parsed where the plan is loaded, once), its
    options merged and checked."""
    own = tuple(sorted(item.options.items()))
    try:
        backend = backend_options(model_options, own, item.reasoning)
    except BackendOptionInvalid as exc:
        raise DamagedRecord(f"plan model {item.label!r}: {exc}") from None
    return ModelEntry(item.label, item.spec, item.reasoning, own, backend, price=item.price)


def _plan_from_json(data: Any) -> Plan:
    read = decode(_PlanJson, data, ".plan")
    return Plan(
        models=tuple(_model_entry(item, read.model_options) for item in read.models),
        corpus=read.corpus, runs=read.runs, task=read.task, sandbox=read.sandbox, seed=read.seed, limits=read.limits,
        task_settings=read.task_settings, model_options=read.model_options,
        scaffolds=read.scaffolds or (DEFAULT_SCAFFOLD,), scaffold_settings=read.scaffold_settings,
    )


def _jsonable(value: Any) -> Any:
    """Mappings and tuples as the JSON objects and lists they are written as."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value
