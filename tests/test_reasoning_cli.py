"""`bakeoff ask` shows reasoning apart from the answer: --json carries text, reasoning and reasoning_tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bakeoff.cli import main


def ask(*args: str):
    return CliRunner().invoke(main, ["ask", *args])


def test_ask_json_prints_answer_reasoning_and_reasoning_tokens(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"key": "ask#1", "text": "<think>\ntwo plus two\n</think>\nFour."}) + "\n")
    result = ask("--model", f"scripted:{script}", "--json", "What is 2 + 2?")
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert (record["text"], record["reasoning"], record["reasoning_tokens"]) == ("Four.", "two plus two", 3)
    assert record["capture"]["status"] == "captured"


def test_ask_without_json_shows_the_reasoning_apart(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"text": "Four.", "reasoning": "add them"}) + "\n")
    result = ask("--model", f"scripted:{script}", "What is 2 + 2?")
    assert result.exit_code == 0 and "Four." in result.output
    assert "reasoning (2 tokens):\nadd them" in result.output and "(reasoning 2)" in result.output


@pytest.mark.llama
def test_ask_on_a_real_gguf_that_opens_think_reports_reasoning(tmp_path):
    from gguf_copies import with_template

    template = Path(__file__).parent / "reasoning_templates" / "think_opened.jinja"
    model = with_template(tmp_path, "opened", template.read_text(encoding="utf-8"))
    result = ask("--model", f"gguf:{model}", "--json", "--n-ctx", "512", "--max-tokens", "4", "--reasoning-tokens", "4",
                 "Name a colour.")
    record = json.loads(result.output[result.output.index("{"):])
    assert record["text"] == "" and record["reasoning"] and 0 < record["reasoning_tokens"] <= 10
    assert record["capture"] == {"status": "unusable", "reason": "runaway_reasoning", "budget_cut": True,
                                 "detail": record["capture"]["detail"]}
    assert result.exit_code == 0  # unusable is the model's failure, not an uncaptured answer
