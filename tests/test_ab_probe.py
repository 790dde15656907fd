"""The unit-of-analysis probe: verdicts from hand-made intervals, and on the references run as subprocesses."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test.calibration import materialize_ab
from generators.ab_test.measure import refired_purchases
from generators.ab_test.probe import (
    Unit,
    duplicate_visits,
    halve_users,
    host_runner,
    run_unit_probe,
    unit_verdict,
)
from generators.secret import Secret
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


def test_an_interval_that_ignores_half_the_users_is_data_free_and_one_whose_width_does_is_fixed_width():
    constant = _interval(0.02)
    assert unit_verdict(constant, constant, constant).unit is Unit.DATA_FREE  # not "user", though the ratio is 1
    moved = IntervalResult(0.015, 0.015 - 0.02, 0.015 + 0.02)
    fixed = unit_verdict(constant, constant, moved)
    assert fixed.unit is Unit.FIXED_WIDTH and fixed.halved_width_ratio == pytest.approx(1.0)
    real = unit_verdict(constant, constant, IntervalResult(0.015, 0.015 - 0.028, 0.015 + 0.028))
    assert real.unit is Unit.USER and real.halved_width_ratio == pytest.approx(1.4)
    assert unit_verdict(_interval(0.0), _interval(0.0), _interval(0.0)).unit is Unit.DATA_FREE


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    out = tmp_path_factory.mktemp("probe") / "data"
    generate_ab_data(AbParams(seed=5, users=3000, experiments=1, holdout_users=200), out, secret=Secret.public())
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
    # Nor does a copied purchase look like a purchase event fired again (same user, same amount, soon after).
    assert refired_purchases(copy).sum() == 2 * refired_purchases(original).sum() > 0


def test_halving_keeps_every_second_user_with_all_their_visits(sessions, tmp_path):
    halved = tmp_path / "halved.csv"
    halve_users(sessions, halved)
    original, half = pd.read_csv(sessions), pd.read_csv(halved)
    assert half["user_id"].nunique() == (original["user_id"].nunique() + 1) // 2
    visits = original.groupby("user_id").size()
    kept = half.groupby("user_id").size()
    assert (kept == visits[kept.index]).all()


@pytest.mark.parametrize("variant, unit", [("ab_careful", Unit.USER), ("ab_half", Unit.USER), ("ab_careless", Unit.VISIT),
                                           ("ab_per_user", Unit.USER)])
def test_the_references_get_their_unit(sessions, tmp_path, variant, unit):
    probe = run_unit_probe(host_runner(materialize_ab(variant, tmp_path / variant)), sessions)
    assert probe.unit is unit, probe
    expected = 1.0 if unit is Unit.USER else 1 / math.sqrt(2)
    assert probe.width_ratio == pytest.approx(expected, abs=0.02)
    assert probe.halved_width_ratio == pytest.approx(math.sqrt(2), abs=0.3)  # half the users: about sqrt(2) wider


@pytest.mark.parametrize("variant, unit", [("ab_constant", Unit.DATA_FREE), ("ab_hardcoded", Unit.DATA_FREE),
                                           ("ab_band", Unit.FIXED_WIDTH)])
def test_the_cheaters_are_not_called_user(sessions, tmp_path, variant, unit):
    submission = materialize_ab(variant, tmp_path / variant, corpus=sessions.parent)
    probe = run_unit_probe(host_runner(submission), sessions)
    assert probe.unit is unit, probe


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
