"""The A/B-test generator: planted properties recomputed from the written files, determinism, the holdout."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test.measure import measure_frame
from generators.ab_test.writer import holdout_specs, read_holdout_truth, visible_spec
from generators.errors import InvalidParameter

SMALL = dict(users=4000, experiments=3, holdout_users=300)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("ab") / "data"
    generate_ab_data(AbParams(seed=7, **SMALL), out)
    return out


def _sessions(folder) -> pd.DataFrame:
    return pd.read_csv(folder / "sessions.csv")


def _per_user_effect(frame: pd.DataFrame) -> tuple[float, float]:
    """Ratio estimate of B - A over users, with its delta-method standard error (written here afresh)."""
    users = frame.groupby(["arm", "user_id"])["converted"].agg(["size", "sum"])
    effect, variance = 0.0, 0.0
    for arm, sign in (("A", -1), ("B", 1)):
        n, y = users.loc[arm, "size"].to_numpy(float), users.loc[arm, "sum"].to_numpy(float)
        rate = y.sum() / n.sum()
        effect += sign * rate
        variance += ((y - rate * n) ** 2).sum() / n.sum() ** 2
    return effect, variance ** 0.5


def test_visits_per_user_follow_the_planted_pareto_tail(folder):
    visits = _sessions(folder).drop_duplicates().groupby("user_id").size()
    assert visits.min() == 1 and visits.max() <= 100
    for k in (2, 4, 8):  # P(visits >= k) = k^-1.7
        assert (visits >= k).mean() == pytest.approx(k ** -1.7, rel=0.15), k
    heaviest = visits.sort_values(ascending=False).iloc[: len(visits) // 100]
    assert heaviest.sum() / visits.sum() > 0.08  # 1% of users make a large share of the visits


def test_visits_of_one_user_are_correlated_and_shuffling_users_removes_it(folder):
    frame = _sessions(folder).drop_duplicates()
    measured = measure_frame(frame)
    assert 0.15 < measured.within_user_correlation < 0.4  # Beta(concentration 3): about 1 / (3 + 1)
    shuffled = frame.assign(converted=np.random.default_rng(0).permutation(frame["converted"].to_numpy()))
    assert abs(measure_frame(shuffled).within_user_correlation) < 0.03


def test_each_user_has_one_arm_and_arms_are_balanced_by_user(folder):
    frame = _sessions(folder)
    assert (frame.groupby("user_id")["arm"].nunique() == 1).all()
    assert abs((frame.groupby("user_id")["arm"].first() == "B").mean() - 0.5) < 0.03


def test_the_logging_fault_is_duplicated_rows_of_one_arm_on_the_recorded_days(folder):
    frame = _sessions(folder)
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    repeated = frame[frame.duplicated()]
    assert len(repeated) == truth["duplicated_rows"] > 0
    assert set(repeated["arm"]) == {truth["fault_arm"]}
    first = np.datetime64(truth["fault_day"])
    days = {str(first + np.timedelta64(i, "D")) for i in range(truth["fault_days"])}
    assert set(repeated["visit_time"].str[:10]) <= days
    assert repeated["converted"].mean() > 3 * frame.drop_duplicates()["converted"].mean()
    # Visible as a jump in the faulty arm's logged sessions on those days: more rows than distinct visits.
    on_days = frame["visit_time"].str[:10].isin(days) & (frame["arm"] == truth["fault_arm"])
    rows, visits = on_days.sum(), len(frame[on_days].drop_duplicates(["user_id", "visit_time"]))
    assert rows > 1.1 * visits
    assert not frame[~on_days].duplicated(["user_id", "visit_time"]).any()


def test_the_fault_biases_the_raw_estimate_toward_the_faulty_arm_and_the_clean_one_finds_the_truth(folder):
    frame = _sessions(folder)
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    clean, se = _per_user_effect(frame.drop_duplicates())
    raw, _ = _per_user_effect(frame)
    sign = 1 if truth["fault_arm"] == "B" else -1
    assert sign * (raw - clean) > 0.5 * se
    assert abs(clean - truth["effect"]) < 3.5 * se
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["measured"]["effect"] == pytest.approx(clean)
    assert manifest["measured"]["duplicate_rows"] == truth["duplicated_rows"]


def test_a_user_never_has_two_visits_in_one_second_even_when_crowded():
    from generators.ab_test.sessions import ExperimentSpec, build_experiment

    params = AbParams(visits_tail=0.6, days=4, fault_days=1, fault_converted_share=0.0, fault_other_share=0.0)
    frame, truth = build_experiment(ExperimentSpec(1, 3000, 0.0), params)
    assert truth.duplicated_rows == 0
    assert not frame.duplicated(["user_id", "visit_time"]).any()
    assert frame["visit_time"].max() < "2026-03-06T00:00:00"
    assert frame.groupby("user_id").size().max() == 100


def test_the_true_effect_holds_on_average_over_many_experiments():
    from generators.ab_test.sessions import ExperimentSpec, build_experiment

    params = AbParams(concentration=50.0, visits_tail=3.0)  # weak clustering: a tight check in few draws
    errors = []
    for seed in range(6):
        frame, truth = build_experiment(ExperimentSpec(seed, 20_000, 0.02), params)
        effect, se = _per_user_effect(frame.drop_duplicates())
        errors.append((effect - truth.effect) / se)
    assert abs(np.mean(errors)) < 3.0 / np.sqrt(len(errors))


def test_same_seed_same_bytes_other_seed_other_bytes(folder, tmp_path):
    again = generate_ab_data(AbParams(seed=7, **SMALL), tmp_path / "again")
    other = generate_ab_data(AbParams(seed=8, **SMALL), tmp_path / "other")
    written = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert again.sha256 == written["sha256"]
    assert other.sha256["sessions.csv"] != written["sha256"]["sessions.csv"]


def test_hidden_experiments_have_their_own_files_seeds_and_truth(folder):
    truth = read_holdout_truth(folder)
    assert list(truth["experiment"]) == ["exp_000", "exp_001", "exp_002"]
    for name in truth["experiment"]:
        assert (folder / "holdout" / f"{name}.csv").is_file()
    assert "effect" not in pd.read_csv(folder / "holdout" / "exp_000.csv").columns


def test_default_holdout_has_at_least_40_experiments_some_without_effect_and_unseen_seeds():
    params = AbParams()
    specs = holdout_specs(params)
    assert len(specs) >= 40
    assert sum(spec.effect == 0.0 for spec in specs) == 12
    assert all(0.001 <= spec.effect <= params.max_effect for spec in specs if spec.effect)
    seeds = {spec.seed for spec in specs}
    assert len(seeds) == len(specs) and visible_spec(params).seed not in seeds
    assert params.seed not in seeds


def test_cli_generates_ab_test_and_names_bad_parameters(tmp_path):
    out = tmp_path / "cli"
    args = ["generate", "--task", "ab_test", "--out", str(out), "--users", "300", "--experiments", "1",
            "--holdout-users", "200"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert (out / "holdout" / "exp_000.csv").is_file() and "hidden experiments" in result.output
    bad = CliRunner().invoke(main, ["generate", "--task", "ab_test", "--out", str(tmp_path / "x"), "--users", "5"])
    assert bad.exit_code != 0 and "InvalidParameter" in bad.output
    assert not (tmp_path / "x").exists()


def test_a_request_too_large_for_memory_is_refused_before_anything_is_written(tmp_path):
    from generators.spam.memory import NotEnoughMemory

    with pytest.raises(NotEnoughMemory):
        generate_ab_data(AbParams(users=10**12, experiments=1), tmp_path / "huge")
    assert list(tmp_path.iterdir()) == []


def test_expected_rows_match_the_written_log(folder):
    from generators.ab_test.writer import expected_rows

    rows = len(_sessions(folder))
    assert rows < expected_rows(AbParams(seed=7, **SMALL), SMALL["users"]) < 1.5 * rows


@pytest.mark.parametrize("args", [["--task", "ab_test", "--rows", "300"], ["--users", "300"]])
def test_an_option_of_the_other_task_is_refused_by_name(tmp_path, args):
    result = CliRunner().invoke(main, ["generate", "--out", str(tmp_path / "o"), *args])
    assert result.exit_code != 0 and "OptionNotForTask" in result.output
    assert not (tmp_path / "o").exists()


def test_invalid_parameters_are_named():
    with pytest.raises(InvalidParameter, match="fault_days"):
        AbParams(days=5, fault_days=4)
    with pytest.raises(InvalidParameter, match="effect"):
        AbParams(effect=-0.1)
