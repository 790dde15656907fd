"""`bakeoff generate`, `calibrate`, `analyze` and `score` take their task's own options from the task: `--help`
lists only the chosen task's, and the generic command line names no option of any task."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from bakeoff.cli import main

ROOT = Path(__file__).resolve().parents[1]
SPAM_ONLY = ("--rows", "--holdout-rows", "--contamination", "--sweep", "--sweep-points", "--train", "--retrain-seeds",
             "--probe-rows", "--no-probe", "--judge")


def flags(help_text: str) -> set[str]:
    return set(re.findall(r"^\s+(--[a-z][a-z-]*)", help_text, flags=re.MULTILINE))


def help_of(*args: str) -> set[str]:
    done = CliRunner().invoke(main, [*args, "--help"])
    assert done.exit_code == 0, done.output
    return flags(done.output)


def test_generate_help_lists_only_the_chosen_tasks_options():
    simulation = help_of("generate", "--task", "simulation")
    assert {"--configurations", "--cpu-seconds", "--out", "--seed"} <= simulation
    assert not simulation & {"--rows", "--holdout-rows", "--users", "--experiments"}
    ab = help_of("generate", "--task", "ab_test")
    assert {"--users", "--experiments", "--holdout-users"} <= ab and not ab & {"--rows", "--configurations"}
    spam = help_of("generate")  # the default task's
    assert {"--rows", "--spam-rate"} <= spam and not spam & {"--users", "--configurations"}


def test_calibrate_and_score_help_list_only_the_corpus_tasks_options(tmp_path):
    ab = help_of("calibrate", "--corpus", str(tmp_path), "--task", "ab_test")
    assert "--corpus" in ab and not ab & {"--sweep", "--sweep-points", "--sweep-variant"}
    assert {"--sweep", "--sweep-points", "--sweep-variant"} <= help_of("calibrate", "--task", "spam_classifier")
    score = help_of("score", str(tmp_path), "--corpus", str(tmp_path), "--task", "simulation")
    assert "--timeout" in score and "--train" not in score
    assert "--train" in help_of("score", str(tmp_path), "--corpus", str(tmp_path), "--task", "spam_classifier")


def test_analyze_help_lists_only_the_batch_tasks_options(tmp_path):
    from ab_factory import AbFakeRun, write_ab_batch

    batch = write_ab_batch(tmp_path / "batch", [AbFakeRun("m", 1)])
    listed = help_of("analyze", str(batch))
    assert "--force" in listed and not listed & {"--retrain-seeds", "--probe-rows", "--no-probe", "--judge"}


def test_the_generic_command_line_names_no_tasks_option():
    sources = {path.name: path.read_text(encoding="utf-8") for path in (ROOT / "bakeoff" / "cli").glob("*.py")}
    found = [f"{name}: {flag}" for name, text in sources.items() for flag in SPAM_ONLY
             if re.search(rf"[\"']{re.escape(flag)}[\"' ]", text)]
    assert found == []
