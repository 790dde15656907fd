"""Threads follow the work and a model's concurrency is a plan option: the rule (bakeoff.models.scheduling),
the engine and max_concurrent options as a plan checks them, and max_concurrent kept out of the plan's identity."""

from __future__ import annotations

from pathlib import Path

import pytest

from bakeoff.models.registry import BackendOptions
from bakeoff.models.scheduling import (
    busy_cores,
    default_threads,
    engine_threads,
    ray_run_threads,
    scheduled_options,
    usable_cores,
)
from bakeoff.runner.model_entries import ModelEntryError
from bakeoff.runner.plan import PlanError, plan_from_mapping

GGUF = "gguf:/models/qwen3-8b.Q4_K_M.gguf"
OPENAI = "openai:http://127.0.0.1:8080/v1#qwen3"


def plan(models, **more):
    return plan_from_mapping({"models": models, "corpus": "c", **more}, Path("/base"))


@pytest.mark.parametrize("cores, in_flight, sandbox_cpus, busy, threads", [
    (2, 1, 2.0, 0, 2),  # the sequential loop on an idle machine: nothing runs beside the engine, every core
    (16, 1, 1.0, 0, 16),
    (2, 2, 1.0, 0, 1),  # one sandbox beside the engine: one core each
    (2, 4, 1.0, 0, 1),  # never fewer than one, never all of them
    (16, 4, 2.0, 0, 10),  # three sandboxes of 2 cores each keep 6
    (16, 3, 0.5, 0, 15),
    (1, 4, 1.0, 0, 1),
    (2, 1, 2.0, 2, 1),  # other work keeps both cores busy: one thread, not two stalling at every barrier
    (16, 1, 1.0, 3, 13),
    (16, 4, 2.0, 3, 10),  # the sandboxes' share covers the busy cores already
    (16, 4, 2.0, 8, 8),
])
def test_the_engine_keeps_the_cores_the_sandboxes_and_other_work_leave_free(cores, in_flight, sandbox_cpus, busy,
                                                                            threads):
    assert engine_threads(cores, in_flight, sandbox_cpus, busy) == threads


def test_scheduled_options_set_threads_and_concurrency_unless_the_plan_does():
    sized = scheduled_options(BackendOptions(n_ctx=4096), in_flight=1, sandbox_cpus=2.0, cores=8, busy=0)
    assert sized == BackendOptions(n_ctx=4096, n_threads=8, n_threads_batch=8, max_concurrent=1)
    # The plan's own counts win; the prompt threads still follow the rule when only n_threads is given.
    sized = scheduled_options(BackendOptions(n_threads=3, max_concurrent=4), in_flight=2, sandbox_cpus=2.0, cores=8,
                              busy=1)
    assert sized == BackendOptions(n_threads=3, n_threads_batch=6, max_concurrent=2)  # no more slots than runs to ask
    assert scheduled_options(BackendOptions(max_concurrent=4), 8, 1.0, cores=8, busy=0).max_concurrent == 4
    assert ray_run_threads(0.5) == 1 and ray_run_threads(4.0) == 4


def test_busy_cores_are_read_from_the_machine():
    cores = usable_cores()
    assert cores >= 1
    assert 0 <= busy_cores(cores=cores) <= cores
    assert 1 <= default_threads() <= cores


def test_engine_and_max_concurrent_are_plan_options_checked_at_load():
    resolved = plan([{"spec": GGUF, "engine": "server", "max_concurrent": 4}, {"spec": OPENAI, "max_concurrent": 8}],
                    model_options={"engine": "binding"})
    assert [dict(m.options) for m in resolved.models] == [{"engine": "server", "max_concurrent": 4},
                                                           {"max_concurrent": 8}]
    with pytest.raises(PlanError, match="engine must be one of binding, server, got 'vllm'"):
        plan([GGUF], model_options={"engine": "vllm"})
    with pytest.raises(PlanError, match="max_concurrent must be a whole number > 0, got 0"):
        plan([OPENAI], model_options={"max_concurrent": 0})
    with pytest.raises(ModelEntryError, match="engine is not an option of its backend"):
        plan([{"spec": OPENAI, "engine": "server"}])


def test_the_in_process_engine_refuses_more_than_one_generation_at_once():
    with pytest.raises(PlanError, match=r"max_concurrent = 2: the in-process engine .* set engine = \"server\""):
        plan([{"spec": GGUF, "max_concurrent": 2}])
    with pytest.raises(PlanError, match="max_concurrent = 3"):
        plan(["default"], model_options={"max_concurrent": 3})
    plan(["default"], model_options={"max_concurrent": 3, "engine": "server"})
    plan([{"spec": "scripted:/x.jsonl", "max_concurrent": 4}])  # scripted stands in for any backend


def test_max_concurrent_is_not_part_of_the_plans_identity_but_the_engine_is():
    base = plan([{"spec": GGUF, "engine": "server"}, OPENAI])
    wider = plan([{"spec": GGUF, "engine": "server", "max_concurrent": 4}, OPENAI], model_options={"max_concurrent": 2})
    assert wider.sha256() == base.sha256()  # a batch resumes under another concurrency: records never depend on it
    assert plan([GGUF, OPENAI]).sha256() != base.sha256()  # another engine is another contender
