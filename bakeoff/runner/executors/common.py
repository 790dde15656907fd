"""What every executor shares: the Executor protocol, opening a backend, a run that could not start."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from bakeoff.records import RunRecord
from bakeoff.runner.plan import RunSlot
from bakeoff.runner.record_files import finished_stages, write_run_record
from bakeoff.runner.records import utc_now
from bakeoff.runner.run import BatchEnv
from bakeoff.runner.summary import run_summary

Opener = Callable[[str, Mapping[str, Any]], Any]


class Executor(Protocol):
    def run(self, env: BatchEnv, slots: list[RunSlot], opener: Opener, progress: Any) -> None:
        """Run (or finish) `slots`, given in the interleaved order; every one ends with a run.json."""


def default_open_backend(spec: str, model_options: Mapping[str, Any]):
    from bakeoff.models.registry import BackendOptions, open_backend

    return open_backend(spec, BackendOptions(**dict(model_options)))


def declared_backend_options(env: BatchEnv, model) -> dict[str, Any]:
    """A model's options as the plan states them (shared, its own, its reasoning mode, the task's context)."""
    from bakeoff.runner.model_entries import backend_options

    return backend_options(env.plan.model_options, model.options, model.reasoning, env.task.settings.context_tokens)


def model_backend_options(env: BatchEnv, model, in_flight: int = 1, cores: int | None = None,
                          busy: int | None = None) -> dict[str, Any]:
    """What a model is opened with: its declared options, threads and concurrency sized for `in_flight` runs
    sharing it on `cores` cores of which other work keeps `busy` busy (None: this machine's, measured now;
    bakeoff.models.scheduling states the rule)."""
    from bakeoff.models.scheduling import scheduled_options

    return scheduled_options(declared_backend_options(env, model), in_flight, env.plan.limits.cpus, cores, busy)


def load_failure(exc: BaseException) -> str:
    return f"model failed to load: {type(exc).__name__}: {exc}"


def record_unstarted_failure(env: BatchEnv, slot: RunSlot, error: str) -> RunRecord:
    """A run that could not start (its model failed to load, no node could take it): recorded, the batch moves on."""
    run_dir = env.run_dir(slot.run_id)
    record = run_summary(env, slot, finished_stages(run_dir), utc_now(), error, env.plan.sandbox, None)
    write_run_record(run_dir, record, env.counter)
    env.journal.append("run_failed", run_id=slot.run_id, error=error)
    return record
