"""Unattended batches: interleaved runs handed to an executor (bakeoff.runner.executors), resume, refusal of a changed plan.

A batch folder holds batch.json (the plan it was started with); starting again on
the same folder continues where it stopped. A failing run, model or sandbox is
recorded and the batch goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bakeoff.batchfolder.files import Journal, WriteCounter, is_disk_full, out_of_disk, utc_now, write_atomic_text
from bakeoff.batchfolder.layout import BatchLayout
from bakeoff.batchfolder.lock import batch_lock
from bakeoff.batchfolder.records import read_batch_record, read_run_record, write_batch_record
from bakeoff.errors import BakeoffError
from bakeoff.records import BatchRecord, CodeVersion, RunRecord, RunStatus
from bakeoff.runner.executors.common import Opener, default_open_backend
from bakeoff.runner.executors.local import LocalExecutor
from bakeoff.runner.fingerprint import check_fingerprint, corpus_fingerprint
from bakeoff.runner.plan import Plan, PlanChanged, RunSlot, plan_differences, run_order
from bakeoff.runner.run import BatchEnv, is_finished
from bakeoff.runner.scaffold import Scaffold, ScaffoldSettingsError
from bakeoff.taskapi.corpus import CorpusFiles
from bakeoff.taskapi.plugin import EvaluateHook, TaskPlugin
from bakeoff.taskapi.spec import TaskSpec


class BatchFolderUnusable(BakeoffError):
    """The batch folder cannot be made or written (a path under /proc, a file in the way, no permission)."""


class ProgressSink(Protocol):
    """Told what the batch is doing (the live display implements it; tests may ignore it)."""

    def batch_started(self, slots: list[RunSlot], finished: set[str]) -> None: ...
    def run_started(self, slot: RunSlot) -> None: ...
    def stage_started(self, run_id: str, stage: str) -> None: ...
    def run_finished(self, slot: RunSlot, record: RunRecord) -> None: ...


class SilentProgress:
    def batch_started(self, slots, finished) -> None:
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
    # The plan's scaffolds by name, resolved by the caller (bakeoff.scaffolds.registry); None: staged alone.
    scaffolds: Mapping[str, Scaffold] | None = None


@dataclass(frozen=True)
class BatchResult:
    batch_dir: Path
    records: tuple[RunRecord, ...]

    @property
    def failed(self) -> int:
        return sum(1 for r in self.records if r.status != RunStatus.FINISHED)


def code_version() -> CodeVersion:
    """bakeoff's version and, when it runs from a git checkout, the commit (recorded with every result)."""
    from bakeoff import __version__

    try:
        import git

        repo = git.Repo(Path(__file__).resolve().parents[2])
        return CodeVersion(__version__, repo.head.commit.hexsha, repo.is_dirty(untracked_files=False))
    except Exception:  # noqa: BLE001 - an installed copy has no repository; the version is enough
        return CodeVersion(__version__)


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
                      corpus: CorpusFiles | None = None) -> BatchRecord:
    """Create the batch folder's records, or check that an existing one was started with this plan and corpus."""
    layout = BatchLayout(options.out_dir)
    if layout.is_batch():
        stored = read_batch_record(layout.record)
        if stored.plan_sha256 != plan.sha256():
            changes = plan_differences(stored.plan.to_dict(), plan.to_dict())
            raise PlanChanged(
                f"{options.out_dir} was started with another plan; refusing to mix results. "
                f"Changed: {'; '.join(changes)}. Use a new --out folder, or the original plan."
            )
        if corpus is not None and stored.corpus_sha256 is not None:  # older batches have none
            check_fingerprint(corpus, dict(stored.corpus_sha256))
        return stored
    if options.plan_text is not None:
        write_atomic_text(layout.plan_file, options.plan_text, counter)
    batch = BatchRecord(
        plan=plan,
        plan_sha256=plan.sha256(),
        order=tuple(slot.run_id for slot in run_order(plan)),
        created_at=utc_now(),
        code_version=code_version(),
        corpus_sha256=corpus_fingerprint(corpus) if corpus is not None else None,
    )
    write_batch_record(layout.record, batch, counter)
    return batch


def run_batch(plan: Plan, plugin: TaskPlugin, options: BatchOptions, progress: ProgressSink | None = None) -> BatchResult:
    """Run (or continue) the batch in options.out_dir, holding the folder's writer lock throughout.

    `plugin` is the plan's task, resolved by the caller (the command line) and handed down to every run."""
    from bakeoff.runner.model_entries import check_context
    from bakeoff.taskapi.spec import MODEL_STAGES

    task = plugin.spec(plan.task_settings)
    check_context(plan.models, plan.model_options, task.settings, MODEL_STAGES)  # before anything is written
    check_scaffolds(plan, task, options.scaffolds)
    make_batch_folder(options.out_dir)
    with batch_lock(options.out_dir):
        return _run_locked(plan, plugin, task, options, progress or SilentProgress())


def check_scaffolds(plan: Plan, task: TaskSpec, scaffolds: Mapping[str, Scaffold] | None) -> None:
    """Every scaffold the plan runs was handed, and takes the plan's settings for it (PlanError otherwise)."""
    from bakeoff.runner.plan import PlanError
    from bakeoff.runner.stages import STAGED

    handed = dict(scaffolds) if scaffolds is not None else {STAGED.name: STAGED}
    missing = [name for name in plan.scaffolds if name not in handed]
    if missing:
        raise PlanError(f"the plan runs scaffold(s) {', '.join(missing)}, which the batch was not handed")
    for name in plan.scaffolds:
        try:
            handed[name].check_settings(dict(plan.scaffold_settings.get(name, {})), task)
        except ScaffoldSettingsError as exc:
            raise PlanError(f"bad [scaffold_settings.{name}]: {exc}") from None


def _run_locked(plan: Plan, plugin: TaskPlugin, task: TaskSpec, options: BatchOptions, progress: ProgressSink) -> BatchResult:
    counter = WriteCounter.from_environment()
    corpus = plugin.corpus_files(Path(plan.corpus))
    batch = open_batch_folder(plan, options, counter, corpus)
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
        scaffolds=options.scaffolds,
    )
    slots = run_order(plan)
    finished = {slot.run_id for slot in slots if is_finished(env.run_dir(slot.run_id))}
    progress.batch_started(slots, finished)
    journal.append("batch_started", runs=len(slots), already_finished=len(finished))
    opener = options.open_backend or default_open_backend
    executor = options.executor or LocalExecutor()
    executor.run(env, [slot for slot in slots if slot.run_id not in finished], opener, progress)
    records = tuple(read_run_record(env.layout.run(slot.run_id).record) for slot in slots)
    journal.append("batch_done", failed=sum(1 for r in records if r.status != RunStatus.FINISHED))
    return BatchResult(options.out_dir, records)
