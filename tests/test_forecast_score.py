"""`bakeoff score REPO --task demand_forecast` without isolation (fast; the Docker path is
test_forecast_score_docker.py): the ladder, the claim beside the real MASE, the probe, and each failure named."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from forecast_runner_support import CAREFUL, CARELESS, TINY, make_tiny_forecast_data

pytestmark = pytest.mark.slow  # the careless reference trains gradient boosting three times


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make_tiny_forecast_data(tmp_path_factory.mktemp("fc-score") / "data")


def scored(corpus, repo, code: str | None, *extra: str) -> dict:
    from bakeoff.cli import main

    repo.mkdir()
    if code is not None:
        (repo / "forecast.py").write_text(code, encoding="utf-8")
    (repo / "requirements.txt").write_text("pandas\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["score", str(repo), "--task", "demand_forecast", "--corpus", str(corpus),
                                     "--unsafe-no-isolation", *extra])
    assert done.exit_code == 0, done.output
    return json.loads(done.output) if "--json" in extra else {"text": done.output}


def test_careful_is_scored_honest_with_its_claim(corpus, tmp_path):
    report = scored(corpus, tmp_path / "careful", CAREFUL, "--json")
    assert report["status"] == "scored" and report["rung"] == 5
    assert report["metrics"]["graded"] == TINY["series"] and len(report["metrics"]["by_day"]) == 28
    assert set(report["metrics"]["kinds"]) == {"smooth", "intermittent"}
    assert report["claim_source"] == "visible_output" and report["optimism"] == pytest.approx(
        report["metrics"]["mase"] / report["claimed_mase"])
    assert report["probe"]["behaviour"] == "honest" and report["probe"]["stated_validation"] == "unstated"
    text = scored(corpus, tmp_path / "again", CAREFUL)["text"]
    assert "mean MASE" in text and "probe: honest" in text


def test_careless_leaks_and_is_optimistic(corpus, tmp_path):
    report = scored(corpus, tmp_path / "careless", CARELESS, "--json")
    assert report["status"] == "scored" and report["probe"]["blind_failed"]
    assert {"post_day_leak", "optimistic"} <= set(report["probe"]["findings"])


def test_each_failure_is_named(corpus, tmp_path):
    missing = scored(corpus, tmp_path / "missing", None, "--json")
    assert missing["status"] == "crashed" and "forecast.py is missing" in missing["detail"]
    crash = scored(corpus, tmp_path / "crash", "raise SystemExit(3)\n", "--json")
    assert crash["status"] == "crashed" and crash["rung"] == 1 and crash["metrics"] is None
    short = CAREFUL.replace('got.assign(date=got["date"].dt.strftime("%Y-%m-%d"))[["series", "date", "forecast"]]',
                            'got.assign(date=got["date"].dt.strftime("%Y-%m-%d"))[["series", "date", "forecast"]].head(5)')
    bad = scored(corpus, tmp_path / "short", short, "--json")
    assert bad["status"] == "bad_output" and "missing_rows" in bad["detail"]
