"""The A/B-test references and cheaters on a small setting with strong signals (hidden experiments sharing the
visible one's conditions, as in 2.0): careless narrowest and under-covering, careful near nominal coverage, and
careful beating the degenerate cheaters by a paired interval above zero, on the public secret and on a fresh one
(the fresh-secret spread bench/calibrate.py ab_test computes); `bakeoff calibrate --task ab_test` writes the table.
The three cheaters that tie careful on such data (a width from the size, a fixed design effect, a shrinkage under
the stated prior) are run and graded here; that they lose on 3.0 data, on the public secret and on fresh ones, is a
full-size measurement: bench/calibrate.py ab_test's verdict (minutes: not in the suite)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test.calibration import (
    AB_CHEATERS,
    AB_VARIANTS,
    AB_WITH_PRIOR,
    UnknownAbReference,
    calibrate_ab,
    materialize_ab,
)
from generators.ab_test.cheaters import constant_interval
from generators.common.verdict import failures
from generators.errors import CorpusNotFound
from generators.secret import SECRET_FILE, Secret

# Small experiments with large effects, a long fault and people whose purchase rate grows strongly with their
# visits (short visit tails, so that 1,200 users already show the population's moments): on the public secret
# every ordering and every margin clears chance on 16 experiments, not only at full size (on a fresh secret one
# miss of careful's can pull a margin under zero at 16: the spread test below runs 48).
# The hidden experiments share the visible one's conditions (condition_spread 0, as in 2.0): on 16 experiments the
# 3.0 spread of conditions and effects makes every margin too noisy to assert (full size: the bench).
SMALL = AbParams(seed=3, users=2000, experiments=16, holdout_users=1200, holdout_size_spread=2.0, base_rate=0.2,
                 max_effect=0.15, engagement=1.0, visits_tail=1.2, max_visits=20, fault_days=4, fault_other_share=0.0,
                 condition_spread=0.0)


# The cheaters careful beats by an interval above zero on 16 experiments of the public secret (on fresh secrets: 48).
BEATEN_AT_SMALL = ("ab_constant", "ab_hardcoded", "ab_band", "ab_per_user")
REFERENCE_CHECKS = ("careless_narrowest", "careless_coverage_well_below_95", "careful_coverage_near_95",
                    "references_ordered")
# What the fresh-secret spread test runs: the references and the two cheaters that read no log.
SPREAD_ROWS = (*AB_VARIANTS, "ab_constant", "ab_band")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("abcal") / "data"
    generate_ab_data(SMALL, out, secret=Secret.public())
    return out


def _check(saved: dict) -> None:
    rows = saved["references"] + saved["cheaters"] + saved["with_prior"]
    by = {r["variant"]: r for r in rows}
    assert set(by) == {"ab_careless", "ab_half", "ab_careful", *AB_CHEATERS, *AB_WITH_PRIOR}
    assert all(r["failed"] == 0 for r in rows)
    assert by["ab_careless"]["mean_width"] < min(by["ab_half"]["mean_width"], by["ab_careful"]["mean_width"])
    assert by["ab_careless"]["coverage"] <= 0.5
    assert by["ab_careful"]["coverage_low"] <= 0.95 <= by["ab_careful"]["coverage_high"]
    assert by["ab_careful"]["winkler"] < by["ab_half"]["winkler"] < by["ab_careless"]["winkler"]
    # careless and half share the biased point estimate; careful removed the fault's bias.
    assert by["ab_careless"]["mean_abs_error"] == pytest.approx(by["ab_half"]["mean_abs_error"])
    assert by["ab_careful"]["mean_abs_error"] < by["ab_half"]["mean_abs_error"]
    assert by["ab_careful"]["margin"] is None
    for name in AB_CHEATERS:
        assert by[name]["kind"] == "cheater" and len(by[name]["winklers"]) == by[name]["experiments"]
    for name in AB_WITH_PRIOR:
        assert by[name]["kind"] == "with_prior" and by[name]["margin"] is not None
    for name in BEATEN_AT_SMALL:  # each loses to careful by more than chance
        margin = by[name]["margin"]
        assert margin["careful_better"] and margin["low"] > 0, (name, margin)
        assert by["ab_careful"]["winkler"] < by[name]["winkler"]
    assert all(saved["checks"][name] for name in REFERENCE_CHECKS), saved["checks"]


@pytest.mark.slow  # about a minute each on the 2-core machine: its file is handed out early
def test_cli_calibration_orders_the_references_beats_every_cheater_and_writes_the_table(corpus):
    result = CliRunner().invoke(main, ["calibrate", "--task", "ab_test", "--corpus", str(corpus)])
    assert result.exit_code == 0, result.output
    saved = json.loads((corpus / "calibration.json").read_text(encoding="utf-8"))
    assert all(r["experiments"] == 16 for r in saved["references"])
    assert saved["secret_id"] == Secret.public().identity
    _check(saved)
    assert "ab_careful" in result.output and "ab_per_user" in result.output and "Winkler" in result.output


def test_the_constant_is_the_central_range_of_the_true_effects():
    interval = constant_interval(AbParams(max_effect=0.05, zero_effect_share=0.25, condition_spread=0.0))
    # 2.5% of the effects lie below: 0.75 * (x + 0.05) / 0.1 = 0.025
    assert interval["ci_low"] == pytest.approx(-0.05 + 0.1 / 30) and interval["ci_high"] == -interval["ci_low"]
    assert constant_interval(AbParams(zero_effect_share=1.0, condition_spread=0.0)) == {
        "effect": 0.0, "ci_low": 0.0, "ci_high": 0.0}


def test_a_folder_without_hidden_experiments_is_named(tmp_path):
    with pytest.raises(CorpusNotFound):
        calibrate_ab(tmp_path)
    result = CliRunner().invoke(main, ["calibrate", "--task", "ab_test", "--corpus", str(tmp_path)])
    assert result.exit_code != 0 and "CorpusNotFound" in result.output


def test_materialize_names_an_unknown_reference_and_a_cheater_without_its_data(tmp_path):
    assert (materialize_ab("ab_half", tmp_path / "s") / "analyze.py").is_file()
    with pytest.raises(UnknownAbReference):
        materialize_ab("ab_nothing", tmp_path / "t")
    with pytest.raises(UnknownAbReference):
        materialize_ab("ab_hardcoded", tmp_path / "u")


# The same setting on 48 experiments for the fresh-secret spread: on 16, one experiment careful misses (a 5% event
# that costs it about 1.2 of Winkler, against the constant's flat 0.28) pulls the paired interval over the constant
# below zero: its lower end was at or under zero on 9 of 60 fresh secrets (CI caught one). On 48, over 40 fresh
# secrets: none, lowest lower end +0.067, 5% quantile +0.09 (bench/fresh_margins.py ab-spread).
SPREAD = replace(SMALL, experiments=48)


@pytest.fixture(scope="module")
def spread_pair(tmp_path_factory):
    """SPREAD with the public secret and with a fresh one: other centres, other effects, other conditions."""
    base = tmp_path_factory.mktemp("abspread")
    generate_ab_data(SPREAD, base / "public", secret=Secret.public())
    generate_ab_data(SPREAD, base / "fresh", secret=Secret.fresh())
    return base / "public", base / "fresh"


@pytest.mark.slow  # about 20 s on the 2-core machine
def test_careful_beats_the_degenerate_cheaters_on_a_fresh_secret_through_the_benchs_spread(spread_pair):
    """The fresh-secret spread bench/calibrate.py ab_test computes (calibrate_ab's `spread`), and its verdict, on a
    small corpus: the degenerate cheaters lose by an interval above zero on the public and on the fresh secret (the
    hard-coded answer and the per-user average are asserted on the public one above). On failure the secret is
    printed, to replay with --secret-file."""
    public, fresh = spread_pair
    calibration = calibrate_ab(public, spread=[fresh], variants=SPREAD_ROWS,
                               in_process=True)  # as the bench runs them (the subprocess way: the CLI test above)
    secret = Secret.read(fresh / SECRET_FILE).hex()
    assert calibration.spread_secret_ids == (Secret.from_hex(secret).identity,)
    for row in calibration.rows:
        assert len(row.spread) == 1 and len(row.spread_winklers[0]) == SPREAD.experiments
    assert all(len(row.spread_margins) == 1 for row in calibration.cheaters)
    targets = {name: held for name, held in calibration.checks.to_dict().items() if name in REFERENCE_CHECKS}
    lines = failures(targets, calibration.cheaters, str(calibration.secret_id), calibration.spread_secret_ids)
    assert not lines, f"fresh secret {secret} (replay: bakeoff generate --secret-file): " + "; ".join(lines)


# The tilted hidden part (3.1 on: conditions, effects and tilts drawn with the secret), 64 of the full size's 144
# experiments of 12,000 to 48,000 users: the per-user average's bias (the tilt) is fixed while careful's width
# shrinks with the size, so its margin grows with the users more than with the experiments. Each corpus draws its
# tilt's reach with the secret, and on a weak one the margin is thin: at 4,000 to 16,000 users the lower end went
# down to +0.004 (16 fresh secrets, median +0.045), on 192 such experiments to +0.019 (12, median +0.075); here
# +0.049 to +0.189 (24, median +0.09): bench/fresh_margins.py ab-tilted. Full size: +0.078 to +0.216 on six.
TILTED = AbParams(seed=5, users=4000, experiments=64, holdout_users=12000, holdout_size_spread=4.0)


@pytest.mark.slow  # about a minute on the 2-core machine
def test_careful_beats_the_per_user_average_on_tilted_data_with_a_fresh_secret(tmp_path):
    """The issue's claim on a fresh secret, where the margin allows: the mean of per-user rates (right unit, wrong
    estimand) loses to careful by an interval above zero; on failure the secret is printed to replay."""
    out = tmp_path / "data"
    generate_ab_data(TILTED, out, secret=Secret.fresh())
    secret = Secret.read(out / SECRET_FILE).hex()
    margin = per_user_margin(out)
    assert margin is not None and margin.low > 0, (
        f"fresh secret {secret} (replay: bakeoff generate --task ab_test --secret-file): {margin}")


def per_user_margin(folder):
    """Careful's paired margin over the per-user average on `folder` (bench/fresh_margins.py ab-tilted: the same)."""
    calibration = calibrate_ab(folder, variants=(*AB_VARIANTS, "ab_per_user"), in_process=True)
    return next(r for r in calibration.cheaters if r.variant == "ab_per_user").margin
