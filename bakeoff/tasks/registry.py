"""Tasks by name: the registry of task values. A lookup imports the task's module only when it is asked for."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from bakeoff.errors import BakeoffError, did_you_mean
from bakeoff.records.manifest import ManifestHead
from bakeoff.taskapi.corpus import CorpusFolderMissing
from bakeoff.taskapi.task import Task

__all__ = ["DEFAULT_TASK", "CorpusFolderMissing", "CorpusTaskMismatch", "CorpusTaskUnknown", "SubmissionOfOtherTask",
           "UnknownTask", "check_submission_task", "corpus_task", "plugin_for_batch", "report_batch", "run_plan",
           "task_names", "task_of_corpus", "task_plugin"]

if TYPE_CHECKING:
    from bakeoff.records import Plan
    from bakeoff.report.build import ReportFiles
    from bakeoff.runner.batch import BatchOptions, BatchResult, ProgressSink

# name -> "module:VALUE", the Task value of bakeoff/tasks/<task>/. A task adds one line here (docs/tasks.md,
# "Adding a task").
_PLUGINS: dict[str, str] = {
    "spam_classifier": "bakeoff.tasks.spam_classifier.plugin:TASK",
    "ab_test": "bakeoff.tasks.ab_test.plugin:TASK",
    "simulation": "bakeoff.tasks.simulation.plugin:TASK",
    "demand_forecast": "bakeoff.tasks.demand_forecast.plugin:TASK",
}
DEFAULT_TASK = "spam_classifier"  # what a plan or a corpus that names no task runs (a plan records it as "")



class UnknownTask(BakeoffError):
    """A task name that no task answers to."""


def task_names() -> tuple[str, ...]:
    return tuple(_PLUGINS)


def task_plugin(name: str) -> Task:
    """The task `name`; UnknownTask naming the known ones otherwise."""
    target = _PLUGINS.get(name)
    if target is None:
        raise UnknownTask(f"no task named {name!r}; known tasks: {', '.join(task_names())}" + did_you_mean(name, task_names()))
    module, attribute = target.split(":")
    task = getattr(import_module(module), attribute)
    if not isinstance(task, Task) or task.name != name:
        raise UnknownTask(f"{target} is not the task {name!r}")
    return task


class CorpusTaskUnknown(BakeoffError):
    """A corpus folder whose manifest names no task bakeoff knows (give --task)."""


class CorpusTaskMismatch(BakeoffError):
    """--task (or a plan's `task`) names another task than the corpus's manifest: the data is not that task's."""


class SubmissionOfOtherTask(BakeoffError):
    """A submission folder holds another task's script and not this task's (a spam pipeline on A/B-test data)."""


def task_of_corpus(folder: Path) -> str:
    """The task whose data `folder` holds, read from its manifest.json (_manifest_task); the default task when
    there is no manifest, whose corpus check then names what the folder lacks."""
    return _manifest_task(Path(folder)) or DEFAULT_TASK


def corpus_task(folder: Path, asked: str | None = None) -> str:
    """The task of the corpus `folder`, the one rule every command that takes a corpus follows: its manifest
    decides; `asked` (--task, a plan's `task`) only checks it. CorpusFolderMissing when there is no such folder,
    CorpusTaskMismatch when `asked` is another task than the manifest's. With no manifest (or one naming no task
    bakeoff knows), `asked` is believed, else the default task."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CorpusFolderMissing(f"corpus folder {folder} does not exist; make one with `bakeoff generate`")
    if asked is not None:
        task_plugin(asked)  # UnknownTask naming the known ones
    try:
        named = _manifest_task(folder)
    except CorpusTaskUnknown:
        if asked is None:
            raise
        return asked
    if asked is not None and named is not None and asked != named:
        raise CorpusTaskMismatch(f"the corpus {folder} holds {named} data (its manifest.json), not {asked}: "
                                 f"leave the task out to take it from the corpus, or give a {asked} corpus")
    return named or asked or DEFAULT_TASK


def _manifest_task(folder: Path) -> str | None:
    """The task named by `folder`/manifest.json: its `task`, else the task whose generator wrote it
    (`generator_version` "spam-1.0" is the task whose `generator` is "spam"); None when there is no manifest."""
    import durable

    path = folder / "manifest.json"
    try:
        manifest = durable.read_json(path)
    except FileNotFoundError:
        return None
    except (OSError, durable.UntrustedJSON) as exc:
        raise CorpusTaskUnknown(f"cannot read {path} to learn the corpus's task ({exc}); give --task") from None
    head = ManifestHead.of(manifest)
    if head.task in _PLUGINS:
        return head.task
    version = head.generator_version
    for name in task_names():
        generator = task_plugin(name).generator
        if generator and version is not None and version.startswith(f"{generator}-"):
            return name
    raise CorpusTaskUnknown(f"{path} names no task bakeoff knows (generator {version!r}); give --task "
                            f"({', '.join(task_names())})")


def check_submission_task(repo: Path, task: str) -> None:
    """SubmissionOfOtherTask when the folder `repo` lacks `task`'s script and holds another task's (what the
    hidden step of each would run): graded, it would only say "analyze.py is missing". A folder with neither
    is graded as it is (a submission of this task that forgot its script)."""
    def present(name: str) -> bool:  # the name alone: nothing in the folder is opened or followed
        return bool(name) and ((Path(repo) / name).is_symlink() or (Path(repo) / name).exists())

    own = task_plugin(task).script
    if present(own):
        return
    for other in task_names():
        script = task_plugin(other).script
        if other != task and script != own and present(script):
            raise SubmissionOfOtherTask(f"{repo} holds {script} and no {own}: a {other} submission, but the corpus "
                                        f"is {task} data; score it against a {other} corpus")


def plugin_for_batch(batch_dir: Path) -> Task:
    """The task a batch folder ran (its batch.json's plan)."""
    from bakeoff.batchfolder.layout import BatchLayout
    from bakeoff.batchfolder.read import BatchFolderError
    from bakeoff.batchfolder.records import read_batch_record
    from bakeoff.records import DamagedRecord, UnknownRecordSchema

    layout = BatchLayout(Path(batch_dir))
    if not layout.is_batch():
        raise BatchFolderError(f"{batch_dir} is not a batch folder (no batch.json)")
    try:
        record = read_batch_record(layout.record)
    except (DamagedRecord, UnknownRecordSchema) as exc:
        raise BatchFolderError(str(exc)) from None
    return task_plugin(record.plan.task or DEFAULT_TASK)


def report_batch(batch_dir: Path, out_dir: Path | None = None, bootstrap_seed: int = 0) -> ReportFiles:
    """`bakeoff report DIR` as a library call: the report of a batch, with the task it ran."""
    from bakeoff.report.build import write_report

    return write_report(batch_dir, plugin_for_batch(batch_dir), out_dir, bootstrap_seed)


def run_plan(plan: Plan, options: BatchOptions, progress: ProgressSink | None = None) -> BatchResult:
    """`bakeoff run` as a library call: the batch of `plan`, with the task it names."""
    from dataclasses import replace

    from bakeoff.runner.batch import run_batch
    from bakeoff.scaffolds.registry import scaffolds_for

    if options.scaffolds is None:  # the plan's scaffolds, by name, as its task is
        options = replace(options, scaffolds=scaffolds_for(plan.scaffolds))
    return run_batch(plan, task_plugin(plan.task or DEFAULT_TASK), options, progress)
