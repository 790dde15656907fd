"""Time-series fixtures: daily sales, daily energy load, a store panel.

Each series has a drifting level (a random walk) on top of its calendar
rhythm: that drift is what lets shuffled folds or centred windows borrow
from days the model could not have seen yet.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def daily_sales(seed: int) -> dict[str, object]:
    """Two years of one store's daily sales: drifting level, weekly rhythm, promotions."""
    rng = np.random.default_rng(seed)
    n = 730
    dates = pd.date_range("2022-01-01", periods=n, freq="D")
    level = 200 + np.cumsum(rng.normal(0, 1.5, n))
    weekly = np.array([0, -5, -8, -4, 6, 25, 18])[dates.day_of_week]
    promo = (rng.random(n) < 0.15).astype(int)
    sales = level + weekly + 30 * promo + rng.normal(0, 5, n)
    temp = 12 + 10 * np.sin(np.arange(n) * 2 * np.pi / 365) + rng.normal(0, 3, n)
    # Logged at the end of each day: staff stay on when the day was busy.
    overtime = np.clip((sales - level - weekly) / 12 + rng.normal(0, 2.0, n), 0, None)
    return {"df": pd.DataFrame({"date": dates, "promo": promo, "temperature": temp.round(1),
                                "staff_on_rota": rng.integers(4, 9, n), "overtime_hours": overtime.round(1),
                                "sales": sales.round(1)})}


def energy(seed: int) -> dict[str, object]:
    """Eighteen months of a building's daily energy load, driven by temperature and the working week."""
    rng = np.random.default_rng(seed)
    n = 540
    dates = pd.date_range("2023-01-01", periods=n, freq="D")
    temp = 11 + 9 * np.sin((np.arange(n) - 100) * 2 * np.pi / 365) + rng.normal(0, 2.5, n)
    workday = (dates.day_of_week < 5).astype(int)
    drift = np.cumsum(rng.normal(0, 0.2, n))
    load = 400 + 6 * np.abs(temp - 16) + 60 * workday + drift + rng.normal(0, 12, n)
    # Read off the meter at midnight: the day's highest quarter-hour demand.
    peak = load / 20 + rng.normal(0, 6.0, n)
    return {"df": pd.DataFrame({"date": dates, "temperature": temp.round(1), "workday": workday,
                                "degree_days": np.abs(temp - 16).round(1),
                                "humidity": rng.normal(70, 10, n).round(), "peak_kw": peak.round(2),
                                "load_mwh": load.round(1)})}


def store_panel(seed: int) -> dict[str, object]:
    """A year of weekly sales for 30 stores; each store has its own level, and weeks share a trend."""
    rng = np.random.default_rng(seed)
    weeks = pd.date_range("2023-01-02", periods=52, freq="W-MON")
    trend = np.cumsum(rng.normal(0, 6, len(weeks)))
    rows = []
    for store in range(30):
        level = rng.normal(500, 80)
        for w, week in enumerate(weeks):
            promo = int(rng.random() < 0.2)
            rows.append({"store": f"S{store:02d}", "week": week, "promo": promo,
                         "footfall": round(level * 2 + rng.normal(0, 40)),
                         "sales": round(level + trend[w] + 40 * promo + rng.normal(0, 25), 1)})
    return {"df": pd.DataFrame(rows)}


FIXTURES = {"daily_sales": daily_sales, "energy": energy, "store_panel": store_panel}
