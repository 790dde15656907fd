"""The Ray side of a run: the driver's desk (an actor) and the task that runs one run on a worker node.

The task runs the run exactly as the local executor would (execute_run), in a scratch folder on its node,
with a journal that hands each event and each finished stage to the desk; the driver takes them from the
desk and publishes them. A retried attempt (its worker died) asks the desk for the run's state, which is
what the driver held when the run was submitted plus every stage handed back since, and continues from there.
Nothing here imports Ray at module level: the driver decorates these with ray.remote.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import durable
from bakeoff.models.registry import BackendOptions
from bakeoff.records import CodeVersion
from bakeoff.runner.executors.handback import ParcelMaker, RunState, restore_state
from bakeoff.runner.model_entries import spec_of
from bakeoff.runner.plan import Plan, RunSlot
from bakeoff.runner.scaffold import Scaffold
from bakeoff.taskapi.parts import EvaluateHook
from bakeoff.taskapi.task import Task


class Desk:
    """Where workers hand back events and stages, and a retried attempt finds the run's state (one per batch)."""

    def __init__(self) -> None:
        self._states: dict[str, RunState] = {}
        self._attempts: dict[str, int] = {}
        self._outbox: list[tuple[str, dict]] = []

    def open_run(self, run_id: str, state: RunState) -> None:
        self._states[run_id] = state

    def begin(self, run_id: str) -> tuple[int, RunState]:
        self._attempts[run_id] = self._attempts.get(run_id, 0) + 1
        return self._attempts[run_id], self._states[run_id]

    def post(self, run_id: str, message: dict) -> None:
        if message["kind"] == "stage":
            self._states[run_id] = self._states[run_id].plus(message["parcel"])
        self._outbox.append((run_id, message))

    def take(self) -> list[tuple[str, dict]]:
        taken, self._outbox = self._outbox, []
        return taken

    def close_run(self, run_id: str) -> None:
        self._states.pop(run_id, None)


@dataclass(frozen=True)
class RunJob:
    """Everything a worker needs for one run (pickled by Ray)."""

    slot: RunSlot
    plan: Plan
    plugin: Task  # the task the driver was handed (a frozen value of module-level parts, pickled with the job)
    batch_id: str
    code_version: CodeVersion
    corpus_folder: str
    corpus_manifest_sha256: str | None
    wheelhouse: str | None
    sandbox_options: Mapping[str, Any]
    evaluate_hooks: Mapping[str, EvaluateHook]
    scaffold: Scaffold  # the slot's, as the driver was handed it (pickled with the job: a class with no state)
    model_options: BackendOptions
    model_sha256: str | None
    opener: Callable

    @property
    def run_id(self) -> str:
        return self.slot.run_id


@dataclass(frozen=True)
class Outcome:
    """What the task returns: enough for the driver to write the run record as execute_run would."""

    error: str | None
    unstarted: bool = False  # the run never began (node check, model load): no stage ran
    isolation: str | None = None
    identity: str | None = None
    started_at: str | None = None
    node: str | None = None


class ForwardingJournal:
    """A journal whose lines go to the desk; a `stage_done` carries the stage's parcel."""

    def __init__(self, post: Callable[[dict], None], run_id: str, maker: ParcelMaker) -> None:
        self._post, self._run_id, self._maker = post, run_id, maker

    def append(self, event: str, **fields: Any) -> None:
        if event == "stage_done":
            self._post({"kind": "stage", "parcel": self._maker.parcel(self._run_id, fields["stage"])})
        elif event not in ("run_done", "run_failed"):  # the driver writes the run record and its event
            self._post({"kind": "event", "event": event, "fields": fields})


def _local_corpus(job: RunJob, corpus_box: list):
    """The corpus at the driver's path when this node has the same one (manifest sha256), else a copy from Ray."""
    import ray

    from bakeoff.taskapi.corpus import CorpusError, CorpusFiles

    layout = job.plugin.corpus_layout()
    try:
        here = CorpusFiles.from_folder(Path(job.corpus_folder), layout)
        if here.manifest_sha256() == job.corpus_manifest_sha256:
            return here
    except CorpusError:
        pass
    root = Path(os.environ.get("BAKEOFF_CACHE") or Path.home() / ".cache" / "bakeoff") / "corpora"
    target = root / (job.corpus_manifest_sha256 or job.batch_id)
    if not target.is_dir():
        files = ray.get(corpus_box[0])
        # Whole or absent: a worker killed while copying leaves no half corpus; another worker finished first wins.
        with durable.staged_folder(target, if_exists=durable.IfExists.KEEP, mode=0o700) as building:
            for name, data in files.items():  # a path in the corpus folder (a task's data may have folders)
                (building / name).parent.mkdir(parents=True, exist_ok=True)
                (building / name).write_bytes(data)
    return CorpusFiles.from_folder(target, layout)


def _wheelhouse(job: RunJob) -> Path:
    if job.wheelhouse and Path(job.wheelhouse).is_dir():
        return Path(job.wheelhouse)
    from sandbox.wheelhouse import default_wheelhouse

    folder = default_wheelhouse()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _node_ip(ray) -> str | None:
    """The address this node registered with the cluster."""
    here = ray.get_runtime_context().get_node_id()
    return next((node.get("NodeManagerAddress") for node in ray.nodes() if node.get("NodeID") == here), None)


def run_attempt(desk, job: RunJob, corpus_box: list) -> Outcome:
    """One attempt at one run on this node (the body of the Ray task)."""
    import ray

    from bakeoff.runner.executors.node import (
        BATCH_LABEL,
        RUN_LABEL,
        NodeCannotRun,
        check_node,
        node_name,
        node_sandbox_options,
        remove_run_containers,
    )

    node = node_name(ray.get_runtime_context().get_node_id())
    attempt, state = ray.get(desk.begin.remote(job.run_id))
    removed = remove_run_containers(job.batch_id, job.run_id) if job.plan.sandbox == "docker" else 0
    ray.get(desk.post.remote(job.run_id, {"kind": "placed", "node": node, "worker_pid": os.getpid(),
                                          "node_ip": _node_ip(ray),
                                          "attempt": attempt, "containers_removed": removed}))
    options = node_sandbox_options(job.plan.sandbox, job.sandbox_options)
    try:
        check_node(node, job.plan.sandbox, options, spec_of(job.slot.model), job.model_sha256)
    except NodeCannotRun as exc:
        return Outcome(f"{type(exc).__name__}: {exc}", unstarted=True, node=node)
    if job.plan.sandbox == "docker":
        options["labels"] = {BATCH_LABEL: job.batch_id, RUN_LABEL: job.run_id}
    scratch = Path(tempfile.mkdtemp(prefix=f"bakeoff-{job.run_id}-"))
    try:
        return _run_in(scratch, desk, job, state, options, node, corpus_box)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_in(scratch: Path, desk, job: RunJob, state: RunState, options: dict, node: str, corpus_box: list) -> Outcome:
    import ray

    from bakeoff.batchfolder.files import WriteCounter
    from bakeoff.batchfolder.layout import BatchLayout
    from bakeoff.runner.executors.common import load_failure
    from bakeoff.runner.run import BatchEnv, execute_run

    run_dir = BatchLayout(scratch).run(job.run_id).folder
    restore_state(run_dir, state)
    post = lambda message: ray.get(desk.post.remote(job.run_id, message))  # noqa: E731 - synchronous: held before going on
    env = BatchEnv(
        plan=job.plan, plugin=job.plugin, task=job.plugin.spec(job.plan.task_settings),
        corpus=_local_corpus(job, corpus_box),
        batch_dir=scratch, journal=ForwardingJournal(post, job.run_id, ParcelMaker(run_dir, state.last_sha())),
        counter=WriteCounter(None), code_version=job.code_version, wheelhouse=_wheelhouse(job),
        sandbox_options=options, evaluate_hooks=job.evaluate_hooks, scaffolds={job.slot.scaffold: job.scaffold},
    )
    try:
        backend = job.opener(spec_of(job.slot.model), job.model_options)
    except Exception as exc:  # noqa: BLE001 - a broken model is the run's failure, as under the local executor
        return Outcome(load_failure(exc), unstarted=True, node=node)
    try:
        record = execute_run(env, job.slot, backend)
    finally:
        backend.close()
    return Outcome(record.error, isolation=record.isolation, identity=getattr(backend, "identity", None),
                   started_at=record.timings.started_at, node=node)
