"""Tasks are plug-ins: the registry finds both take-homes by name, an unknown name is a named error, and the
runner's modules name no task (nor a task's scripts, data files or trap)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bakeoff.records import LadderCheck, LadderStatus, Rung, turn_effect
from bakeoff.tasks import Task, UnknownTask, task_names, task_plugin

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "bakeoff" / "runner"
# Words only a task knows: the task names, their generators, their scripts, their data files and traps.
TASK_WORDS = re.compile(
    r"spam|ab_test|ab_careless|ab_careful|moderator_flagged|expected_f1|f1_tolerance|"
    r"\b(train|predict|analyze)\.py\b|\b(train|holdout|holdout_answers|sessions|holdout_truth)\.csv\b|"
    r"generators\.(spam|ab_test|calibration)|\bscorer\b",
    re.IGNORECASE,
)


def task_words_in(source: str) -> list[str]:
    """Task words in a module's string constants, names, attributes and imports (comments and docstrings
    are prose and may give examples)."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            texts.append(node.value)
        elif isinstance(node, ast.Name):
            texts.append(node.id)
        elif isinstance(node, ast.Attribute):
            texts.append(node.attr)
        elif isinstance(node, ast.ImportFrom):
            texts.append(node.module or "")
            texts.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            texts.extend(alias.name for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            texts.append(node.name)
        found.extend(f"line {getattr(node, 'lineno', '?')}: {text!r}" for text in texts if TASK_WORDS.search(text))
    return found


def test_both_take_homes_are_found_by_name():
    assert set(task_names()) >= {"spam_classifier", "ab_test"}
    for name in ("spam_classifier", "ab_test"):
        plugin = task_plugin(name)
        assert isinstance(plugin, Task) and plugin.name == name
        spec = plugin.spec()
        assert spec.name == name and spec.statement.strip() and "implement" in spec.prompts


def test_an_unknown_task_is_a_named_error_listing_the_known_ones():
    with pytest.raises(UnknownTask, match="no task named 'chess'.*spam_classifier.*ab_test"):
        task_plugin("chess")


def test_an_unknown_task_in_a_plan_is_refused_before_any_run(tmp_path):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan

    plan = plan_from_mapping({"models": ["default"], "corpus": str(tmp_path), "task": "chess", "sandbox": "docker"}, tmp_path)
    with pytest.raises(UnknownTask):
        run_plan(plan, BatchOptions(out_dir=tmp_path / "batch"))
    assert not (tmp_path / "batch" / "batch.json").exists()


def test_each_task_declares_its_truth_apart_from_what_the_sandbox_sees():
    for name, truth in (("spam_classifier", "holdout_answers.csv"), ("ab_test", "holdout_truth.csv")):
        layout = task_plugin(name).corpus_layout()
        assert truth in layout.required
        assert truth not in {part for part, _ in layout.mounts}


def test_the_headline_judges_a_repair_turn_in_its_own_direction():
    def scored(task, value):  # a scored check carries its task's headline
        return LadderCheck(Rung.SCORED, LadderStatus.SCORED, None, task_plugin(task).headline.of(value))

    assert turn_effect(scored("ab_test", 0.05), scored("ab_test", 0.02)) == "rescued"  # lower is better
    assert turn_effect(scored("ab_test", 0.02), scored("ab_test", 0.05)) == "regressed"
    assert turn_effect(scored("ab_test", 0.02), scored("ab_test", 0.0201)) == "unchanged"
    assert turn_effect(scored("spam_classifier", 0.70), scored("spam_classifier", 0.75)) == "rescued"


def test_the_ab_test_claim_is_read_from_an_estimate_line():
    from bakeoff.tasks.ab_test.plugin import parse_estimate

    text = "ESTIMATE: 0.1 [0, 0.2]\nsomething\nESTIMATE: 0.0123 [-0.004, 2.5e-2]\n"
    assert parse_estimate(text) == (0.0123, -0.004, 0.025)
    assert parse_estimate("EXPECTED_F1: 0.8") is None


def test_the_word_check_sees_what_the_old_runner_knew():
    """The check would have failed on the runner before the plug-ins (these lines are from it)."""
    old = (
        'from generators.spam_classifier import CorpusParams, generate_corpus\n'
        'task: str = "spam_classifier"\n'
        'F1_TOLERANCE = 0.01\n'
        'mounts = [Mount(corpus / "train.csv", "data/train.csv")]\n'
        'from bakeoff.answers import parse_expected_f1\n'
        'shown = f"python predict.py --input {SMOKE_INPUT}"\n'
    )
    assert len(task_words_in(old)) >= 6


def test_the_runner_names_no_task():
    offenders = {}
    for path in sorted(RUNNER.rglob("*.py")):
        found = task_words_in(path.read_text(encoding="utf-8"))
        if found:
            offenders[str(path.relative_to(ROOT))] = found
    assert offenders == {}


def test_the_prompts_name_each_tasks_own_data_file():
    from bakeoff.runner.conversation import shared_system_message

    for name, data in (("spam_classifier", "data/train.csv"), ("ab_test", "data/sessions.csv")):
        plugin = task_plugin(name)
        layout = plugin.corpus_layout()
        assert layout.excerpt_of == data and data in {target for _, target in layout.mounts}
        spec = plugin.spec()
        message = shared_system_message(spec.system, spec.statement, "a,b\n1,2", layout.excerpt_of)
        assert f"The first lines of {data}:\n\na,b\n1,2\n" in message.content


def test_an_option_of_another_take_home_is_refused_by_name(tmp_path):
    from click.testing import CliRunner

    from bakeoff.cli import main

    result = CliRunner().invoke(main, ["calibrate", "--corpus", str(tmp_path), "--task", "ab_test", "--sweep"])
    assert result.exit_code != 0 and "OptionNotForTask" in result.output and "--sweep" in result.output
    result = CliRunner().invoke(main, ["score", str(tmp_path), "--corpus", str(tmp_path), "--task", "ab_test", "--train"])
    assert result.exit_code != 0 and "OptionNotForTask" in result.output and "--train" in result.output


def test_analyze_names_a_task_whose_probes_it_cannot_recompute(tmp_path):
    from ab_factory import AbFakeRun, write_ab_batch
    from click.testing import CliRunner

    from bakeoff.cli import main

    batch = write_ab_batch(tmp_path / "batch", [AbFakeRun("m", 1)])
    result = CliRunner().invoke(main, ["analyze", str(batch)])
    assert result.exit_code != 0 and "AnalysisNotAvailable" in result.output and "task ab_test" in result.output
    assert not list(batch.glob("runs/*/analysis.json"))


def test_a_corpus_fingerprint_names_each_file_of_a_folder_part_and_keeps_spams_names(tmp_path):
    from bakeoff.runner.fingerprint import corpus_fingerprint
    from bakeoff.taskapi.corpus import CorpusError

    ab = tmp_path / "ab"
    (ab / "holdout").mkdir(parents=True)
    for name in ("sessions.csv", "holdout_truth.csv", "excerpt.txt", "holdout/exp_000.csv", "holdout/exp_001.csv"):
        (ab / name).write_text(name, encoding="utf-8")
    prints = corpus_fingerprint(task_plugin("ab_test").corpus_files(ab))
    assert set(prints) == {"sessions.csv", "holdout_truth.csv", "excerpt.txt", "manifest.json",
                           "holdout/exp_000.csv", "holdout/exp_001.csv"}
    assert prints["manifest.json"] is None and prints["holdout/exp_001.csv"] is not None
    spam = tmp_path / "spam"
    spam.mkdir()
    for name in ("train.csv", "holdout.csv", "holdout_answers.csv", "excerpt.txt", "manifest.json"):
        (spam / name).write_text(name, encoding="utf-8")
    assert set(corpus_fingerprint(task_plugin("spam_classifier").corpus_files(spam))) == {
        "train.csv", "holdout.csv", "holdout_answers.csv", "excerpt.txt", "manifest.json"}  # as batch.json always had
    with pytest.raises(CorpusError, match="generate --task ab_test"):
        task_plugin("ab_test").corpus_files(spam)
