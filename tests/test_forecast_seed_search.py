"""A submission that embeds the public generator and searches the seed gains nothing: on a corpus made with a
fresh secret it cannot find the seed (the history is keyed by the secret too), and the future it regenerates
(the public secret's, for the seed whose history is closest) scores no better than the weekly seasonal naive
forecast."""

from __future__ import annotations

import csv
import sys

import numpy as np

from generators.demand_forecast import ForecastParams, generate_forecast_data
from generators.demand_forecast.mase import read_truth, score
from generators.demand_forecast.running import REAL, REFERENCES, run_forecast
from generators.demand_forecast.series import draw_series, record_history
from generators.secret import Secret

SIZE = {"series": 20, "days": 200}
SEARCHED = range(12)


def history_units(folder):
    units: dict[str, list[float]] = {}
    with open(folder / "history/sales.csv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            units.setdefault(row["series"], []).append(float(row["units"]))
    return np.array(list(units.values()))


def searched_seed(shown: np.ndarray) -> tuple[int, bool]:
    """The seed (with the only secret a submission can know, the public one) whose history is closest to `shown`."""
    public = Secret.public()
    distance = {}
    for seed in SEARCHED:
        params = ForecastParams(seed=seed, **SIZE)
        series = draw_series(params, public.seed_sequence(seed, "demand_forecast series"))
        recorded, _ = record_history(series, params, public.seed_sequence(seed, "demand_forecast history"))
        distance[seed] = float(np.abs(recorded.units - shown).mean())
    best = min(distance, key=distance.__getitem__)
    return best, distance[best] == 0


def test_an_embedded_generator_with_a_searched_seed_is_no_better_than_seasonal_naive(tmp_path):
    secret = Secret.fresh()
    real = tmp_path / "real"
    generate_forecast_data(ForecastParams(seed=5, **SIZE), real, secret=secret)
    seed, exact = searched_seed(history_units(real))
    assert not exact, f"the history was reproduced without the secret (secret {secret.hex()})"
    mine = tmp_path / "mine"
    generate_forecast_data(ForecastParams(seed=seed, **SIZE), mine, secret=Secret.public())
    truth = read_truth(real / "future_truth.csv", real / "history/sales.csv")
    with open(mine / "future_truth.csv", encoding="utf-8", newline="") as handle:
        cheat = {(r["series"], r["date"]): float(r["units"]) for r in csv.DictReader(handle)}
    naive = run_forecast(REFERENCES / "fc_seasonal_naive", real, REAL, tmp_path / "naive.csv", python=sys.executable)
    cheat_mase = score(truth, cheat).mase
    assert cheat_mase >= naive.score.mase, (f"the seed-searching cheat scored {cheat_mase:.4f}, seasonal naive "
                                            f"{naive.score.mase:.4f} (secret {secret.hex()})")
