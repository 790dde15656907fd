"""max_concurrent: runs in flight call one model up to that many at once (a semaphore, not a lock), and the
records do not depend on it. Four scripted runs in the real Docker sandbox, one at a time and four in flight
at concurrency 4 and 2; every answer waits a little so that calls overlap when the semaphore lets them."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from executor_support import events, no_stage_twice, run_files
from runner_support import SANDBOX_LIMITS, answers, implementation, make_tiny_corpus, write_script

RUNS = ("scripted-r01", "scripted-r02", "scripted-r03", "scripted-r04")
DELAY_S = 0.4


class CountingOpener:
    """Opens the real scripted backend; every chat waits DELAY_S and counts how many calls are inside at once."""

    def __init__(self) -> None:
        self.inside = 0
        self.peak = 0
        self._lock = threading.Lock()
        self.concurrency: list[int] = []

    def __call__(self, spec, options):
        from bakeoff.runner.executors.common import default_open_backend

        self.concurrency.append(options.max_concurrent)
        return _Counted(default_open_backend(spec, options), self)

    def enter(self) -> None:
        with self._lock:
            self.inside += 1
            self.peak = max(self.peak, self.inside)

    def leave(self) -> None:
        with self._lock:
            self.inside -= 1


class _Counted:
    def __init__(self, inner, counter: CountingOpener) -> None:
        self._inner, self._counter = inner, counter
        self.identity = inner.identity

    def chat(self, messages, *, key, settings):
        self._counter.enter()
        try:
            time.sleep(DELAY_S)
            return self._inner.chat(messages, key=key, settings=settings)
        finally:
            self._counter.leave()

    def close(self) -> None:
        self._inner.close()


def _batch(root: Path, out: str, script: Path, corpus: Path, parallel: int, max_concurrent: int | None):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.executors.local import LocalExecutor
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    options = {} if max_concurrent is None else {"max_concurrent": max_concurrent}
    plan = plan_from_mapping({"models": [{"spec": f"scripted:{script}", "label": "scripted"}], "corpus": str(corpus),
                              "runs": len(RUNS), "sandbox": "docker", "seed": 3, "limits": SANDBOX_LIMITS,
                              "task_settings": {"smoke_rows": 50}, "model_options": options}, root)
    opener = CountingOpener()
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    result = run_plan(plan, BatchOptions(out_dir=root / out, wheelhouse=wheelhouse, executor=LocalExecutor(parallel),
                                         open_backend=opener))
    assert result.failed == 0, [r.error for r in result.records]
    return root / out, opener


@pytest.mark.docker
@pytest.mark.slow
def test_records_are_the_same_at_concurrency_one_and_four(tmp_path):
    corpus = make_tiny_corpus(tmp_path / "corpus")
    # One backend serves all four runs in flight: the script holds a copy of the answers for each.
    script = write_script(tmp_path / "answers.jsonl", answers(implementation()), copies=len(RUNS))
    one, sequential = _batch(tmp_path, "one", script, corpus, parallel=1, max_concurrent=None)
    four, wide = _batch(tmp_path, "four", script, corpus, parallel=4, max_concurrent=4)
    two, narrow = _batch(tmp_path, "two", script, corpus, parallel=4, max_concurrent=2)
    assert sequential.peak == 1 and sequential.concurrency == [1]
    assert wide.concurrency == [4] and 2 <= wide.peak <= 4  # calls really overlapped
    assert narrow.concurrency == [2] and narrow.peak == 2  # the semaphore held them to two
    reference = run_files(one, RUNS)
    assert run_files(four, RUNS) == reference  # field by field, times and places aside
    assert run_files(two, RUNS) == reference
    no_stage_twice(events(four))
