"""The leaderboard: one row per model, sorted by the task's headline (its direction), with how many runs it rests
on, its crash rate and what it cost; for one batch, or pooled over many.

Batches pool only when what decides a score agrees: the task and its version (spec folder and grader), the
corpus (its files' fingerprint, and the secret its hidden part was drawn with where the manifest names one),
bakeoff's version, the sandbox kind and the plan's settings (limits, task, scaffold and model options: a 16,384-token
context is not a 4,096-token one). Runs a plan extension added keep their "added later" mark.
Rows of a pooled board are models by identity (a file's sha256, or an
endpoint and its served model), not by label, with their reasoning mode and scaffold: a model's runs under two
scaffolds are two rows, in one batch and pooled.
Runs are paired only within one batch, on its shared seeds.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import durable
from bakeoff.analysis.core import CoreSummary, PairedComparison, RunCore, run_core, summarise_core
from bakeoff.analysis.cost import ModelCost, RunCost, model_costs, run_cost, run_costs, run_price
from bakeoff.analysis.loops import base_model
from bakeoff.analysis.stats import Estimate
from bakeoff.batchfolder.read import BatchRecords, RunRecords, run_model_label
from bakeoff.errors import BakeoffError
from bakeoff.records import DEFAULT_SCAFFOLD
from bakeoff.records.plan import identity_options
from bakeoff.taskapi.headline import HeadlineSpec


class BatchesNotPoolable(BakeoffError):
    """Batches whose task version, corpus, secret, harness, sandbox or settings differ cannot share a leaderboard."""


@dataclass(frozen=True)
class LeaderRow:
    model: str  # the row's name (a pooled row: the labels its identity had)
    headline: Estimate | None  # over graded runs where failures count, else over scored runs
    runs: int
    graded: int
    scored: int
    crash_rate: float | None
    cost: ModelCost
    identity: str | None = None
    reasoning: str = "default"
    scaffold: str = DEFAULT_SCAFFOLD
    batches: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()  # what differs about the batches it pools (--allow-mixed), runs added later

    @property
    def too_few_runs(self) -> bool:
        return self.headline is not None and not self.headline.has_interval


def rank(rows: Sequence[LeaderRow], spec: HeadlineSpec) -> tuple[LeaderRow, ...]:
    """Best first by the headline's mean in its direction; rows with no headline last, in their order."""
    with_value = [r for r in rows if r.headline is not None]
    without = [r for r in rows if r.headline is None]
    ordered = sorted(with_value, key=lambda r: r.headline.mean if r.headline is not None else 0.0,
                     reverse=spec.higher_is_better)
    return (*ordered, *without)


def headline_of(core: CoreSummary, model: str) -> Estimate | None:
    summary = core.model(model)
    if summary is None:
        return None
    return summary.with_failures if core.headline.counts_failures else summary.over_scored


def added_marks(records: BatchRecords) -> dict[str, str]:
    """model -> how its runs came in later, for the models a plan extension added runs of."""
    added = records.batch.added_later()
    marks: dict[str, str] = {}
    for label in records.model_labels():
        mine = [run.run_id for run in records.runs if run_model_label(run) == label]
        later = [run_id for run_id in mine if run_id in added]
        if later:
            extensions = ", ".join(str(n) for n in sorted({added[r] for r in later}))
            marks[label] = ("added later" if len(later) == len(mine) else f"{len(later)} of {len(mine)} runs added later") \
                + f" (extension {extensions})"
    return marks


def batch_leaderboard(records: BatchRecords, core: CoreSummary, added: Mapping[str, str] | None = None) -> tuple[LeaderRow, ...]:
    """One batch's board: its models by label, ranked (`added`: a mark per model whose runs were added later)."""
    costs = model_costs(run_costs(records), [m.model for m in core.models])
    plan_models = {m.label: m for m in records.plan.models}
    shapes = {row.row: row for row in core.rows}  # a row's model and scaffold (its label names both)
    rows = []
    for m in core.models:
        shape = shapes.get(m.model)
        base = shape.model if shape is not None else m.model
        entry = plan_models.get(base)
        mark = (added or {}).get(m.model)
        rows.append(LeaderRow(
            model=m.model, headline=headline_of(core, m.model), runs=m.runs, graded=m.graded, scored=m.scored,
            crash_rate=m.crash_rate, cost=costs[m.model], identity=records.batch.identities.get(base),
            reasoning=entry.reasoning if entry is not None else "default",
            scaffold=shape.scaffold if shape is not None else DEFAULT_SCAFFOLD, batches=(records.folder.name,),
            marks=(mark,) if mark else (),
        ))
    return rank(rows, core.headline)


# -- pooling ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PoolFacts:
    """What must agree for two batches to share a leaderboard."""

    task: str
    task_version: str | None
    corpus: str | None  # sha256 of the corpus fingerprint batch.json recorded
    secret_id: str | None
    harness: str  # bakeoff's version
    sandbox: str
    settings: tuple[tuple[str, str], ...] = ()  # (name, value) of every plan setting a score depends on (plan_settings)

    FIELDS = ("task_version", "corpus", "secret_id", "harness", "sandbox", "settings")


def _flatten(prefix: str, value: object, into: dict[str, str]) -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}", inner, into)
    else:
        into[prefix] = durable.dumps(value, sort_keys=True) if isinstance(value, list | tuple) else str(value)


def plan_settings(records: BatchRecords) -> tuple[tuple[str, str], ...]:
    """The plan's settings a score depends on, flattened to (name, value): its run limits, task settings, shared
    and per-model backend options and scaffold settings. Scheduling options (max_concurrent) are not among them."""
    plan = records.plan
    found: dict[str, str] = {}
    _flatten("limits", plan.limits.to_json(), found)
    _flatten("task", dict(plan.task_settings), found)
    _flatten("model_options", identity_options(plan.model_options), found)
    _flatten("scaffold", dict(plan.scaffold_settings), found)
    for model in plan.models:
        _flatten(f"model {model.label}", identity_options(dict(model.options)), found)
    return tuple(sorted(found.items()))


def _short(value: str | None) -> str:
    if value is None:
        return "unknown"
    return value[:12] if len(value) > 16 else value


def pool_facts(records: BatchRecords, default_task: str) -> PoolFacts:
    fingerprint = records.batch.corpus_sha256
    corpus = None
    if fingerprint is not None:
        corpus = hashlib.sha256(durable.dumps(dict(fingerprint), sort_keys=True).encode()).hexdigest()
    return PoolFacts(records.plan.task or default_task, records.batch.task_version, corpus, records.secret_id,
                     records.batch.code_version.version, records.plan.sandbox, plan_settings(records))


def _settings_differences(facts: Mapping[str, PoolFacts]) -> dict[str, str]:
    """batch -> its values of the settings the batches do not agree on ("default" where a batch leaves one unset),
    or {} when they agree."""
    settings = {batch: dict(f.settings) for batch, f in facts.items()}
    names = sorted({name for values in settings.values() for name in values})
    differing = [n for n in names if len({values.get(n, "default") for values in settings.values()}) > 1]
    if not differing:
        return {}
    return {batch: ", ".join(f"{n}={values.get(n, 'default')}" for n in differing) for batch, values in settings.items()}


def differences(facts: Mapping[str, PoolFacts]) -> dict[str, dict[str, str]]:
    """field -> {batch: value} for every field the batches do not agree on. An unknown task version, corpus or
    harness (a batch from before they were recorded) agrees with none; a secret is unknown where the corpus has
    none, so only a secret that differs, or is there for some batches only, disagrees."""
    found: dict[str, dict[str, str]] = {}
    for name in PoolFacts.FIELDS:
        if name == "settings":
            if described := _settings_differences(facts):
                found[name] = described
            continue
        values = {batch: getattr(f, name) for batch, f in facts.items()}
        unknown_differs = name != "secret_id" and len(values) > 1 and None in values.values()
        if len(set(values.values())) > 1 or unknown_differs:
            found[name] = {batch: _short(v) for batch, v in values.items()}
    return found


def describe_differences(found: Mapping[str, Mapping[str, str]]) -> str:
    return "; ".join(f"{name}: " + ", ".join(f"{batch} {value}" for batch, value in values.items())
                     for name, values in found.items())


def identity_of(records: BatchRecords, label: str) -> str:
    """A model's identity in a batch: what batch.json recorded, else its file's sha256 from a run, else its spec."""
    known = records.batch.identities.get(label)
    if known:
        return known
    for run in records.runs:
        if run.run is not None and run_model_label(run) == label and run.run.model.facts.sha256:
            return f"sha256:{run.run.model.facts.sha256}"
    entry = records.plan.model(label)
    return entry.spec if entry is not None else label


@dataclass(frozen=True)
class PooledBoard:
    task: str
    spec: HeadlineSpec
    rows: tuple[LeaderRow, ...]
    core: CoreSummary  # over the pooled rows (runs relabelled by row, seeds kept apart by batch)
    batches: tuple[str, ...]
    mixed: Mapping[str, Mapping[str, str]]  # the differences --allow-mixed let through
    run_costs: tuple[RunCost, ...]

    def pairs(self) -> tuple[PairedComparison, ...]:
        return tuple(p for p in self.core.pairs if p.seeds)  # only rows whose runs share a batch and a seed


class RowKey(NamedTuple):
    """What a pooled row is (one model file served one way, in one reasoning mode, under one scaffold)."""

    identity: str
    engine: str
    quantization: str
    reasoning: str
    scaffold: str


def served_as(records: BatchRecords, label: str) -> tuple[str, str]:
    """(engine, quantization) a model ran with in a batch, from the first run that recorded them ("" where none
    did): one answer per model and batch, so a run that recorded nothing does not split its model's row."""
    for run in records.runs:
        if run.run is not None and run_model_label(run) == label:
            facts = run.run.model.facts
            if facts.engine or facts.quantization:
                return facts.engine or "", facts.quantization or ""
    return "", ""


def _row_keys(records: BatchRecords) -> Callable[[RunRecords], RowKey]:
    """(identity, engine, quantization, reasoning mode, scaffold): what a pooled row is, so one model at Q4_K_M and
    at Q6_K, or through two servers, are two rows. The run's model label, not its row's, finds the identity, so two
    scaffolds' runs of one file share the identity and differ by scaffold."""
    known: dict[str, tuple[str, str, str, str]] = {}

    def key(run: RunRecords) -> RowKey:
        model = base_model(run, run_model_label(run))
        if model not in known:
            entry = records.plan.model(model)
            known[model] = (identity_of(records, model), *served_as(records, model),
                            entry.reasoning if entry is not None else "default")
        return RowKey(*known[model], run.scaffold)

    return key


def _row_name(label: str, key: RowKey, named: Mapping[RowKey, str]) -> str:
    """A new row's name: its label, or, where another row already has it, the label and how this one was served."""
    if label not in named.values():
        return label
    served = " ".join(part for part in (key.engine, key.quantization) if part) or "served otherwise"
    return f"{label} ({served})"


def pooled_board(batches: Sequence[BatchRecords], spec: HeadlineSpec, default_task: str, allow_mixed: bool = False,
                 bootstrap_seed: int = 0, partial: Mapping[Path, str] | None = None) -> PooledBoard:
    """One task's batches pooled (BatchesNotPoolable listing what differs unless `allow_mixed`). `partial`: the
    folder -> why, of batches let in before they were whole (their rows say so)."""
    names = _names(batches)
    unwhole = {names[i]: (partial or {})[b.folder] for i, b in enumerate(batches) if b.folder in (partial or {})}
    facts = {names[i]: pool_facts(b, default_task) for i, b in enumerate(batches)}
    found = differences(facts)
    if found and not allow_mixed:
        raise BatchesNotPoolable(f"these batches cannot be pooled: {describe_differences(found)}. Pool only batches "
                                 "of the same task version, corpus, secret, harness, sandbox and settings, or pass --allow-mixed "
                                 "to pool them with each row marked")
    keys: dict[RowKey, str] = {}  # row key -> row name
    labels: dict[RowKey, list[str]] = {}
    cores: list[RunCore] = []
    costs: list[RunCost] = []
    row_batches: dict[str, list[str]] = {}
    later: dict[str, list[str]] = {}  # row name -> its runs' "added later" marks, each with its batch
    for index, records in enumerate(batches):
        added = added_marks(records)
        row_key = _row_keys(records)
        for run in records.runs:
            label = run_model_label(run)
            key = row_key(run)
            if label not in labels.setdefault(key, []):
                labels[key].append(label)
            name = keys.setdefault(key, _row_name(label, key, keys))
            one = run_core(run)
            # Seeds pair runs of one batch only: another batch's seed 7 ran on another night.
            seed = None if one.seed is None else index * (1 << 32) + one.seed
            cores.append(dataclasses.replace(one, model=name, seed=seed))
            costs.append(dataclasses.replace(run_cost(run, run_price(records, run)), model=name))
            if names[index] not in row_batches.setdefault(name, []):
                row_batches[name].append(names[index])
                if label in added:
                    later.setdefault(name, []).append(f"{names[index]}: {added[label]}")
    # A row's name: every label it ran under, and how it was served where that sets it apart.
    renamed = {keys[key]: " / ".join(found_labels) + keys[key].removeprefix(found_labels[0])
               for key, found_labels in labels.items()}
    cores = [dataclasses.replace(c, model=renamed[c.model]) for c in cores]
    costs = [dataclasses.replace(c, model=renamed[c.model]) for c in costs]
    order = [renamed[keys[key]] for key in keys]
    core = summarise_core(cores, order, spec, bootstrap_seed)
    by_cost = model_costs(costs, order)
    rows = []
    for key, first in keys.items():
        name = renamed[first]
        m = core.model(name)
        assert m is not None
        in_batches = tuple(row_batches[first])
        marks = (*(f"{fact} {', '.join(dict.fromkeys(values[b] for b in in_batches))}" for fact, values in found.items()),
                 *later.get(first, ()),
                 *(f"{b}: partial ({unwhole[b]})" for b in in_batches if b in unwhole))
        rows.append(LeaderRow(model=name, headline=headline_of(core, name), runs=m.runs, graded=m.graded,
                              scored=m.scored, crash_rate=m.crash_rate, cost=by_cost[name], identity=key.identity,
                              reasoning=key.reasoning, scaffold=key.scaffold, batches=in_batches, marks=marks))
    task = next(iter(facts.values())).task if facts else default_task
    return PooledBoard(task, spec, rank(rows, spec), core, tuple(names), found, tuple(costs))


def _names(batches: Sequence[BatchRecords]) -> list[str]:
    """Each batch's folder name, made unique with its parent's where two share one."""
    plain = [b.folder.name for b in batches]
    return [f"{b.folder.parent.name}/{b.folder.name}" if plain.count(b.folder.name) > 1 else b.folder.name
            for b in batches]
