"""Issue 38, point 11: `bakeoff models` estimates GPU memory at the context runs will load: by default the task's
(16,384, not llama.cpp's 4,096), with --plan the largest a plan's models are loaded with (its context_tokens, or a
model's own n_ctx), and says whose context it is."""

from __future__ import annotations

import json

from click.testing import CliRunner
from test_models_memory import seven_b_header

from bakeoff.cli import main


def listing(*args: str, folder) -> list[dict]:
    done = CliRunner().invoke(main, ["models", "--json", "--dir", str(folder), *args])
    assert done.exit_code == 0, done.output
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_default_estimate_is_at_the_context_runs_load(tmp_path):
    seven_b_header(tmp_path / "seven.gguf")
    entries = listing(folder=tmp_path)
    assert {e["n_ctx"] for e in entries} == {16384}
    table = CliRunner().invoke(main, ["models", "--dir", str(tmp_path)], env={"COLUMNS": "120"})
    assert "n_ctx 16384 (what runs load by default)" in " ".join(table.output.split())


def test_a_plans_context_is_the_one_estimated(tmp_path):
    seven_b_header(tmp_path / "seven.gguf")
    plan = tmp_path / "plan.toml"
    plan.write_text(f'corpus = "{tmp_path}"\nmodels = [{{ spec = "gguf:{tmp_path / "seven.gguf"}", label = "seven" }}]\n'
                    "[task_settings]\ncontext_tokens = 8192\n")
    small = listing("--plan", str(plan), folder=tmp_path)
    plan.write_text(plan.read_text().replace('label = "seven" }', 'label = "seven", n_ctx = 32768 }'))
    large = listing("--plan", str(plan), folder=tmp_path)
    assert {e["n_ctx"] for e in small} == {8192} and {e["n_ctx"] for e in large} == {32768}
    seven = f"gguf:{tmp_path / 'seven.gguf'}"
    need = {e["spec"]: e["estimated_gpu_bytes"] for e in small}, {e["spec"]: e["estimated_gpu_bytes"] for e in large}
    assert need[0][seven] < need[1][seven]  # the KV cache grows with the context
    assert {e["n_ctx"] for e in listing("--plan", str(plan), "--n-ctx", "4096", folder=tmp_path)} == {4096}


def test_a_plan_that_cannot_be_read_is_a_named_error(tmp_path):
    (tmp_path / "bad.toml").write_text("models = [")
    done = CliRunner().invoke(main, ["models", "--plan", str(tmp_path / "bad.toml")])
    assert done.exit_code == 2 and "PlanError" in done.output and "Traceback" not in done.output, done.output
