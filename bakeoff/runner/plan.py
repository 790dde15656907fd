"""The batch plan: which models, how many runs, which task, corpus, sandbox and limits.

A plan is read from TOML (see docs/running.md) or built from CLI shortcuts, and
resolved into a frozen `Plan`. Its canonical JSON is stored in the batch folder;
a restart with a plan that differs is refused with the list of differences.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import durable
from bakeoff.errors import did_you_mean
from bakeoff.records.plan import DEFAULT_SCAFFOLD, ModelEntry, Plan, PlanChanged, PlanError, RunLimits, row_label
from bakeoff.runner.model_entries import ReviewOnlyReader, models_from
from sandbox.kinds import DOCKER, KINDS

if TYPE_CHECKING:
    from bakeoff.models.discovery import ModelPlaces

__all__ = ["ModelEntry", "Plan", "PlanChanged", "PlanError", "ReviewOnlyReader", "RunLimits", "RunSlot", "load_plan", "plan_differences",
           "plan_from_mapping", "run_order", "run_seed"]

SANDBOX_CHOICES = KINDS
# Sane upper bounds: a plan beyond them is a typo, and honouring it would exhaust memory before any run starts.
MAX_RUNS = 1000  # per model
MAX_SLOTS = 10_000  # runs of all models together
MAX_SEED = 2**63 - 1
LIMIT_MAXIMA = {"memory_mb": 1 << 20, "pids": 1 << 20, "cpus": 1024.0, "output_kb": 1 << 20}
PLAN_KEYS = {"models", "runs", "task", "corpus", "sandbox", "seed", "limits", "task_settings", "model_options",
             "scaffolds", "scaffold_settings"}
SCAFFOLD_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
EXECUTOR_TABLE = "executor"  # beside the plan in its file (bakeoff.runner.executors.settings)


@dataclass(frozen=True)
class RunSlot:
    """One run of the batch: model, 1-based index, seed, and the scaffold that drives it."""

    model: ModelEntry
    index: int
    seed: int
    scaffold: str = DEFAULT_SCAFFOLD

    @property
    def row(self) -> str:
        return row_label(self.model.label, self.scaffold)

    @property
    def run_id(self) -> str:
        return f"{self.row}-r{self.index:02d}"


def run_order(plan: Plan) -> list[RunSlot]:
    """Interleaved: run 1 of every (model, scaffold), then run 2... so machine drift follows neither; a model's
    scaffolds stand next to each other, so it is loaded once for them."""
    return [
        RunSlot(model, index, run_seed(plan.seed, index), scaffold)
        for index in range(1, plan.runs + 1)
        for model, scaffold in plan.rows()
    ]


def run_seed(batch_seed: int, index: int) -> int:
    # The same index gets the same seed for every model: runs are compared pairwise across models.
    return (batch_seed * 1_000_003 + index) % (2**31 - 1)


# (corpus folder, the task the plan names or None) -> the task to run: bakeoff.tasks.registry.corpus_task, which
# reads the corpus's manifest (the command line hands it in; the runner knows no task by name).
TaskOfCorpus = Callable[[Path, "str | None"], str]


def plan_from_mapping(raw: Mapping[str, Any], base_dir: Path, task_of: TaskOfCorpus | None = None,
                      places: ModelPlaces | None = None) -> Plan:
    """The plan of a mapping (a plan file's tables, or the command line's shortcuts). With `task_of`, the task is the
    corpus's (its manifest), and a `task` key only checks it; without, the `task` key, else "" (the batch then records
    the task it is handed: the registry's default). `places`
    (resolved from the environment at the CLI's edge) is where hf: and ollama-file: model names are looked up."""
    unknown = sorted(set(raw) - PLAN_KEYS)
    if unknown:
        raise PlanError(f"unknown plan key(s): {', '.join(unknown)}; known: {', '.join(sorted(PLAN_KEYS))}"
                        + did_you_mean(unknown, PLAN_KEYS))
    if "corpus" not in raw:
        raise PlanError("the plan must name a corpus folder: corpus = \"path/to/corpus\"")
    runs = raw.get("runs", 5)
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise PlanError(f"runs must be a whole number from 1 to {MAX_RUNS}, got {_short(runs)}")
    sandbox = raw.get("sandbox", DOCKER)
    if sandbox not in SANDBOX_CHOICES:
        raise PlanError(f"sandbox must be one of {', '.join(SANDBOX_CHOICES)}, got {sandbox!r}")
    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise PlanError(f"seed must be a whole number from 0 to {MAX_SEED}, got {_short(seed)}")
    limits = _limits_from(_table(raw, "limits"))
    corpus = (base_dir / _corpus_path(raw["corpus"])).resolve()
    model_options = _model_options_from(_table(raw, "model_options"))
    models = models_from(raw.get("models"), model_options, base_dir, places)
    scaffolds = _scaffolds_from(raw.get("scaffolds", [DEFAULT_SCAFFOLD]))
    _check_rows(models, scaffolds)
    slots = runs * len(models) * len(scaffolds)
    if slots > MAX_SLOTS:
        raise PlanError(f"{runs} runs of {len(models)} models under {len(scaffolds)} scaffolds is {slots} runs; "
                        f"at most {MAX_SLOTS} per batch")
    plan = Plan(
        models=models,
        corpus=str(corpus),
        runs=runs,
        task=_task_from(raw, corpus, task_of),
        sandbox=sandbox,
        seed=seed,
        limits=limits,
        task_settings=_table(raw, "task_settings"),
        model_options=model_options,
        scaffolds=scaffolds,
        scaffold_settings=_scaffold_settings_from(_table(raw, "scaffold_settings"), scaffolds),
    )
    _check_keepable(plan)
    return plan


def _check_keepable(plan: Plan) -> None:
    """The batch record keeps the plan: a value in a free table that durable will not write (TOML's nan, inf) or
    will not read back (a number of hundreds of digits) is refused here, not found in a damaged batch.json."""
    try:
        durable.loads(durable.dumps(plan.to_dict()))
    except (durable.JSONUnwritable, durable.UntrustedJSON) as exc:
        where = next(_unkeepable(plan.to_dict(), ""), "")
        raise PlanError(f"the plan cannot be kept in the batch record: {where}{exc}") from None


def _unkeepable(value: Any, path: str) -> Iterator[str]:
    """`key.path = value; ` for each number in `value` that is not finite (the key a user must change)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _unkeepable(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _unkeepable(item, f"{path}[{index}]")
    elif isinstance(value, float) and not math.isfinite(value):
        yield f"{path} = {value!r}; "


def _task_from(raw: Mapping[str, Any], corpus: Path, task_of: TaskOfCorpus | None) -> str:
    named = raw.get("task")
    if named is not None and not isinstance(named, str):
        raise PlanError(f"task must be the name of a task, a string, got {_short(named)}")
    if task_of is None or not corpus.is_dir():  # a folder that is not there is said by the corpus check, after
        return named or ""  # the plan's own errors; "" is the registry's default task, the runner names it
    return task_of(corpus, named)


def _corpus_path(raw: Any) -> str:
    """The plan's corpus folder as written: a non-empty path (a NUL byte is no path: resolve() raised ValueError)."""
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        raise PlanError(f"corpus must be a folder's path, e.g. corpus = \"corpora/default\", got {_short(raw)}")
    return raw


def _scaffolds_from(raw: Any) -> tuple[str, ...]:
    """`scaffolds = ["staged", ...]`: names, each once (the command line says whether it knows them)."""
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw or not all(isinstance(name, str) for name in raw):
        raise PlanError(f"scaffolds must be a list of scaffold names, e.g. [\"staged\"], got {_short(raw)}")
    bad = [name for name in raw if not SCAFFOLD_NAME.fullmatch(name)]
    if bad:
        raise PlanError(f"scaffold name {_short(bad[0])} is not a name (lower-case letters, digits, '_')")
    if len(set(raw)) != len(raw):
        raise PlanError(f"scaffolds lists a scaffold twice: {_short(raw)}")
    return tuple(raw)


def _check_rows(models: tuple[ModelEntry, ...], scaffolds: tuple[str, ...]) -> None:
    """Every (model, scaffold) names its runs: two may not share a name (a model labelled x-<scaffold> beside x under it)."""
    rows = [row_label(m.label, scaffold) for m in models for scaffold in scaffolds]
    clashes = sorted({row for row in rows if rows.count(row) > 1})
    if clashes:
        raise PlanError(f"two (model, scaffold) rows share the name {', '.join(clashes)}; give the model another label")


def _scaffold_settings_from(raw: Mapping[str, Any], scaffolds: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """[scaffold_settings.NAME] tables, for scaffolds the plan runs (each scaffold checks its own keys)."""
    settings = {}
    for name, table in raw.items():
        if name not in scaffolds:
            raise PlanError(f"[scaffold_settings.{name}] is for a scaffold the plan does not run "
                            f"(scaffolds = {list(scaffolds)})")
        if not isinstance(table, Mapping):
            raise PlanError(f"scaffold_settings.{name} must be a table ([scaffold_settings.{name}])")
        settings[name] = dict(table)
    return settings


def _short(value: Any) -> str:
    """A value for an error message, cut short (a plan may hold anything)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _model_options_from(raw: Mapping[str, Any]) -> dict[str, Any]:
    """[model_options], refused at load when a key is one no backend reads or a value has the wrong type
    or range (either failed every run at the model's load before, or with a traceback)."""
    from bakeoff.models.errors import BackendOptionInvalid
    from bakeoff.models.registry import options_from_plan

    try:
        options_from_plan(raw)
    except BackendOptionInvalid as exc:
        raise PlanError(f"bad [model_options]: {exc}") from None
    return dict(raw)


def _table(raw: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = raw.get(key, {})
    if not isinstance(value, Mapping):
        raise PlanError(f"{key} must be a table ([{key}]), got {value!r}")
    return dict(value)


def _limits_from(raw: Mapping[str, Any]) -> RunLimits:
    known = {f.name for f in fields(RunLimits)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise PlanError(f"bad [limits]: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
                        + did_you_mean(unknown, known))
    for name, value in raw.items():
        whole = name != "cpus"
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)) or not 0 < value <= LIMIT_MAXIMA[name]:
            kind = "a whole number" if whole else "a number"
            raise PlanError(f"bad [limits]: {name} must be {kind} > 0 and at most {LIMIT_MAXIMA[name]:g}, got {_short(value)}")
    return RunLimits(**raw)


MAX_PLAN_BYTES = 1 << 20  # a plan is a short text file


def read_plan_text(path: Path) -> str:
    """The plan file's text; a missing, huge, unreadable or non-UTF-8 file (random bytes, UTF-16) is a PlanError."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_PLAN_BYTES + 1)
    except FileNotFoundError:
        raise PlanError(f"no plan file at {path}") from None
    except OSError as exc:
        raise PlanError(f"cannot read the plan file {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_PLAN_BYTES:
        raise PlanError(f"{path} is over {MAX_PLAN_BYTES // 1024} KiB: not a plan file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PlanError(f"{path} is not UTF-8 text (byte {exc.start}): save the plan as UTF-8 TOML") from None


def read_plan_toml(path: Path) -> dict[str, Any]:
    """The plan file's tables; a file that is not TOML is a PlanError."""
    try:
        return tomllib.loads(read_plan_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{path} is not valid TOML: {exc}") from None


def load_plan(path: Path, task_of: TaskOfCorpus | None = None) -> Plan:
    """The plan of a plan file. Its [executor] table says how to run the plan, not what it is (nor is it part
    of the hash): bakeoff.runner.executors.settings.load_plan_and_executor reads it; here it is passed over."""
    raw = read_plan_toml(path)
    raw.pop(EXECUTOR_TABLE, None)
    return plan_from_mapping(raw, path.resolve().parent, task_of)


def plan_differences(stored: Mapping[str, Any], current: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Human-readable differences between two plan dicts: 'runs: 5 -> 3'."""
    differences = []
    for key in sorted(set(stored) | set(current)):
        name = f"{prefix}{key}"
        old, new = stored.get(key), current.get(key)
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            differences.extend(plan_differences(old, new, prefix=f"{name}."))
        elif old != new:
            differences.append(f"{name}: {durable.dumps(old)} -> {durable.dumps(new)}")
    return differences
