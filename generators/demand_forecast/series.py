"""The demand model: what each series is (level, trend, weekly and yearly seasonality, promotion lift,
holiday sensitivity, smooth or intermittent), its daily demand, and what the shop recorded of it.

Every draw comes from the seed and the secret together (generators.secret), each part with its own purpose:
the series' parameters and both promotion calendars, the history's noise and stock-outs, and the horizon's
demand (the level's random walk going on, new noise, unannounced shocks). Unlike the other tasks' visible
parts, the history is keyed by the secret too: the hidden future is the same series' continuation, so a history
the seed alone reproduced would hand a seed-searching submission every series' true parameters (an oracle
forecast); here the public code and a searched seed reproduce neither the history nor the future.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from generators.demand_forecast.params import HORIZON, ForecastParams

LAST_DAY = dt.date(2025, 11, 9)  # the close of this Sunday is when the forecast is made
STORES = 5
WEEKLY = np.log([0.92, 0.86, 0.9, 0.98, 1.12, 1.32, 0.9])  # Monday..Sunday, the chain's shape
LEVEL_STEP = 0.008  # the daily random walk of a series' log level
RETURN_SHARE = 0.04  # units returned, of units sold (recorded after the day)


def _black_friday(year: int) -> dt.date:
    first = dt.date(year, 11, 1)
    thursdays = [first + dt.timedelta(days=d) for d in range(30) if (first + dt.timedelta(days=d)).weekday() == 3]
    return thursdays[3] + dt.timedelta(days=1)


def holiday_of(day: dt.date) -> str:
    """The holiday a day is ('' for none): fixed dates and Black Friday."""
    fixed = {(1, 1): "new_year", (2, 14): "valentines", (5, 1): "labour_day", (10, 31): "halloween",
             (12, 24): "christmas_eve", (12, 25): "christmas", (12, 31): "new_years_eve"}
    if day == _black_friday(day.year):
        return "black_friday"
    return fixed.get((day.month, day.day), "")


# each holiday's effect on the log of demand (a series' sensitivity scales it)
HOLIDAY_EFFECT = {"new_year": -0.7, "valentines": 0.25, "labour_day": -0.4, "halloween": 0.3,
                  "christmas_eve": 0.5, "christmas": -1.6, "new_years_eve": 0.35, "black_friday": 0.8}


@dataclass(frozen=True)
class Series:
    """The parameters of every series (arrays of one value per series) and the days (history + horizon)."""

    days: tuple[dt.date, ...]
    intermittent: np.ndarray  # bool
    level: np.ndarray
    trend: np.ndarray  # growth per year
    weekly: np.ndarray  # (n, 7) log factors
    yearly_amplitude: np.ndarray
    yearly_phase: np.ndarray
    lift: np.ndarray  # log extra demand at a 20% discount
    holiday_sensitivity: np.ndarray
    base_price: np.ndarray
    promotion: np.ndarray  # (n, T) bool
    discount: np.ndarray  # (n, T) share off the base price

    @property
    def n(self) -> int:
        return len(self.level)

    @property
    def names(self) -> list[str]:
        return [f"s{i % STORES + 1}_i{i // STORES + 1:03d}" for i in range(self.n)]

    def prices(self) -> np.ndarray:
        return np.round(self.base_price[:, None] * (1 - self.discount), 2)


def draw_series(params: ForecastParams, seeds: np.random.SeedSequence) -> Series:
    """The series and both calendars (promotions are planned ahead: the horizon's are drawn with the history's)."""
    rng = np.random.default_rng(seeds)
    n, total = params.series, params.days + HORIZON
    first = LAST_DAY - dt.timedelta(days=params.days - 1)
    days = tuple(first + dt.timedelta(days=d) for d in range(total))
    slow = np.zeros(n, dtype=bool)
    slow[rng.permutation(n)[: round(params.intermittency * n)]] = True
    level = np.where(slow, np.exp(rng.uniform(np.log(0.15), np.log(0.9), n)), np.exp(rng.uniform(np.log(6), np.log(90), n)))
    weekly = WEEKLY[None, :] + rng.normal(0, 0.08, (n, 7))
    weekly -= weekly.mean(axis=1, keepdims=True)
    starts = rng.random((n, total)) < 0.022
    promotion = np.zeros((n, total), dtype=bool)
    discount = np.zeros((n, total))
    for i, t in zip(*np.nonzero(starts), strict=True):
        length = int(rng.integers(3, 8))
        promotion[i, t:t + length] = True
        discount[i, t:t + length] = round(float(rng.uniform(0.1, 0.35)), 2)
    return Series(days=days, intermittent=slow, level=level, trend=rng.uniform(-0.15, 0.25, n), weekly=weekly,
                  yearly_amplitude=rng.uniform(0.0, 0.35, n), yearly_phase=rng.uniform(0, 2 * np.pi, n),
                  lift=np.log1p(params.promotion_effect * np.exp(rng.normal(0, 0.3, n))),
                  holiday_sensitivity=rng.uniform(0.5, 1.5, n), base_price=np.round(rng.uniform(1, 20, n), 2),
                  promotion=promotion, discount=discount)


def log_mean(series: Series) -> np.ndarray:
    """log of the expected demand, (n, T), before the level's random walk and the shocks."""
    t = np.arange(len(series.days))
    weekday = np.array([d.weekday() for d in series.days])
    year_angle = np.array([2 * np.pi * d.timetuple().tm_yday / 365.25 for d in series.days])
    holiday = np.array([HOLIDAY_EFFECT.get(holiday_of(d), 0.0) for d in series.days])
    growth = np.log(np.maximum(0.3, 1 + series.trend[:, None] * (t[None, :] - len(t)) / 365.0))
    return (np.log(series.level)[:, None] + growth + series.weekly[:, weekday]
            + series.yearly_amplitude[:, None] * np.sin(year_angle[None, :] - series.yearly_phase[:, None])
            + series.lift[:, None] * series.promotion * (series.discount / 0.2)
            + series.holiday_sensitivity[:, None] * holiday[None, :])


def demand(mean: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """Gamma-Poisson units: Poisson when noise is 0, more spread the larger it is."""
    rate = mean if noise <= 0 else mean * rng.gamma(1 / noise**2, noise**2, mean.shape)
    return rng.poisson(rate)


@dataclass(frozen=True)
class Recorded:
    """The history as the shop recorded it: units sold (censored by stock-outs) and the after-close columns."""

    units: np.ndarray
    stock_end: np.ndarray
    returned: np.ndarray
    stockout: np.ndarray  # bool: a day of a stock-out episode
    demand: np.ndarray  # what would have sold with stock (kept for the manifest's measured rates)


def record_history(series: Series, params: ForecastParams, seeds: np.random.SeedSequence) -> tuple[Recorded, np.ndarray]:
    """The history's sales and the log level's random walk up to the last day (the future goes on from it)."""
    rng = np.random.default_rng(seeds)
    n, days = series.n, params.days
    walk = np.cumsum(rng.normal(0, LEVEL_STEP, (n, days)), axis=1)
    mean = np.exp(log_mean(series)[:, :days] + walk)
    wanted = demand(mean, params.noise, rng)
    episode = np.zeros((n, days), dtype=bool)
    for i, t in zip(*np.nonzero(rng.random((n, days)) < params.stockout_rate), strict=True):
        episode[i, t:t + int(rng.integers(1, 6))] = True
    stock = np.where(episode, np.floor(rng.uniform(0, 0.3, (n, days)) * mean),
                     np.ceil(mean * rng.uniform(2, 4, (n, days)) + 3 * np.sqrt(mean) + 3))
    units = np.minimum(wanted, stock).astype(int)
    returned = rng.binomial(units, RETURN_SHARE)
    return Recorded(units, (stock - units).astype(int), returned, episode, wanted), walk[:, -1]


@dataclass(frozen=True)
class Future:
    units: np.ndarray  # (n, HORIZON): what sold in the horizon (the shelves kept stocked)
    shocked: np.ndarray  # bool per series: its demand shifted on an unannounced day of the horizon


def draw_future(series: Series, params: ForecastParams, last_walk: np.ndarray, seeds: np.random.SeedSequence) -> Future:
    """The horizon's units (`seeds`: the seed and the secret): the level's walk goes on, new noise, shocks."""
    rng = np.random.default_rng(seeds)
    n = series.n
    walk = last_walk[:, None] + np.cumsum(rng.normal(0, LEVEL_STEP, (n, HORIZON)), axis=1)
    shocked = rng.random(n) < params.shock_rate
    start = rng.integers(0, HORIZON, n)
    size = rng.normal(0, 0.35, n)
    shock = np.where(shocked[:, None] & (np.arange(HORIZON)[None, :] >= start[:, None]), size[:, None], 0.0)
    mean = np.exp(log_mean(series)[:, params.days:] + walk + shock)
    return Future(demand(mean, params.noise, rng), shocked)
