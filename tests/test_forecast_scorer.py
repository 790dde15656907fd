"""demand_forecast's standard-library grader: MASE scaled by the in-sample weekly seasonal naive error, by
horizon week and series kind; forecast files read strictly, each defect named."""

from __future__ import annotations

import pytest

from generators.demand_forecast.mase import (
    BadValue,
    ExtraRows,
    MissingColumns,
    MissingRows,
    Truth,
    read_forecast,
    score,
    seasonal_scales,
)


def test_the_scale_is_the_in_sample_weekly_naive_error():
    units = {"a": [float(d % 7) for d in range(21)], "b": [0.0] * 14 + [7.0] * 7, "z": [0.0] * 30}
    scales = seasonal_scales(units)
    assert scales["a"] == pytest.approx(1 / 21)  # a perfect weekly pattern: floored at one unit over the history
    assert scales["b"] == pytest.approx(7.0 * 7 / 14)
    assert scales["z"] == pytest.approx(1 / 30)


def truth_of():
    dates = [f"2025-01-{d:02d}" for d in range(1, 29)]
    units = {(s, d): 2.0 for s in ("a", "b") for d in dates}
    return Truth(units, {(s, d): i + 1 for s in ("a", "b") for i, d in enumerate(dates)},
                 {"a": "smooth", "b": "intermittent"}, {"a": 1.0, "b": 2.0}), dates


def test_mase_by_series_week_and_kind():
    truth, dates = truth_of()
    forecast = {(s, d): 2.0 + (1.0 if i >= 21 else 0.0) for s in ("a", "b") for i, d in enumerate(dates)}
    got = score(truth, forecast)
    assert got.series == {"a": pytest.approx(0.25), "b": pytest.approx(0.125)}
    assert got.mase == pytest.approx(0.1875)
    assert got.weeks["week_1"] == 0 and got.weeks["week_4"] == pytest.approx(0.75)
    assert got.kinds == {"smooth": pytest.approx(0.25), "intermittent": pytest.approx(0.125)}
    assert len(got.by_day) == 28 and got.by_day[27] == pytest.approx(0.75)


def write(tmp_path, text):
    path = tmp_path / "f.csv"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "error"), [
    ("series,day,forecast\n", MissingColumns),
    ("series,date,forecast\na,2025-01-01,x\n", BadValue),
    ("series,date,forecast\na,2025-01-01,-1\n", BadValue),
    ("series,date,forecast\na,2025-01-01,nan\n", BadValue),
    ("series,date,forecast\na,2025-01-01,1\na,2025-01-01,1\n", ExtraRows),
    ("series,date,forecast\nq,2025-01-01,1\n", ExtraRows),
    ("series,date,forecast\na,2025-01-01,1\n", MissingRows),
])
def test_a_bad_forecast_file_is_named(tmp_path, text, error):
    truth, _ = truth_of()
    with pytest.raises(error):
        read_forecast(write(tmp_path, text), truth.units)
