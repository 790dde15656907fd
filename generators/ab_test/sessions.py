"""One experiment's sessions log: users, their visits, their conversions, and the logging fault.

Each user gets an arm once (a fair coin), a device, a country, a heavy-tailed number of visits and
their own conversion propensity, so one user's visits are correlated. B adds `effect` to every
user's per-visit propensity, which makes the true effect on the visit-weighted conversion rate
exactly `effect` (visits are drawn independently of propensity). Then, on `fault_days` consecutive
days, one arm's logger writes some sessions twice, most of all the converted ones: a careless estimate
is biased, and a careful analyst sees identical rows and an arm whose session count jumps on those days.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from generators.ab_test.params import ARMS

START = np.datetime64("2026-03-02T00:00:00", "s")
DAY_SECONDS = 86_400
DEVICES = ("desktop", "mobile", "tablet")
DEVICE_SHARES = (0.45, 0.45, 0.10)
DEVICE_LIFT = (1.2, 0.8, 1.0)  # propensity multipliers: desktop users buy more often
COUNTRIES = ("US", "DE", "GB", "FR", "IN", "BR")
COUNTRY_SHARES = (0.40, 0.15, 0.15, 0.10, 0.10, 0.10)
MAX_PROPENSITY = 0.9  # arm A's propensity is capped here so that adding the effect stays below 1
COLUMNS = ("user_id", "arm", "visit_time", "device", "country", "converted", "revenue")


@dataclass(frozen=True)
class ExperimentSpec:
    """What one experiment is drawn from (its own seed, size, effect)."""

    seed: int
    users: int
    effect: float


@dataclass(frozen=True)
class ExperimentTruth:
    """What is kept from the model: the true effect and where the fault is."""

    effect: float
    fault_arm: str
    fault_day: str  # YYYY-MM-DD, the first faulty day
    fault_days: int
    duplicated_rows: int

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _visits_per_user(rng: np.random.Generator, users: int, tail: float, cap: int) -> np.ndarray:
    # 1 + Lomax(tail) is Pareto with minimum 1: P(visits >= k) = k^-tail for whole k.
    return np.minimum(cap, np.floor(1.0 + rng.pareto(tail, users))).astype(np.int64)


def _propensities(rng, users: int, devices: np.ndarray, base_rate: float, concentration: float) -> np.ndarray:
    a = base_rate * concentration
    raw = rng.beta(a, concentration - a, users) * np.asarray(DEVICE_LIFT)[devices]
    return np.clip(raw, 0.0, MAX_PROPENSITY)


def _strictly_increasing(user: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """Nudge times so one user never has two visits in the same second (rows sorted by user, time):
    a repeated (user, time) pair then only ever comes from the logging fault."""
    position = np.arange(len(seconds))
    shifted = pd.Series(seconds - position).groupby(user).cummax().to_numpy()
    return shifted + position


def _visits(rng, params, users: int, visits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    horizon = params.days * DAY_SECONDS
    first = rng.integers(0, horizon, users)
    user = np.repeat(np.arange(users), visits)
    later = rng.random(len(user))
    seconds = first[user] + (later * (horizon - first[user])).astype(np.int64)
    starts = np.cumsum(visits) - visits
    seconds[starts] = first  # each user's first visit is the one that assigned the arm
    order = np.lexsort((seconds, user))
    user, seconds = user[order], seconds[order]
    seconds = np.minimum(_strictly_increasing(user, seconds), horizon - 1)
    # Nudging may push a heavy user's last visits past the end: pull them back, keeping them distinct.
    from_end = _strictly_increasing(user[::-1], (horizon - 1 - seconds)[::-1])
    return user, (horizon - 1 - from_end)[::-1]


def build_experiment(spec: ExperimentSpec, params) -> tuple[pd.DataFrame, ExperimentTruth]:
    """The sessions log (sorted by time, as a logger writes it) and its truth."""
    rng = np.random.default_rng(spec.seed)
    arm = rng.integers(0, 2, spec.users)
    device = rng.choice(len(DEVICES), spec.users, p=DEVICE_SHARES)
    country = rng.choice(len(COUNTRIES), spec.users, p=COUNTRY_SHARES)
    propensity = _propensities(rng, spec.users, device, params.base_rate, params.concentration)
    propensity = propensity + spec.effect * arm
    visits = _visits_per_user(rng, spec.users, params.visits_tail, params.max_visits)
    user, seconds = _visits(rng, params, spec.users, visits)
    converted = rng.random(len(user)) < propensity[user]
    revenue = np.where(converted, np.round(rng.lognormal(3.4, 0.8, len(user)), 2), 0.0)

    fault_arm = int(rng.integers(0, 2))
    fault_day = int(rng.integers(1, params.days - params.fault_days))
    day_of_visit = seconds // DAY_SECONDS
    on_fault = (arm[user] == fault_arm) & (day_of_visit >= fault_day) & (day_of_visit < fault_day + params.fault_days)
    share = np.where(converted, params.fault_converted_share, params.fault_other_share)
    twice = on_fault & (rng.random(len(user)) < share)
    copies = 1 + twice.astype(np.int64)

    user_ids = np.array([f"u{index:06d}" for index in range(spec.users)])
    times = (START + seconds.astype("timedelta64[s]")).astype(str)
    frame = pd.DataFrame({
        "user_id": np.repeat(user_ids[user], copies),
        "arm": np.repeat(np.asarray(ARMS)[arm[user]], copies),
        "visit_time": np.repeat(times, copies),
        "device": np.repeat(np.asarray(DEVICES)[device[user]], copies),
        "country": np.repeat(np.asarray(COUNTRIES)[country[user]], copies),
        "converted": np.repeat(converted.astype(np.int64), copies),
        "revenue": np.repeat(revenue, copies),
    })
    frame = frame.sort_values(["visit_time", "user_id"], kind="stable").reset_index(drop=True)
    day = str((START + np.timedelta64(fault_day * DAY_SECONDS, "s")).astype("datetime64[D]"))
    truth = ExperimentTruth(float(spec.effect), ARMS[fault_arm], day, params.fault_days, int(twice.sum()))
    return frame, truth
