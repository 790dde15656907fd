"""`bakeoff demo` end to end through the real CLI and Docker, with a scripted model standing in for the default one
(the default model's own end-to-end run is tests/test_runner_llama.py)."""

from __future__ import annotations

import json

import pytest
from runner_support import answers, bakeoff_cli, implementation, write_script

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_demo_makes_a_corpus_runs_scores_and_says_where(tmp_path):
    script = write_script(tmp_path / "answers.jsonl", answers(implementation(), implementation()))
    out = tmp_path / "demo"
    done = bakeoff_cli("demo", "--out", str(out), "--model", f"scripted:{script}", "--no-probes")
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "corpus" / "manifest.json").read_text())
    assert manifest["params"]["rows"] == 4000
    (run,) = [json.loads(p.read_text()) for p in out.glob("runs/*/run.json")]
    assert run["status"] == "finished" and run["outcome"]["status"] == "scored"
    assert run["isolation"] == "docker"
    assert f"batch folder: {out}" in done.stdout
    # the report command exists in this tree, so the demo ends with the report's location
    assert "report:" in done.stdout and (out / "report").is_dir()
    assert "plumbing check" not in done.stdout + done.stderr  # said only of the default model, whose habits are known

    again = bakeoff_cli("demo", "--out", str(out), "--model", f"scripted:{script}", "--no-probes")
    assert again.returncode == 0, again.stderr  # started again, it reuses the corpus and the finished run
    events = [json.loads(line)["event"] for line in (out / "events.jsonl").read_text().splitlines()]
    assert events.count("run_started") == 1
