"""The ab_test task spec: a statement that makes the unit of analysis decidable, and readable settings."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

SPECS = Path(__file__).resolve().parents[1] / "task_specs"
AB = SPECS / "ab_test"


def _statement() -> str:
    return " ".join((AB / "statement.md").read_text(encoding="utf-8").split())


def test_statement_says_users_were_randomized_once_not_visits():
    text = _statement()
    assert "assigned to arm A" in text and "once, at random" in text and "on their first visit" in text
    assert "Visits themselves were not randomized" in text


def test_statement_says_hidden_experiments_may_move_visitors_unalike():
    """3.1's hidden experiments carry a tilt: the statement says so, so the estimand's definition decides."""
    text = _statement()
    assert "may not move every visitor alike" in text and "Every visit counts" in text


def test_statement_names_every_column_of_the_log_and_the_script_interface():
    text = _statement()
    for column in ("user_id", "arm", "visit_time", "device", "country", "converted", "revenue"):
        assert f"`{column}`" in text, column
    assert "python analyze.py --input SESSIONS.csv --output RESULT.json" in text
    assert re.search(r'\{"effect": \.\.\., "ci_low": \.\.\., "ci_high": \.\.\.\}', text)
    assert "95%" in text and "honestly" in text


def test_settings_carry_every_key_the_spam_settings_have_except_the_spam_timeouts():
    spam = tomllib.loads((SPECS / "spam_classifier" / "settings.toml").read_text(encoding="utf-8"))
    ab = tomllib.loads((AB / "settings.toml").read_text(encoding="utf-8"))
    assert set(spam) - {"timeouts_s", "smoke_rows"} <= set(ab)  # smoke_rows: the spam task's own setting
    assert ab["max_tokens"].keys() == spam["max_tokens"].keys()
    assert ab["timeouts_s"]["analyze"] > 0
    grading = tomllib.loads((AB / "grading.toml").read_text(encoding="utf-8"))
    assert grading["level"] == 0.95 and grading["holdout_truth"] == "holdout_truth.csv"
    assert (AB / "template" / "dot-gitignore").read_text(encoding="utf-8").startswith("#")


def test_todays_task_loader_reads_ab_test_with_every_stage_prompt_filled():
    from bakeoff.taskapi.spec import MODEL_STAGES, load_task

    task = load_task("ab_test")
    assert task.settings.timeout_for("analyze") == 120
    values = {"exploration_output": "X", "design": "D", "failure": "F", "visible_output": "T"}
    for stage in (*MODEL_STAGES, "repair_always"):
        body = (AB / "prompts" / f"{stage}.md").read_text(encoding="utf-8")
        assert set(re.findall(r"\$(\w+)", body)) <= set(values), stage
        assert "$" not in task.render(stage, **values), stage
    decide = (AB / "prompts" / "decide.md").read_text(encoding="utf-8")
    assert "UNIT: user" in decide and "UNIT: visit" in decide
