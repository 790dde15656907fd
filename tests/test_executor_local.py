"""The local executor: --parallel N keeps records equal to one-at-a-time (for every take-home); the executor
settings and the Ray extra.

The parallel batch runs two runs in flight in one process (one backend per model shared by its runs
in flight, one generation at a time); its records equal the sequential batch's field by field.
"""

from __future__ import annotations

import os
import textwrap

import pytest
from executor_support import events, no_stage_twice, run_files, two_model_plan
from runner_support import bakeoff_cli, make_tiny_corpus
from task_cases import CASE_IDS, CASES

RUNS = ("alpha-r01", "beta-r01", "alpha-r02", "beta-r02")


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_two_runs_in_flight_give_the_same_records(tmp_path, case):
    corpus = case.make_data(tmp_path / "corpus")
    plan = two_model_plan(tmp_path, corpus, runs=2, lines=case.working, task=case.plan_task)
    sequential, parallel = tmp_path / "one", tmp_path / "two"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(sequential))
    assert done.returncode == 0, done.stderr
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(parallel), "--parallel", "2")
    assert done.returncode == 0, done.stderr
    assert run_files(parallel, RUNS) == run_files(sequential, RUNS)
    log = events(parallel)
    no_stage_twice(log)
    # Two runs really were in flight at once: the second started before the first ended.
    starts = [e for e in log if e["event"] == "run_started"]
    first_end = next(i for i, e in enumerate(log) if e["event"] in ("run_done", "run_failed"))
    assert log.index(starts[1]) < first_end


def test_executor_table_and_cli_overrides(tmp_path):
    from bakeoff.runner.executors.settings import load_plan_and_executor, with_overrides
    from bakeoff.runner.plan import PlanError, plan_from_mapping

    corpus = tmp_path / "corpus"
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(textwrap.dedent(f"""
        runs = 1
        corpus = "{corpus}"
        models = ["scripted:/x.jsonl"]
        [executor]
        kind = "ray"
        address = "auto"
        gpus_per_run = 0.5
        [executor.models.x]
        vram_gb = 12
        max_in_flight = 2
    """), encoding="utf-8")
    plan, settings = load_plan_and_executor(plan_file)
    assert settings.kind == "ray" and settings.address == "auto" and settings.gpus_per_run == 0.5
    assert settings.for_model("x").vram_gb == 12 and settings.for_model("x").max_in_flight == 2
    # The executor is not part of the plan: the same batch folder resumes under either executor.
    bare = plan_from_mapping({"runs": 1, "corpus": str(corpus), "models": ["scripted:/x.jsonl"]}, tmp_path)
    assert plan.sha256() == bare.sha256()
    assert with_overrides(settings, "local", None, 3).kind == "local"
    assert with_overrides(type(settings)(), None, "host:6379", None).kind == "ray"
    plan_file.write_text(plan_file.read_text().replace("vram_gb = 12", "vram = 12"), encoding="utf-8")
    with pytest.raises(PlanError, match="unknown key"):
        load_plan_and_executor(plan_file)


def test_asking_for_ray_without_it_names_the_extra(tmp_path):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "ray.py").write_text("raise ImportError('no ray here')\n", encoding="utf-8")  # as if it were not installed
    corpus = make_tiny_corpus(tmp_path / "corpus")
    plan = two_model_plan(tmp_path, corpus, runs=1)
    env = {"PYTHONPATH": os.pathsep.join([str(shim), os.environ.get("PYTHONPATH", "")])}
    refused = bakeoff_cli("run", "--plan", str(plan), "--out", str(tmp_path / "b"), "--executor", "ray", env_extra=env)
    assert refused.returncode != 0
    assert "error: RayNotInstalled:" in refused.stderr and "bakeoff[ray]" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not (tmp_path / "b").exists()  # refused before the batch folder was made
