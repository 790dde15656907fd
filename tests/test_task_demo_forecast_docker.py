"""`bakeoff demo --task demand_forecast` on real Docker: the task's own small data, one run, graded on every
hidden series, probed, and reported (a scripted model, so the answers are known)."""

from __future__ import annotations

import json

import pytest
from forecast_runner_support import CAREFUL, implementation, staged
from runner_support import run_demo

from bakeoff.tasks.demand_forecast.plugin import DEMO_SIZES

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_the_demo_runs_the_forecast_end_to_end(tmp_path):
    done, out, run_dir, record = run_demo(tmp_path, "demand_forecast", staged(implementation(CAREFUL)))
    assert f"{DEMO_SIZES['series']} series x {DEMO_SIZES['days']} days of history" in done.stderr
    assert (out / "corpus" / "secret.hex").is_file()
    assert record["task"] == "demand_forecast" and record["outcome"]["status"] == "scored", record["outcome"]
    assert record["outcome"]["headline"]["name"] == "mase"
    assert 0 < record["outcome"]["headline"]["value"] < 1.0  # careful beats the seasonal naive scale
    evaluate = json.loads(next((run_dir / "stages").glob("*-evaluate.json")).read_text())
    assert evaluate["check"]["metrics"]["graded"] == DEMO_SIZES["series"]
    probe = evaluate["extras"]["forecast_probe"]
    assert probe["behaviour"] == "honest", probe
    markdown = (out / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Per model and horizon week: mean MASE" in markdown
    assert str(out / "report") in done.stdout + done.stderr  # it says where the report is
