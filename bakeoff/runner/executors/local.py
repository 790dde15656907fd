"""The local executor: runs in this process, one at a time (today's loop) or `parallel` at once in threads.

One at a time, a model is loaded once per block of its consecutive runs. With several runs in flight,
a loaded model is shared by its runs in flight and serves at most `max_concurrent` generations at once
(a semaphore; 1 unless the model is an endpoint or the batching server engine), so while one run's code
executes in its sandbox the engine answers others; results do not depend on the overlap (every call
carries its own seed). This module never imports Ray.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import replace
from itertools import groupby
from pathlib import Path
from typing import Any

from bakeoff.batchfolder.files import Journal, WriteCounter
from bakeoff.runner.executors.common import (
    Opener,
    load_failure,
    model_backend_options,
    record_unstarted_failure,
)
from bakeoff.runner.model_entries import spec_of
from bakeoff.runner.plan import RunSlot
from bakeoff.runner.run import BatchEnv, execute_run


def _check_corpus(env: BatchEnv) -> None:
    from bakeoff.runner.fingerprint import check_fingerprint

    if env.corpus_sha256 is not None:
        check_fingerprint(env.corpus, env.corpus_sha256)  # before every run: a changed key stops the batch


class LocalExecutor:
    def __init__(self, parallel: int = 1) -> None:
        self.parallel = max(1, int(parallel))

    def run(self, env: BatchEnv, slots: list[RunSlot], opener: Opener, progress) -> None:
        if self.parallel == 1:
            for model, block in groupby(slots, key=lambda slot: slot.model):
                _run_block(env, model, list(block), opener, progress)
            return
        _run_parallel(env, slots, opener, progress, self.parallel)


def _run_block(env: BatchEnv, model, slots: list[RunSlot], opener: Opener, progress) -> None:
    """The model is loaded once for this block of its runs; a model that fails to load fails its runs only."""
    try:
        backend = opener(spec_of(model), model_backend_options(env, model))
    except Exception as exc:  # noqa: BLE001 - a broken model is recorded, the batch goes on
        for slot in slots:
            progress.run_started(slot)
            progress.run_finished(slot, record_unstarted_failure(env, slot, load_failure(exc)))
        return
    try:
        for slot in slots:
            _check_corpus(env)
            progress.run_started(slot)
            record = execute_run(env, slot, backend, on_stage=progress.stage_started)
            progress.run_finished(slot, record)
    finally:
        backend.close()


class _Locked:
    """Calls to the wrapped object, one at a time (progress display), or as many as a semaphore lets (a model)."""

    def __init__(self, inner: Any, lock: AbstractContextManager | None = None) -> None:
        self._inner = inner
        self._lock = lock or threading.Lock()

    def __getattr__(self, name: str):
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def locked(*args, **kwargs):
            with self._lock:
                return attribute(*args, **kwargs)

        return locked


class _LockedJournal(Journal):
    """The batch's journal, one call at a time."""

    def __init__(self, path: Path, counter: WriteCounter | None = None) -> None:
        super().__init__(path, counter)
        self._lock = threading.Lock()

    def append(self, event: str, **fields: Any) -> None:
        with self._lock:
            super().append(event, **fields)

    def entries(self) -> list[dict]:
        with self._lock:
            return super().entries()


class _LockedCounter(WriteCounter):
    def __init__(self, inner: WriteCounter) -> None:
        super().__init__(inner.kill_after)
        self.count = inner.count
        self._lock = threading.Lock()

    def wrote(self) -> None:
        with self._lock:
            super().wrote()


class _SharedModels:
    """One loaded backend per model while any of its runs is in flight; closed when the last one ends."""

    def __init__(self, env: BatchEnv, opener: Opener, in_flight: int) -> None:
        self._env, self._opener, self._in_flight = env, opener, in_flight
        self._lock = threading.Lock()
        self._open: dict[str, list] = {}  # label -> [locked backend, raw backend, users]

    def acquire(self, model):
        with self._lock:
            entry = self._open.get(model.label)
            if entry is None:
                options = model_backend_options(self._env, model, self._in_flight)
                raw = self._opener(spec_of(model), options)  # raises: the run's failure
                gate = threading.BoundedSemaphore(options.max_concurrent)
                entry = self._open[model.label] = [_Locked(raw, gate), raw, 0]
            entry[2] += 1
            return entry[0]

    def release(self, model) -> None:
        with self._lock:
            entry = self._open[model.label]
            entry[2] -= 1
            if entry[2] == 0:
                del self._open[model.label]
                entry[1].close()


def _run_parallel(env: BatchEnv, slots: list[RunSlot], opener: Opener, progress, parallel: int) -> None:
    journal = env.journal
    if not isinstance(journal, Journal):  # runs in this process append to the batch's own events file
        raise TypeError(f"the local executor runs on the batch's Journal, not a {type(journal).__name__}")
    counter = _LockedCounter(env.counter)
    env = replace(env, journal=_LockedJournal(journal.path, counter), counter=counter)
    progress = _Locked(progress)
    models = _SharedModels(env, opener, parallel)

    def one(slot: RunSlot) -> None:
        _check_corpus(env)
        progress.run_started(slot)
        try:
            backend = models.acquire(slot.model)
        except Exception as exc:  # noqa: BLE001 - a broken model fails this run, the batch goes on
            progress.run_finished(slot, record_unstarted_failure(env, slot, load_failure(exc)))
            return
        try:
            progress.run_finished(slot, execute_run(env, slot, backend, on_stage=progress.stage_started))
        finally:
            models.release(slot.model)

    # The pool takes the slots in the interleaved order: at most `parallel` in flight.
    with ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="bakeoff-run") as pool:
        try:
            for future in [pool.submit(one, slot) for slot in slots]:
                future.result()  # a harness bug (not a run's failure) still ends the batch loudly
        except KeyboardInterrupt:
            # SIGINT or SIGTERM: no further run starts; those in flight (threads cannot be interrupted) end
            # before the batch lets go of its folder, so no other writer can meet them there.
            pool.shutdown(wait=True, cancel_futures=True)
            raise
