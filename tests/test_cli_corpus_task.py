"""Issue 38, points 7, 8 and 12: every command that takes a corpus takes its task from the corpus's manifest (--task
or a plan's `task` only checks it), a missing corpus folder is said as missing, a submission of another task is
named; one rule for intervals from few runs (the report states it, every table and export keeps it, a plan of too
few runs is told); and what refuses a batch in a moment is said before the engine test, the budget error saying
where the reasoning budget is set. Real commands in child processes on a small A/B-test corpus; no batch runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_factory import FakeRun, write_batch
from runner_support import bakeoff_cli

ENGINE_LINE = "engine: "  # what the engine test prints once it has generated (bakeoff.cli.batch.check_engine)


@pytest.fixture(scope="module")
def ab_corpus(tmp_path_factory) -> Path:
    corpus = tmp_path_factory.mktemp("corpora") / "ab"
    made = bakeoff_cli("generate", "--task", "ab_test", "--out", str(corpus), "--experiments", "2", "--users", "400")
    assert made.returncode == 0, made.stderr
    return corpus


def _refused(done, error: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert f"error: {error}:" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


# -- point 7: one task per corpus ---------------------------------------------------------------------------------

def test_run_takes_its_task_from_the_corpus_and_checks_task(ab_corpus, tmp_path):
    # No --task: the corpus is A/B-test data, so the batch is an ab_test batch and gets as far as its model's file
    # (before: "lacks train.csv", the spam corpus's files).
    missing = tmp_path / "answers.jsonl"
    done = bakeoff_cli("run", "--model", f"scripted:{missing}", "--corpus", str(ab_corpus), "--runs", "3",
                       "--out", str(tmp_path / "batch"))
    assert "no scripted answers file" in _refused(done, "ModelFileMissing")
    # --task names another task than the corpus: a named refusal (before: no such option).
    done = bakeoff_cli("run", "--model", f"scripted:{missing}", "--corpus", str(ab_corpus), "--task", "spam_classifier",
                       "--out", str(tmp_path / "batch"))
    assert "holds ab_test data" in _refused(done, "CorpusTaskMismatch")


def test_a_plan_takes_its_task_from_the_corpus_and_its_task_key_only_checks(ab_corpus, tmp_path):
    (tmp_path / "answers.jsonl").write_text("{}\n")
    plan = tmp_path / "plan.toml"
    plan.write_text(f'corpus = "{ab_corpus}"\ntask = "spam_classifier"\nmodels = ["scripted:answers.jsonl"]\n')
    done = bakeoff_cli("run", "--plan", str(plan), "--out", str(tmp_path / "batch"))
    assert "not spam_classifier" in _refused(done, "CorpusTaskMismatch")


def test_a_missing_corpus_folder_is_said_as_missing_by_every_command(tmp_path):
    nowhere = tmp_path / "no-such-corpus"
    expected = f"corpus folder {nowhere} does not exist"
    for command in (("calibrate", "--corpus", str(nowhere)),
                    ("run", "--model", "default", "--corpus", str(nowhere), "--out", str(tmp_path / "batch")),
                    ("score", str(tmp_path), "--corpus", str(nowhere))):
        stderr = _refused(bakeoff_cli(*command), "CorpusFolderMissing")
        assert expected in stderr and "lacks" not in stderr, (command, stderr)
        assert ENGINE_LINE not in stderr  # said before the engine test, not seconds after it


def test_calibrate_checks_task_against_the_corpus(ab_corpus):
    done = bakeoff_cli("calibrate", "--corpus", str(ab_corpus), "--task", "spam_classifier")
    assert "holds ab_test data" in _refused(done, "CorpusTaskMismatch")


def test_score_names_a_submission_of_another_task(ab_corpus, tmp_path):
    spam = tmp_path / "spam-submission"
    spam.mkdir()
    (spam / "predict.py").write_text("print('predictions')\n")
    (spam / "train.py").write_text("print('trained')\n")
    done = bakeoff_cli("score", str(spam), "--corpus", str(ab_corpus), "--unsafe-no-isolation")
    stderr = _refused(done, "SubmissionOfOtherTask")  # before: graded, "analyze.py is missing", exit 0
    assert "predict.py and no analyze.py" in stderr and "spam_classifier submission" in stderr
    done = bakeoff_cli("score", str(spam), "--corpus", str(ab_corpus), "--task", "simulation")
    _refused(done, "CorpusTaskMismatch")


# -- point 12: what refuses a batch in a moment is said first -----------------------------------------------------

def test_a_missing_model_file_and_a_small_n_ctx_are_said_before_the_engine_test(ab_corpus, tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(f'corpus = "{ab_corpus}"\nruns = 3\nmodels = ["default", "gguf:{tmp_path / "gone.gguf"}"]\n')
    stderr = _refused(bakeoff_cli("run", "--plan", str(plan), "--out", str(tmp_path / "b1")), "ModelFileMissing")
    assert ENGINE_LINE not in stderr  # before: the default model was loaded and asked for a token first
    plan.write_text(f'corpus = "{ab_corpus}"\nruns = 3\nmodels = [{{spec = "default", n_ctx = 1024}}]\n')
    stderr = _refused(bakeoff_cli("run", "--plan", str(plan), "--out", str(tmp_path / "b2")), "PlanError")
    assert "n_ctx = 1024" in stderr and ENGINE_LINE not in stderr


def test_the_budget_error_says_the_reasoning_budget_is_counted_and_where_to_change_it(ab_corpus, tmp_path):
    (tmp_path / "answers.jsonl").write_text("{}\n")
    plan = tmp_path / "plan.toml"
    plan.write_text(f'corpus = "{ab_corpus}"\nruns = 3\nmodels = ["scripted:answers.jsonl"]\n'
                    "[task_settings]\ncontext_tokens = 8192\n")
    stderr = _refused(bakeoff_cli("run", "--plan", str(plan), "--out", str(tmp_path / "batch")), "PlanError")
    assert "reasoning_tokens.implement = 6,144" in stderr  # the default nobody wrote, named with its key
    assert "also one that does not reason" in stderr
    assert "[task_settings.reasoning_tokens] implement = 0" in stderr and "[task_settings.max_tokens]" in stderr


# -- point 8: one rule for intervals from few runs ----------------------------------------------------------------

def test_a_plan_of_too_few_runs_for_an_interval_is_told(ab_corpus, tmp_path):
    from bakeoff.analysis.stats import MIN_INTERVAL_N

    missing = f"scripted:{tmp_path / 'answers.jsonl'}"
    few = bakeoff_cli("run", "--model", missing, "--corpus", str(ab_corpus), "--runs", str(MIN_INTERVAL_N - 1),
                      "--out", str(tmp_path / "b1"))
    assert "no interval will appear" in few.stdout and f"at least {MIN_INTERVAL_N} runs" in few.stdout
    enough = bakeoff_cli("run", "--model", missing, "--corpus", str(ab_corpus), "--runs", str(MIN_INTERVAL_N),
                         "--out", str(tmp_path / "b2"))
    assert "no interval will appear" not in enough.stdout + enough.stderr


@pytest.fixture
def two_runs(tmp_path):
    """A batch of one model with two scored runs: a mean, and too few runs for an interval."""
    from bakeoff.export.source import load_source
    from bakeoff.tasks.registry import task_plugin

    folder = write_batch(tmp_path / "batch", [FakeRun("m", 1, f1=0.7), FakeRun("m", 2, f1=0.8)])
    return load_source(folder, task_plugin("spam_classifier"), partial=False)


def test_scaffold_tables_give_no_interval_from_two_runs(two_runs):
    from bakeoff.report.scaffolds import scaffolds_table

    table = scaffolds_table(two_runs.core)
    row = dict(zip([c.name for c in table.columns], table.rows[0], strict=True))
    assert row["graded"] == 2 and row["f1"] == pytest.approx(0.75)
    assert row["low"] is None and row["high"] is None  # before: the bootstrap of two values, e.g. [0.7, 0.8]


def test_exports_give_no_interval_from_two_runs(two_runs):
    from bakeoff.export.eee_records import _model_results
    from bakeoff.export.inspect_common import require_inspect
    from bakeoff.export.inspect_runs import _results

    model = two_runs.core.models[0]
    results = _results(require_inspect()[0], two_runs, model, 2, list(two_runs.records.runs))
    for score in results.scores[:2]:
        assert "mean" in score.metrics and "ci_low" not in score.metrics and "ci_high" not in score.metrics
    for result in _model_results(model, two_runs.plugin.headline, "spam_classifier", {}, None)[:2]:
        assert "confidence_interval" not in result["score_details"]["uncertainty"]


def test_the_report_states_the_interval_rule(two_runs, tmp_path):
    from bakeoff.analysis.stats import MIN_INTERVAL_N
    from bakeoff.report.build import write_report

    files = write_report(two_runs.folder, two_runs.plugin, tmp_path / "report")
    assert f"none from fewer than {MIN_INTERVAL_N} runs" in files.markdown.read_text(encoding="utf-8")
