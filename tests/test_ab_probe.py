"""The unit-of-analysis probe: verdicts from hand-made intervals, and on the references run as subprocesses."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from generators.ab_test import AbParams, generate_ab_data
from generators.calibration.ab_probe import Unit, duplicate_visits, host_runner, run_unit_probe, unit_verdict
from generators.calibration.ab_test import materialize_ab
from scorer.interval_reading import IntervalResult


def _interval(half: float) -> IntervalResult:
    return IntervalResult(0.01, 0.01 - half, 0.01 + half)


@pytest.mark.parametrize(
    "ratio, unit",
    [(1.0, Unit.USER), (0.95, Unit.USER), (1 / math.sqrt(2), Unit.VISIT), (0.5, Unit.VISIT), (0.85, Unit.UNCLEAR)],
)
def test_verdict_from_the_width_ratio(ratio, unit):
    probe = unit_verdict(_interval(0.02), _interval(0.02 * ratio))
    assert probe.unit is unit and probe.width_ratio == pytest.approx(ratio)


def test_a_zero_width_interval_is_unclear():
    assert unit_verdict(_interval(0.0), _interval(0.0)).unit is Unit.UNCLEAR


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    out = tmp_path_factory.mktemp("probe") / "data"
    generate_ab_data(AbParams(seed=5, users=3000, experiments=1, holdout_users=200), out)
    return out / "sessions.csv"


def test_duplicating_visits_keeps_users_doubles_rows_and_makes_no_exact_repeats(sessions, tmp_path):
    doubled = tmp_path / "doubled.csv"
    duplicate_visits(sessions, doubled)
    original, copy = pd.read_csv(sessions), pd.read_csv(doubled)
    assert len(copy) == 2 * len(original)
    assert copy["user_id"].nunique() == original["user_id"].nunique()
    assert copy.groupby("arm")["converted"].mean().to_dict() == pytest.approx(
        original.groupby("arm")["converted"].mean().to_dict())
    # Only the fault's own repeats stay exact repeats (each now twice): nothing new for a de-duplicator to drop.
    assert copy.duplicated().sum() == 2 * original.duplicated().sum()
    key = ["user_id", "visit_time"]
    assert copy.duplicated(key).sum() == 2 * original.duplicated(key).sum()


@pytest.mark.parametrize("variant, unit", [("ab_careful", Unit.USER), ("ab_half", Unit.USER), ("ab_careless", Unit.VISIT)])
def test_the_references_get_their_unit(sessions, tmp_path, variant, unit):
    probe = run_unit_probe(host_runner(materialize_ab(variant, tmp_path / variant)), sessions)
    assert probe.unit is unit, probe
    expected = 1.0 if unit is Unit.USER else 1 / math.sqrt(2)
    assert probe.width_ratio == pytest.approx(expected, abs=0.02)


def test_a_crashing_analysis_is_a_failed_probe(sessions, tmp_path):
    submission = tmp_path / "crash"
    submission.mkdir()
    (submission / "analyze.py").write_text("raise SystemExit('no')\n", encoding="utf-8")
    probe = run_unit_probe(host_runner(submission), sessions)
    assert probe.unit is Unit.FAILED and "ReferenceFailed" in probe.message


def test_an_analysis_writing_nothing_is_a_failed_probe_naming_the_error(sessions, tmp_path):
    submission = tmp_path / "silent"
    submission.mkdir()
    (submission / "analyze.py").write_text("print('done')\n", encoding="utf-8")
    probe = run_unit_probe(host_runner(submission), sessions)
    assert probe.unit is Unit.FAILED and probe.message.startswith("missing_file")
