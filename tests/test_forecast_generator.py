"""demand_forecast's generator: everything from the seed and the secret (the history too: the same series go
on into the hidden horizon); the planted structure shows in the manifest's measured rates; the files are where the layout says;
`bakeoff generate --task demand_forecast` writes it; bad settings are named errors."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from generators.demand_forecast import ForecastParams, generate_forecast_data
from generators.errors import InvalidParameter
from generators.secret import Secret

SMALL = ForecastParams(seed=3, series=20, days=200)


def rows(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    base = tmp_path_factory.mktemp("fc-gen")
    a = generate_forecast_data(SMALL, base / "a", secret=Secret.from_hex("11" * 32))
    b = generate_forecast_data(SMALL, base / "b", secret=Secret.from_hex("22" * 32))
    return base / "a", base / "b", a, b


def test_another_secret_makes_another_history_and_future(pair):
    a, b, ma, mb = pair
    for name in ("history/sales.csv", "horizon_calendar.csv", "backtest/history/sales.csv", "future_truth.csv"):
        assert (a / name).read_bytes() != (b / name).read_bytes(), name
    future_a, future_b = rows(a / "future_truth.csv"), rows(b / "future_truth.csv")
    assert [r["series"] for r in future_a] == [r["series"] for r in future_b]
    assert [r["date"] for r in future_a] == [r["date"] for r in future_b]
    assert ma.secret_id != mb.secret_id
    assert (a / "secret.hex").stat().st_mode & 0o077 == 0


def test_the_same_seed_and_secret_make_the_same_folder(pair, tmp_path):
    a, _, _, _ = pair
    again = generate_forecast_data(SMALL, tmp_path / "again", secret=Secret.from_hex("11" * 32))
    assert again.sha256 == json.loads((a / "manifest.json").read_text())["sha256"]


def test_the_files_hold_what_the_statement_says(pair):
    a, _, manifest, _ = pair
    sales = rows(a / "history/sales.csv")
    assert list(sales[0]) == ["series", "date", "holiday", "price", "promotion", "units", "end_of_day_stock",
                              "units_returned"]
    assert len(sales) == 20 * 200
    calendar = rows(a / "horizon_calendar.csv")
    assert list(calendar[0]) == ["series", "date", "holiday", "price", "promotion"] and len(calendar) == 20 * 28
    assert min(r["date"] for r in calendar) > max(r["date"] for r in sales)
    backtest = rows(a / "backtest/history/sales.csv")
    assert len(backtest) == 20 * 172 and "end_of_day_stock" not in rows(a / "backtest/blind/sales.csv")[0]
    truth = rows(a / "future_truth.csv")
    assert len(truth) == 20 * 28 and {r["kind"] for r in truth} == {"smooth", "intermittent"}
    assert {int(r["horizon_day"]) for r in truth} == set(range(1, 29))
    data = json.loads((a / "manifest.json").read_text())
    assert data["generator_version"].startswith("demand_forecast-") and data["params"]["series"] == 20
    assert "future_truth.csv" in data["sha256"] and "secret.hex" not in data["sha256"]
    assert manifest.measured["holidays_in_horizon"] == ["black_friday"]


def test_the_planted_structure_is_measured(tmp_path):
    m = generate_forecast_data(ForecastParams(seed=1, series=60, days=400), tmp_path / "d").measured
    assert m["intermittent_series"] == 18
    assert m["zero_day_share"]["intermittent"] > 0.4 > 0.05 > m["zero_day_share"]["smooth"]
    assert 0.01 < m["stockout_day_share"] < 0.08 and m["censored_unit_share"] > 0
    assert 0.05 < m["promotion_day_share"]["history"] < 0.2 and m["promotion_lift_smooth"] > 1.3


def test_stronger_settings_plant_more(tmp_path):
    plain = generate_forecast_data(ForecastParams(seed=1, series=40, days=200, promotion_effect=0.2), tmp_path / "p").measured
    strong = generate_forecast_data(ForecastParams(seed=1, series=40, days=200, promotion_effect=1.5,
                                                   intermittency=0.6), tmp_path / "s").measured
    assert strong["promotion_lift_smooth"] > plain["promotion_lift_smooth"]
    assert strong["intermittent_series"] == 24 > plain["intermittent_series"]


@pytest.mark.parametrize("bad", [{"series": 1}, {"days": 10}, {"noise": -1.0}, {"intermittency": 1.5}, {"seed": "x"}])
def test_bad_settings_are_named(bad):
    with pytest.raises(InvalidParameter):
        ForecastParams(**bad)


def test_the_command_line_generates_it(tmp_path):
    from bakeoff.cli import main

    out = tmp_path / "cli"
    done = CliRunner().invoke(main, ["generate", "--task", "demand_forecast", "--series", "8", "--days", "150",
                                     "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "8 series" in done.output and (out / "future_truth.csv").is_file()
    refused = CliRunner().invoke(main, ["generate", "--task", "demand_forecast", "--configurations", "3",
                                        "--out", str(tmp_path / "x")])
    assert refused.exit_code != 0 and "Traceback" not in refused.output
