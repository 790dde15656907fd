"""Unattended batches: interleaved runs handed to an executor (bakeoff.runner.executors), resume, refusal of a changed plan.

A batch folder holds batch.json (the plan it was started with); starting again on
the same folder continues where it stopped. A failing run, model or sandbox is
recorded and the batch goes on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bakeoff.batchfolder.files import Journal, WriteCounter, is_disk_full, out_of_disk, utc_now, write_atomic_text
from bakeoff.batchfolder.layout import BatchLayout
from bakeoff.batchfolder.lock import batch_lock
from bakeoff.batchfolder.records import read_batch_record, read_run_record, write_batch_record
from bakeoff.errors import BakeoffError
from bakeoff.records import STAGE_NAMES, BatchRecord, CodeVersion, Extension, ModelEntry, RunRecord, RunStatus
from bakeoff.runner.executors.common import Opener, default_open_backend
from bakeoff.runner.executors.local import LocalExecutor
from bakeoff.runner.fingerprint import check_fingerprint, corpus_fingerprint
from bakeoff.runner.plan import Plan, PlanChanged, RunSlot, plan_differences, run_order
from bakeoff.runner.preflight import PreflightChecks, preflight
from bakeoff.runner.run import BatchEnv, is_finished
from bakeoff.runner.scaffold import Scaffold, ScaffoldRefusesTask, ScaffoldSettingsError
from bakeoff.runner.status import plural
from bakeoff.taskapi.corpus import CorpusFiles
from bakeoff.taskapi.parts import EvaluateHook
from bakeoff.taskapi.spec import TaskSpec
from bakeoff.taskapi.task import Task


class BatchFolderUnusable(BakeoffError):
    """The batch folder cannot be made or written (a path under /proc, a file in the way, no permission)."""


class BatchInterrupted(BakeoffError):
    """SIGINT or SIGTERM ended the batch; what was finished is kept and the same command resumes it."""

    exit_code = 130  # 128 + SIGINT, as a shell reports a Ctrl-C


@dataclass(frozen=True)
class BatchStart:
    """What the batch holds as it starts: every slot in order, the runs finished before (their records),
    the unfinished runs with stages recorded (kept, the rest re-run) and the runs a plan extension added now."""

    slots: tuple[RunSlot, ...]
    finished: Mapping[str, RunRecord] = field(default_factory=dict)
    partial: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # run id -> stages kept
    added: tuple[str, ...] = ()
    stages: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # scaffold -> its stages, as handed

    def stages_of(self, slot: RunSlot) -> tuple[str, ...]:
        """The slot's scaffold's stages in order (the staged six for a scaffold not handed: the old callers')."""
        return tuple(self.stages.get(slot.scaffold, STAGE_NAMES))

    @property
    def resuming(self) -> bool:
        return bool(self.finished or self.partial)

    def resume_lines(self) -> list[str]:
        """What a resume keeps and re-runs, in words (empty for a fresh batch)."""
        lines = []
        if self.added:
            lines.append(f"plan extended: {plural(len(self.added), 'run')} added ({', '.join(self.added[:6])}"
                         + (", ..." if len(self.added) > 6 else "") + ")")
        if self.resuming:
            left = len(self.slots) - len(self.finished)
            lines.append(f"resuming: {len(self.finished)} of {len(self.slots)} runs finished and kept, {left} to run")
        for run_id, stages in self.partial.items():
            lines.append(f"{run_id}: {plural(len(stages), 'stage')} kept ({', '.join(stages)}); the rest of the run is re-run")
        return lines


class ProgressSink(Protocol):
    """Told what the batch is doing (the live display implements it; tests may ignore it)."""

    def batch_started(self, start: BatchStart) -> None: ...
    def run_started(self, slot: RunSlot) -> None: ...
    def stage_started(self, run_id: str, stage: str) -> None: ...
    def run_finished(self, slot: RunSlot, record: RunRecord) -> None: ...


class SilentProgress:
    def batch_started(self, start) -> None:
        pass

    def run_started(self, slot) -> None:
        pass

    def stage_started(self, run_id, stage) -> None:
        pass

    def run_finished(self, slot, record) -> None:
        pass


@dataclass(frozen=True)
class BatchOptions:
    out_dir: Path
    plan_text: str | None = None  # the plan file as given, copied into the batch folder
    wheelhouse: Path | None = None
    sandbox_options: Mapping[str, Any] = field(default_factory=dict)
    evaluate_hooks: Mapping[str, EvaluateHook] = field(default_factory=dict)
    open_backend: Opener | None = None  # tests may count loads through it
    executor: Any = None  # an executors.common.Executor; None: the local one, one run at a time
    preflight: PreflightChecks | None = field(default_factory=PreflightChecks)  # None: none (a test's own stand-ins)
    gpu_probe: Any = None  # a bakeoff.models.memory.GpuMemoryProbe sampled with every stage; None: no GPU read
    # The plan's scaffolds by name, resolved by the caller (bakeoff.scaffolds.registry); None: staged alone.
    scaffolds: Mapping[str, Scaffold] | None = None


@dataclass(frozen=True)
class BatchResult:
    batch_dir: Path
    records: tuple[RunRecord, ...]

    @property
    def failed(self) -> int:
        return sum(1 for r in self.records if r.status != RunStatus.FINISHED)

    @property
    def exit_code(self) -> int:
        """What `bakeoff run` exits with (docs/running.md): 0, or HARNESS_FAILED_EXIT when a run harness-failed."""
        return HARNESS_FAILED_EXIT if self.failed else 0


HARNESS_FAILED_EXIT = 4  # a run ended harness_failed: the batch finished, but bakeoff could not measure everything


def code_version() -> CodeVersion:
    """bakeoff's version and, when it runs from a git checkout, the commit (recorded with every result)."""
    from bakeoff import __version__
    from bakeoff.runner.hostgit import checkout_commit

    found = checkout_commit(Path(__file__).resolve().parents[2])
    if found is None:  # an installed copy has no repository; the version is enough
        return CodeVersion(__version__)
    return CodeVersion(__version__, *found)


def make_batch_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".writable"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        if is_disk_full(exc):
            raise out_of_disk(folder, exc) from exc
        raise BatchFolderUnusable(f"cannot use {folder} as a batch folder: {exc.strerror or exc}") from None


def open_batch_folder(plan: Plan, options: BatchOptions, counter: WriteCounter,
                      corpus: CorpusFiles | None = None, task_version: str | None = None,
                      identities: Mapping[str, str] | None = None) -> tuple[BatchRecord, tuple[str, ...]]:
    """Create the batch folder's records, or check that an existing one was started with this plan and corpus;
    a plan that only adds models or runs extends it. (The record, the run ids an extension added now.)"""
    layout = BatchLayout(options.out_dir)
    if layout.is_batch():
        stored = read_batch_record(layout.record)
        added: tuple[str, ...] = ()
        if stored.plan_sha256 != plan.sha256():
            added = added_runs(stored, plan, options.out_dir)  # PlanChanged unless the plan only adds models or runs
            stored = _extended(stored, plan, added, identities or {})
            if options.plan_text is not None:
                write_atomic_text(layout.plan_file, options.plan_text, counter)
            write_batch_record(layout.record, stored, counter)
        if corpus is not None and stored.corpus_sha256 is not None:  # older batches have none
            check_fingerprint(corpus, dict(stored.corpus_sha256))
        return stored, added
    if options.plan_text is not None:
        write_atomic_text(layout.plan_file, options.plan_text, counter)
    batch = BatchRecord(
        plan=plan,
        plan_sha256=plan.sha256(),
        order=tuple(slot.run_id for slot in run_order(plan)),
        created_at=utc_now(),
        code_version=code_version(),
        corpus_sha256=corpus_fingerprint(corpus) if corpus is not None else None,
        task_version=task_version,
        identities=dict(identities or {}),
    )
    write_batch_record(layout.record, batch, counter)
    return batch, ()


def added_runs(stored: BatchRecord, plan: Plan, folder: Path) -> tuple[str, ...]:
    """The runs `plan` adds to the stored batch, in the order they run (interleaved among themselves);
    PlanChanged listing the differences when the plan changes anything else."""
    old, new = stored.plan.to_dict(), plan.to_dict()
    others = plan_differences({k: v for k, v in old.items() if k not in ("models", "runs")},
                              {k: v for k, v in new.items() if k not in ("models", "runs")})
    new_models = {m["label"]: m for m in new["models"]}
    changed_models = [f"model {m['label']}: removed or changed" for m in old["models"] if new_models.get(m["label"]) != m]
    fewer = [f"runs: {old['runs']} -> {new['runs']} (fewer)"] if new["runs"] < old["runs"] else []
    if others or changed_models or fewer:
        changes = plan_differences(old, new)
        raise PlanChanged(
            f"{folder} was started with another plan; refusing to mix results. Changed: {'; '.join(changes)}. "
            "A plan that only adds models or runs extends the batch; anything else needs a new --out folder, "
            "or the original plan."
        )
    known = set(stored.order)
    return tuple(slot.run_id for slot in run_order(plan) if slot.run_id not in known)


def _extended(stored: BatchRecord, plan: Plan, added: tuple[str, ...], identities: Mapping[str, str]) -> BatchRecord:
    extension = Extension(utc_now(), stored.plan_sha256, added)
    return dataclasses.replace(stored, plan=plan, plan_sha256=plan.sha256(), order=(*stored.order, *added),
                               identities={**dict(identities), **dict(stored.identities)},
                               extensions=(*stored.extensions, extension))


def models_with_runs_left(plan: Plan, out_dir: Path) -> list[ModelEntry]:
    """The plan's models that have a run not yet finished in `out_dir` (the ones the preflight tries)."""
    layout = BatchLayout(out_dir)
    left = {slot.model.label for slot in run_order(plan) if not layout.run(slot.run_id).record.is_file()}
    return [model for model in plan.models if model.label in left]


def run_batch(plan: Plan, plugin: Task, options: BatchOptions, progress: ProgressSink | None = None) -> BatchResult:
    """Run (or continue) the batch in options.out_dir, holding the folder's writer lock throughout.

    `plugin` is the plan's task, resolved by the caller (the command line) and handed down to every run."""
    from bakeoff.runner.context_preflight import context_check_for
    from bakeoff.taskapi.spec import MODEL_STAGES

    plan = plan if plan.task else dataclasses.replace(plan, task=plugin.name)  # the batch record names its task
    task, corpus = check_plan(plan, plugin, options.scaffolds)  # before anything is written
    identities: dict[str, str] = {}
    if options.preflight is not None:
        checks = options.preflight
        if checks.image is None and options.sandbox_options.get("image"):
            checks = dataclasses.replace(checks, image=str(options.sandbox_options["image"]))
        if checks.models and checks.context is None:  # an endpoint must read the task's longest prompt whole
            checks = dataclasses.replace(checks, context=context_check_for(task.settings, MODEL_STAGES))
        identities = preflight(plan, options.out_dir, models_with_runs_left(plan, options.out_dir), checks)
    make_batch_folder(options.out_dir)
    with batch_lock(options.out_dir):
        return _run_locked(plan, plugin, task, corpus, options, progress or SilentProgress(), identities)


def check_plan(plan: Plan, plugin: Task, scaffolds: Mapping[str, Scaffold] | None) -> tuple[TaskSpec, CorpusFiles]:
    """What refuses a batch from the plan, its task and the corpus alone, in a moment: the context and the
    budgets, the scaffolds' settings, the corpus's files. The command line says these before the engine test."""
    from bakeoff.runner.model_entries import check_context
    from bakeoff.taskapi.spec import MODEL_STAGES

    task = plugin.spec(plan.task_settings)
    check_context(plan.models, plan.model_options, task.settings, MODEL_STAGES)
    check_scaffolds(plan, task, scaffolds)
    return task, plugin.corpus_files(Path(plan.corpus))


def check_scaffolds(plan: Plan, task: TaskSpec, scaffolds: Mapping[str, Scaffold] | None) -> None:
    """Every scaffold the plan runs was handed, and takes the plan's settings for it (PlanError otherwise)."""
    from bakeoff.runner.plan import PlanError

    handed = dict(scaffolds or {})
    missing = [name for name in plan.scaffolds if name not in handed]
    if missing:
        raise PlanError(f"the plan runs scaffold(s) {', '.join(missing)}, which the batch was not handed")
    for name in plan.scaffolds:
        try:
            handed[name].check_settings(dict(plan.scaffold_settings.get(name, {})), task)
        except ScaffoldRefusesTask as exc:
            raise PlanError(f"scaffold {name} cannot run task {task.name}: {exc}") from None
        except ScaffoldSettingsError as exc:
            raise PlanError(f"bad [scaffold_settings.{name}]: {exc}") from None


def _batch_start(env: BatchEnv, slots: list[RunSlot], added: tuple[str, ...]) -> BatchStart:
    from bakeoff.batchfolder.records import finished_stages

    finished = {slot.run_id: read_run_record(env.layout.run(slot.run_id).record)
                for slot in slots if is_finished(env.run_dir(slot.run_id))}
    partial = {slot.run_id: tuple(done) for slot in slots if slot.run_id not in finished
               and (done := finished_stages(env.run_dir(slot.run_id)))}
    stages = {name: tuple(scaffold.stages) for name, scaffold in env.scaffolds.items()}
    return BatchStart(tuple(slots), finished, partial, added, stages)


def _run_locked(plan: Plan, plugin: Task, task: TaskSpec, corpus: CorpusFiles, options: BatchOptions,
                progress: ProgressSink, identities: Mapping[str, str]) -> BatchResult:
    counter = WriteCounter.from_environment()
    batch, added = open_batch_folder(plan, options, counter, corpus, plugin.version(), identities)
    journal = Journal(BatchLayout(options.out_dir).events, counter)
    env = BatchEnv(
        plan=plan,
        plugin=plugin,
        task=task,
        corpus=corpus,
        corpus_sha256=batch.corpus_sha256,
        batch_dir=options.out_dir,
        journal=journal,
        counter=counter,
        code_version=batch.code_version,
        wheelhouse=options.wheelhouse,
        sandbox_options=options.sandbox_options,
        evaluate_hooks=options.evaluate_hooks,
        gpu_probe=options.gpu_probe,
        scaffolds=dict(options.scaffolds or {}),
    )
    by_id = {slot.run_id: slot for slot in run_order(plan)}
    slots = [by_id[run_id] for run_id in batch.order if run_id in by_id]  # the stored order: added runs come last
    start = _batch_start(env, slots, added)
    progress.batch_started(start)
    journal.append("batch_started", runs=len(slots), already_finished=len(start.finished),
                   resumed_runs=sorted(start.partial), added_runs=list(added))
    opener = options.open_backend or default_open_backend
    executor = options.executor or LocalExecutor()
    tracker = _Tracker(progress, len(start.finished))
    try:
        executor.run(env, [slot for slot in slots if slot.run_id not in start.finished], opener, tracker)
    except KeyboardInterrupt:  # SIGINT, or SIGTERM turned into it by the command line
        raise _interrupted(journal, tracker, len(slots)) from None
    records = tuple(read_run_record(env.layout.run(slot.run_id).record) for slot in slots)
    journal.append("batch_done", failed=sum(1 for r in records if r.status != RunStatus.FINISHED))
    return BatchResult(options.out_dir, records)


class _Tracker:
    """The progress sink between the executor and the display: it knows which runs are in flight, in which
    stage, and how many are done, for the message of an interrupted batch."""

    def __init__(self, inner: ProgressSink, done: int) -> None:
        self.inner = inner
        self.done = done
        self.in_flight: dict[str, str] = {}  # run id -> its stage ("" before the first)

    def batch_started(self, start: BatchStart) -> None:
        self.inner.batch_started(start)

    def run_started(self, slot: RunSlot) -> None:
        self.in_flight[slot.run_id] = ""
        self.inner.run_started(slot)

    def stage_started(self, run_id: str, stage: str) -> None:
        self.in_flight[run_id] = stage
        self.inner.stage_started(run_id, stage)

    def run_finished(self, slot: RunSlot, record: RunRecord) -> None:
        self.in_flight.pop(slot.run_id, None)
        self.done += 1
        self.inner.run_finished(slot, record)


def _interrupted(journal: Journal, tracker: _Tracker, total: int) -> BatchInterrupted:
    where = [{"run_id": run_id, "stage": stage or None} for run_id, stage in tracker.in_flight.items()]
    journal.append("interrupted", runs=where, done=tracker.done, total=total)
    cut = ", ".join(f"{w['run_id']} in stage {w['stage'] or 'before its first'}" for w in where) or "no run in flight"
    return BatchInterrupted(
        f"interrupted: {cut}; {tracker.done} of {total} runs done. Run the same command to resume: finished runs "
        "and stages are kept, the interrupted stage starts again."
    )
