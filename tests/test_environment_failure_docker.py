"""A submission that loads a system library the sandbox image lacks, in the real Docker sandbox: the run is the
harness's failure (retried on the next start, never the model's crash) and `bakeoff score` says the environment
failed it and exits non-zero (issue 38)."""

from __future__ import annotations

import json

import pytest
from runner_support import TRAIN, answers, implementation, make_tiny_corpus, run_scripted_batch, stage_records
from test_score_command import bakeoff_score, make_repo

from bakeoff.runner.batch import HARNESS_FAILED_EXIT

pytestmark = [pytest.mark.docker, pytest.mark.slow]

LOADS_ABSENT_LIBRARY = "import ctypes\nctypes.CDLL('libbakeoff_absent.so.1')\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make_tiny_corpus(tmp_path_factory.mktemp("environment-failure") / "corpus")


def test_a_run_whose_code_loads_an_absent_system_library_is_a_harness_failure(corpus, tmp_path):
    scripts = {"envbroken": answers(implementation(LOADS_ABSENT_LIBRARY + TRAIN))}
    plan = {"seed": 11, "corpus": str(corpus), "task_settings": {"smoke_rows": 50, "repair_turns": 0}}
    result = run_scripted_batch(tmp_path, scripts, plan)
    assert result.exit_code == HARNESS_FAILED_EXIT
    record = result.records[0].to_json()
    assert record["status"] == "harness_failed"
    assert "libbakeoff_absent.so.1" in record["error"] and "environment" in record["error"]
    stages = {r["stage"]: r for r in stage_records(tmp_path / "batch" / "runs" / "envbroken-r01")}
    implement = stages["implement"]
    assert implement["attribution"] == "harness_error"
    assert implement["check"]["crash_class"] == "missing_system_library"
    assert implement["check"]["detail"] == "libbakeoff_absent.so.1"
    assert "repair" not in stages  # the run ended at the harness's failure: the next start retries it


def test_score_says_the_environment_failed_the_submission_and_exits_non_zero(corpus, tmp_path):
    repo = make_repo(tmp_path / "repo", {"predict.py": LOADS_ABSENT_LIBRARY})
    completed = bakeoff_score(str(repo), "--corpus", str(corpus), "--json")
    assert completed.returncode == HARNESS_FAILED_EXIT, completed.stderr
    outcome = json.loads(completed.stdout)
    assert (outcome["crash_class"], outcome["detail"]) == ("missing_system_library", "libbakeoff_absent.so.1")
    assert "libbakeoff_absent.so.1" in outcome["environment_failure"]
    assert "the environment failed the submission" in completed.stderr
    assert "libbakeoff_absent.so.1" in completed.stderr
