"""One experiment's sessions log: visitors, their visits, their purchases, and the logging fault.

Each visitor gets an arm once (a fair coin), a device, a country, a number of visits and a per-visit
propensity (generators.ab_test.population: people who come back often buy more often; a few bots visit
many times and never buy). A visitor's visits fall uniformly over the test's days, so traffic is flat;
the first one is the visit that assigned the arm. B multiplies every propensity by (1 + lift), with the
lift chosen so that the effect on the population's visit-weighted conversion rate is exactly `effect`;
a hidden experiment may also carry a tilt (generators.ab_test.population: B moves one-visit people and
frequent visitors differently), the lift then solved so that the visit-weighted effect stays `effect`.

Then, on `fault_days` consecutive days, one arm's logger misbehaves: it writes purchases twice (some as an
exact repeat of the row, some re-fired a few seconds later with a new timestamp and the same amount) and
some visits without a purchase twice (exact repeats). A careless estimate is biased toward that arm;
dropping exact repeats removes only part of the bias.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from generators.ab_test.params import ARMS, AbParams
from generators.ab_test.population import (
    BOT_DEVICE,
    DEVICE_LIFT,
    DEVICE_SHARES,
    DEVICES,
    MAX_LIFT,
    MAX_PROPENSITY,
    Population,
    engagement_factor,
    population_rates,
    tilt_of_visits,
)
from generators.errors import InvalidParameter

START = np.datetime64("2026-03-02T00:00:00", "s")
DAY_SECONDS = 86_400
COUNTRIES = ("US", "DE", "GB", "FR", "IN", "BR")
COUNTRY_SHARES = (0.40, 0.15, 0.15, 0.10, 0.10, 0.10)
REFIRE_DELAY_S = (2, 45)  # a re-fired purchase lands this many seconds after the original
COLUMNS = ("user_id", "arm", "visit_time", "device", "country", "converted", "revenue")


@dataclass(frozen=True)
class Conditions:
    """The population and the logging fault of one experiment: the parameters' own for the visible one (and for
    every experiment before 3.0), drawn per hidden experiment from the seed and the secret since 3.0."""

    population: Population
    fault_days: int
    fault_converted_share: float
    fault_other_share: float
    refire_share: float

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self.population), "fault_days": self.fault_days,
                "fault_converted_share": self.fault_converted_share, "fault_other_share": self.fault_other_share,
                "refire_share": self.refire_share}


def conditions_of(params: AbParams) -> Conditions:
    return Conditions(params.population, params.fault_days, params.fault_converted_share, params.fault_other_share,
                      params.refire_share)


@dataclass(frozen=True)
class ExperimentSpec:
    """What one experiment is drawn from: its own seed (128 bits for a hidden one), size, effect and, for a hidden
    experiment, its own conditions (None: the parameters') and tilt (0: B moves every visitor alike)."""

    seed: int
    users: int
    effect: float
    conditions: Conditions | None = field(default=None, compare=True)
    tilt: float = 0.0


@dataclass(frozen=True)
class ExperimentTruth:
    """What is kept from the model: the true effect, how it was planted, and where the fault is."""

    effect: float  # on the visit-weighted conversion rate: the estimand
    per_user_effect: float  # on the mean of per-user rates: what a per-user average estimates instead
    lift: float  # B's propensities are A's times (1 + lift + tilt * tilt_of_visits(visits))
    tilt: float
    users: int
    bots: int
    fault_arm: str
    fault_day: str  # YYYY-MM-DD, the first faulty day
    fault_days: int
    duplicated_rows: int  # every extra row the fault wrote ...
    refired_rows: int  # ... of which these are purchases re-fired with a new timestamp (not exact repeats)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _visits_per_user(rng: np.random.Generator, bots: np.ndarray, population: Population) -> np.ndarray:
    # 1 + Lomax(tail) is Pareto with minimum 1: P(visits >= k) = k^-tail for whole k.
    people = np.minimum(population.max_visits, np.floor(1.0 + rng.pareto(population.visits_tail, bots.size)))
    people = people.astype(np.int64)
    robots = rng.integers(population.bot_min_visits, population.bot_max_visits + 1, bots.size)
    return np.where(bots, robots, people)


def _propensities(rng: np.random.Generator, device: np.ndarray, visits: np.ndarray, bots: np.ndarray,
                  population: Population) -> np.ndarray:
    a, b = population.beta_shape
    raw = rng.beta(a, b, device.size) * np.asarray(DEVICE_LIFT)[device] * engagement_factor(visits, population)
    return np.where(bots, 0.0, np.minimum(raw, MAX_PROPENSITY))


def _strictly_increasing(user: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """Nudge times so one user never has two visits in the same second (rows sorted by user, time):
    a repeated (user, time) pair then only ever comes from the logging fault."""
    position = np.arange(len(seconds))
    shifted = pd.Series(seconds - position).groupby(user).cummax().to_numpy()
    return shifted + position


def _visit_times(rng: np.random.Generator, params: AbParams, visits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(user, second) of every visit, sorted by user then time: each visit uniform over the test, so the
    traffic of a day does not depend on the day; a user's first visit is simply their earliest."""
    horizon = params.days * DAY_SECONDS
    user = np.repeat(np.arange(visits.size), visits)
    seconds = rng.integers(0, horizon, user.size)
    order = np.lexsort((seconds, user))
    user, seconds = user[order], seconds[order]
    seconds = np.minimum(_strictly_increasing(user, seconds), horizon - 1)
    # Nudging may push a heavy user's last visits past the end: pull them back, keeping them distinct.
    from_end = _strictly_increasing(user[::-1], (horizon - 1 - seconds)[::-1])
    return user, (horizon - 1 - from_end)[::-1]


def _refire_seconds(user: np.ndarray, seconds: np.ndarray, picked: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A few seconds after each picked visit, never on a second its user already has a visit or a copy on."""
    if picked.size == 0:
        return np.empty(0, dtype=np.int64)
    taken = set(zip(user.tolist(), seconds.tolist(), strict=True))
    delays = rng.integers(REFIRE_DELAY_S[0], REFIRE_DELAY_S[1] + 1, picked.size)
    out = np.empty(picked.size, dtype=np.int64)
    for index, (row, delay) in enumerate(zip(picked.tolist(), delays.tolist(), strict=True)):
        second = int(seconds[row]) + delay
        while (int(user[row]), second) in taken:
            second += 1
        taken.add((int(user[row]), second))
        out[index] = second
    return out


def build_experiment(spec: ExperimentSpec, params: AbParams) -> tuple[pd.DataFrame, ExperimentTruth]:
    """The sessions log (sorted by time, as a logger writes it) and its truth."""
    rng = np.random.default_rng(spec.seed)
    conditions = spec.conditions or conditions_of(params)
    population = conditions.population
    rates = population_rates(population)
    lift = rates.lift_for(spec.effect, spec.tilt)
    # Without a tilt the parameters' own validation bounds the lift (as before 3.1); with one, B's propensity
    # would leave [0, 1] for some visitor past this.
    if spec.tilt and abs(lift) + abs(spec.tilt) > MAX_LIFT:
        raise InvalidParameter(f"an effect of {spec.effect} with a tilt of {spec.tilt} needs |lift| + |tilt| = "
                               f"{abs(lift) + abs(spec.tilt):.3f}, more than {MAX_LIFT}: lower the tilt or the effect")
    arm = rng.integers(0, 2, spec.users)
    bots = rng.random(spec.users) < population.bot_share
    device = np.where(bots, BOT_DEVICE, rng.choice(len(DEVICES), spec.users, p=DEVICE_SHARES))
    country = rng.choice(len(COUNTRIES), spec.users, p=COUNTRY_SHARES)
    visits = _visits_per_user(rng, bots, population)
    # Without a tilt, lift + 0 * s is lift exactly: an untilted experiment draws what it drew before 3.1.
    relative_change = lift + spec.tilt * tilt_of_visits(visits)
    propensity = _propensities(rng, device, visits, bots, population) * (1.0 + relative_change * arm)
    user, seconds = _visit_times(rng, params, visits)
    converted = rng.random(user.size) < propensity[user]
    revenue = np.where(converted, np.round(rng.lognormal(3.4, 0.8, user.size), 2), 0.0)

    fault_arm = int(rng.integers(0, 2))
    fault_day = int(rng.integers(1, params.days - conditions.fault_days))
    day_of_visit = seconds // DAY_SECONDS
    on_fault = (arm[user] == fault_arm) & (day_of_visit >= fault_day) & (day_of_visit < fault_day + conditions.fault_days)
    share = np.where(converted, conditions.fault_converted_share, conditions.fault_other_share)
    twice = on_fault & (rng.random(user.size) < share)
    refired = twice & converted & (rng.random(user.size) < conditions.refire_share)
    exact = twice & ~refired

    rows = np.concatenate([np.arange(user.size), np.flatnonzero(exact), np.flatnonzero(refired)])
    stamp = np.concatenate([seconds, seconds[exact], _refire_seconds(user, seconds, np.flatnonzero(refired), rng)])
    user_ids = np.array([f"u{index:06d}" for index in range(spec.users)])
    frame = pd.DataFrame({
        "user_id": user_ids[user[rows]],
        "arm": np.asarray(ARMS)[arm[user[rows]]],
        "visit_time": (START + stamp.astype("timedelta64[s]")).astype(str),
        "device": np.asarray(DEVICES)[device[user[rows]]],
        "country": np.asarray(COUNTRIES)[country[user[rows]]],
        "converted": converted[rows].astype(np.int64),
        "revenue": revenue[rows],
    })
    frame = frame.sort_values(["visit_time", "user_id"], kind="stable").reset_index(drop=True)
    day = str((START + np.timedelta64(fault_day * DAY_SECONDS, "s")).astype("datetime64[D]"))
    truth = ExperimentTruth(
        effect=float(spec.effect), per_user_effect=round(rates.per_user_effect(lift, spec.tilt), 6),
        lift=round(float(lift), 6), tilt=round(float(spec.tilt), 6),
        users=spec.users, bots=int(bots.sum()), fault_arm=ARMS[fault_arm], fault_day=day,
        fault_days=conditions.fault_days, duplicated_rows=int(twice.sum()), refired_rows=int(refired.sum()),
    )
    return frame, truth
