"""`bakeoff score REPO --task demand_forecast` on real Docker: careful and careless graded alone come out as
calibration orders them, with the claim beside the real MASE and the probe's verdict; a crash is named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from forecast_runner_support import CAREFUL, CARELESS, CRASHING, TINY, make_tiny_forecast_data

pytestmark = [pytest.mark.docker, pytest.mark.slow]
BAKEOFF = str(Path(sys.executable).with_name("bakeoff"))


def folder(root: Path, code: str) -> Path:
    root.mkdir()
    (root / "forecast.py").write_text(code, encoding="utf-8")
    (root / "requirements.txt").write_text("pandas\nnumpy\nscikit-learn\n", encoding="utf-8")
    return root


def score_cli(repo: Path, corpus: Path) -> dict:
    done = subprocess.run([BAKEOFF, "score", str(repo), "--task", "demand_forecast", "--corpus", str(corpus), "--json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_references_are_graded_alone_and_ordered(tmp_path):
    corpus = make_tiny_forecast_data(tmp_path / "data")
    careful = score_cli(folder(tmp_path / "careful", CAREFUL), corpus)
    careless = score_cli(folder(tmp_path / "careless", CARELESS), corpus)
    for report in (careful, careless):
        assert report["status"] == "scored" and report["rung"] == 5 and report["isolation"] == "docker"
        assert report["metrics"]["graded"] == TINY["series"] and report["claimed_mase"] is not None
    assert careless["metrics"]["mase"] > careful["metrics"]["mase"]
    assert careless["optimism"] > careful["optimism"]
    assert careful["probe"]["behaviour"] == "honest" and "post_day_leak" in careless["probe"]["findings"]
    crashed = score_cli(folder(tmp_path / "crashing", CRASHING), corpus)
    assert crashed["status"] == "crashed" and crashed["metrics"] is None and "demand_oracle_toolkit" in (crashed["detail"] or "")
