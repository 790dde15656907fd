"""A failing model or sandbox is recorded and never stops the batch; a model is loaded once per block of its runs.

Parametrized over the take-homes (tests/task_cases.py): the interleaving and the failures are the same for each.
"""

from __future__ import annotations

import json

import pytest
from runner_support import write_script
from task_cases import CASE_IDS, CASES


@pytest.fixture(scope="module", params=CASES, ids=CASE_IDS)
def case(request):
    return request.param


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, case):
    return case.make_data(tmp_path_factory.mktemp(f"failures-{case.task}") / "corpus")


def make_plan(corpus, models, runs, sandbox="docker", task=None):
    from bakeoff.runner.plan import plan_from_mapping

    plan = {"models": models, "corpus": str(corpus), "runs": runs, "sandbox": sandbox}
    return plan_from_mapping({**plan, "task": task} if task else plan, corpus.parent)


class CountingOpener:
    """Records every model load; every load fails, as a missing or broken model would."""

    def __init__(self):
        self.loads = []

    def __call__(self, spec, options):
        from bakeoff.models.errors import ModelFileNotFound

        self.loads.append(spec.text)
        raise ModelFileNotFound(f"no such model: {spec}")


def test_models_are_loaded_once_per_block_and_failures_are_recorded(corpus, case, tmp_path):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.tasks import run_plan

    opener = CountingOpener()
    plan = make_plan(corpus, ["scripted:/missing/a.jsonl", "scripted:/missing/b.jsonl"], runs=2, task=case.plan_task)
    # preflight=None: a model whose file goes missing after the batch started (the preflight refuses a plan
    # whose file is missing at the start; see tests/test_preflight.py) fails its runs, not the batch.
    result = run_plan(plan, BatchOptions(out_dir=tmp_path / "two", open_backend=opener, preflight=None))
    # interleaved: a, b, a, b -> every block is one run
    assert opener.loads == ["scripted:/missing/a.jsonl", "scripted:/missing/b.jsonl"] * 2
    assert [r.run_id for r in result.records] == ["a-r01", "b-r01", "a-r02", "b-r02"]
    assert all(r["status"] == "harness_failed" and "model failed to load" in r["error"] for r in [r.to_json() for r in result.records])

    single = CountingOpener()
    solo = make_plan(corpus, ["scripted:/missing/solo.jsonl"], runs=3, task=case.plan_task)
    run_plan(solo, BatchOptions(out_dir=tmp_path / "one", open_backend=single, preflight=None))
    assert single.loads == ["scripted:/missing/solo.jsonl"]  # one block of three runs: one load


@pytest.mark.docker
def test_a_sandbox_that_cannot_open_fails_its_run_not_the_batch(corpus, case, tmp_path):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.tasks import run_plan

    script = write_script(tmp_path / "a.jsonl", case.working, copies=2)
    plan = make_plan(corpus, [f"scripted:{script}"], runs=2, task=case.plan_task)
    # preflight=None: an image that vanishes after the preflight (which refuses a missing one at the start)
    options = BatchOptions(out_dir=tmp_path / "batch", sandbox_options={"image": "bakeoff-no-such-image:0"}, preflight=None)
    result = run_plan(plan, options)
    assert len(result.records) == 2 and result.failed == 2
    for record in [r.to_json() for r in result.records]:
        assert record["status"] == "harness_failed"
        assert "bakeoff-no-such-image" in record["error"]
    events = [json.loads(line)["event"] for line in (tmp_path / "batch" / "events.jsonl").read_text().splitlines()]
    assert events.count("run_failed") == 2 and events[-1] == "batch_done"

    # Started again once the sandbox works, the runs the harness failed are retried and finish.
    from sandbox.wheelhouse import default_wheelhouse

    retried = run_plan(plan, BatchOptions(out_dir=tmp_path / "batch", wheelhouse=default_wheelhouse()))
    assert [r.status for r in retried.records] == ["finished", "finished"]
    assert all(r["outcome"]["status"] == "scored" for r in [r.to_json() for r in retried.records])
