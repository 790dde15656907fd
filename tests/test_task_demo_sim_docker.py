"""`bakeoff demo --task simulation` on real Docker: the task's own small data, one run, graded on every hidden
configuration, probed, and reported (a scripted model, so the answers are known)."""

from __future__ import annotations

import json

import pytest
from runner_support import run_demo
from sim_runner_support import CAREFUL, implementation, sim_answers

from bakeoff.tasks.simulation.plugin import DEMO_SIZES

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_the_demo_runs_the_simulation_end_to_end(tmp_path):
    done, out, run_dir, record = run_demo(tmp_path, "simulation", sim_answers(implementation(CAREFUL)))
    count = DEMO_SIZES["configurations"]
    assert f"{count} hidden configurations of {DEMO_SIZES['cpu_seconds']} CPU seconds" in done.stderr
    assert sorted(p.name for p in (out / "corpus" / "holdout").iterdir()) == [f"cfg_{i:03d}.json" for i in range(count)]
    assert (out / "corpus" / "secret.hex").is_file()
    assert record["task"] == "simulation" and record["outcome"]["status"] == "scored"
    assert record["outcome"]["metrics"]["graded"] == count
    assert record["outcome"]["headline"]["name"] == "relative_winkler"
    assert record["outcome"]["claim"]["source"] == "visible_output"
    explore = json.loads((run_dir / "stages" / "1-explore.json").read_text())
    assert "The first lines of data/examples/example_1.json:" in explore["prompt"]["messages"][0]["content"]
    assert explore["commands"][0]["exit_code"] == 0  # the examples are where the statement says
    evaluate = json.loads((run_dir / "stages" / "5-evaluate.json").read_text())
    probe = evaluate["extras"]["behaviour_probe"]
    assert probe["behaviour"] == "sound", json.dumps(probe, indent=1)  # the widths and CPU times say why
    markdown = (out / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Per model and load band: coverage and relative Winkler score" in markdown
