"""What every executor shares: the Executor protocol, opening a backend, a run that could not start."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from bakeoff.batchfolder.files import utc_now
from bakeoff.batchfolder.records import finished_stages, write_run_record
from bakeoff.models.base import ModelBackend
from bakeoff.models.registry import BackendOptions, open_backend
from bakeoff.models.spec import ModelSpec
from bakeoff.records import ModelEntry, RunRecord
from bakeoff.runner.plan import RunSlot
from bakeoff.runner.run import BatchEnv
from bakeoff.runner.summary import run_summary


class StatedScheduling(msgspec.Struct):
    """The scheduling option a plan's option tables may state (the rest are the backend's): None where none is."""

    max_concurrent: int | None = None


# Opens a plan's model: its parsed spec and the options made at plan load (the task's context filled in).
Opener = Callable[[ModelSpec, BackendOptions], ModelBackend]


class Executor(Protocol):
    def run(self, env: BatchEnv, slots: list[RunSlot], opener: Opener, progress: Any) -> None:
        """Run (or finish) `slots`, given in the interleaved order; every one ends with a run.json."""


def default_open_backend(spec: ModelSpec, options: BackendOptions) -> ModelBackend:
    return open_backend(spec, options)


def declared_max_concurrent(env: BatchEnv, model: ModelEntry) -> int | None:
    """The max_concurrent the plan states for the model (its own, else [model_options]); None where it states none."""
    stated = {**env.plan.model_options, **dict(model.options)}
    return msgspec.convert(stated, StatedScheduling).max_concurrent  # checked where the plan was loaded


def model_backend_options(env: BatchEnv, model: ModelEntry, in_flight: int = 1, cores: int | None = None,
                          busy: int | None = None) -> BackendOptions:
    """What the plan's model is opened with in this batch: its options (the task's context filled in), with threads
    and concurrency sized for `in_flight` runs sharing it on `cores` cores of which other work keeps `busy` busy
    (None: this machine's, measured now; bakeoff.models.scheduling states the rule)."""
    from bakeoff.models.scheduling import scheduled_options

    declared = model.opening_options(env.task.settings.context_tokens)
    return scheduled_options(declared, in_flight, env.plan.limits.cpus, cores, busy)


def load_failure(exc: BaseException) -> str:
    return f"model failed to load: {type(exc).__name__}: {exc}"


def record_unstarted_failure(env: BatchEnv, slot: RunSlot, error: str) -> RunRecord:
    """A run that could not start (its model failed to load, no node could take it): recorded, the batch moves on."""
    run_dir = env.run_dir(slot.run_id)
    record = run_summary(env, slot, finished_stages(run_dir), utc_now(), error, env.plan.sandbox, None)
    write_run_record(run_dir, record, env.counter)
    env.journal.append("run_failed", run_id=slot.run_id, error=error)
    return record
