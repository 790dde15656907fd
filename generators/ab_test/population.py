"""The population an experiment's users are drawn from, and the exact rates that define its true effect.

A visitor is a person (most) or a bot (a small share). A person visits a heavy-tailed number of times and
converts on each visit with their own propensity: a Beta draw, times their device's lift, times
(visits / typical visits) ** engagement, capped; people who come back often buy more often per visit.
A bot visits many times and never buys.

The estimand is the visit-weighted conversion rate (converted visits over visits). Arm B multiplies every
visitor's propensity by (1 + lift), so its effect on the population's visit-weighted rate is
lift * R, with R = E[visits * propensity] / E[visits] in arm A; the generator sets lift = effect / R, which
makes the true effect exactly `effect`. Because propensity grows with visits, the average of per-user rates
moves by lift * E[propensity] instead, a different number (`per_user_effect`): right unit, wrong estimand.
R is computed here exactly (the visit counts are a finite distribution, the Beta cap an incomplete Beta
function), never estimated from a sample.

Since 3.1 the new page need not move every visitor alike: B may add a tilt that helps one-visit people and
hinders people who come back often, or the reverse (`tilt_of_visits`: +1 at one visit, -1 from
TILT_PIVOT_VISITS visits on). B's propensities are then A's times (1 + lift + tilt * s(visits)), and the
generator solves lift so that the visit-weighted effect is still exactly `effect`; the per-user average moves
by a number the tilt pulls away from it, in either direction, so an analysis of the wrong estimand misses
by more than its interval on most experiments instead of by a share of the effect.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

DEVICES = ("desktop", "mobile", "tablet")
DEVICE_SHARES = (0.45, 0.45, 0.10)
DEVICE_LIFT = (1.2, 0.8, 1.0)  # propensity multipliers: desktop users buy more often (their mean is 1)
BOT_DEVICE = 0  # bots report a desktop browser
MAX_PROPENSITY = 0.5  # arm A's propensity is capped here ...
MAX_LIFT = 0.9  # ... and |lift| + |tilt| stays below this, so arm B's propensity stays inside [0, 0.95]
# A tilt's direction per visit count: +1 at one visit, 0 at two, -1 from this many visits on (log-linear between).
TILT_PIVOT_VISITS = 4


@dataclass(frozen=True)
class Population:
    """The knobs of the visitor population (a slice of AbParams)."""

    base_rate: float  # mean Beta draw: a typical person's per-visit propensity before engagement and device
    concentration: float  # Beta(a + b): smaller means people differ more
    visits_tail: float  # P(visits >= k) = k ** -visits_tail for a person, capped at max_visits
    max_visits: int
    engagement: float  # exponent of the visits factor in a person's propensity
    bot_share: float
    bot_min_visits: int
    bot_max_visits: int

    @property
    def beta_shape(self) -> tuple[float, float]:
        a = self.base_rate * self.concentration
        return a, self.concentration - a


def visit_probabilities(tail: float, cap: int) -> np.ndarray:
    """P(visits = k) for k = 1 .. cap (index k - 1) of floor(1 + Lomax(tail)) capped at `cap`."""
    k = np.arange(1, cap + 1, dtype=float)
    at_least = k ** -tail
    return at_least - np.append(at_least[1:], 0.0)


def engagement_factor(visits: np.ndarray, population: Population) -> np.ndarray:
    """(visits ** engagement) / E[visits ** engagement] over people: mean 1, rising with visits."""
    k = np.arange(1, population.max_visits + 1, dtype=float)
    typical = float(np.sum(visit_probabilities(population.visits_tail, population.max_visits) * k**population.engagement))
    return np.asarray(visits, dtype=float) ** population.engagement / typical


def tilt_of_visits(visits: np.ndarray) -> np.ndarray:
    """The direction a tilt moves a visitor with this many visits: +1 at one visit, -1 from TILT_PIVOT_VISITS on."""
    logs = np.log(np.asarray(visits, dtype=float))
    return 1.0 - 2.0 * np.minimum(1.0, logs / np.log(TILT_PIVOT_VISITS))


def _capped_beta_mean(scale: np.ndarray, a: float, b: float, cap: float) -> np.ndarray:
    """E[min(cap, scale * B)] for B ~ Beta(a, b), elementwise over `scale` (> 0)."""
    threshold = np.minimum(1.0, cap / scale)
    below = a / (a + b) * special.betainc(a + 1.0, b, threshold)  # E[B; B < threshold]
    above = 1.0 - special.betainc(a, b, threshold)  # P(B >= threshold)
    return scale * below + cap * above


@dataclass(frozen=True)
class Rates:
    """Exact population moments in arm A (bots included)."""

    visit_weighted: float  # R = E[visits * propensity] / E[visits]: the stated estimand's base
    per_user: float  # E[propensity]: what an average of per-user rates estimates
    visit_weighted_tilt: float  # E[visits * propensity * tilt_of_visits] / E[visits]: a unit tilt's visit-weighted effect
    per_user_tilt: float  # E[propensity * tilt_of_visits]: a unit tilt's effect on the mean of per-user rates
    bot_visit_share: float  # share of all visits made by bots

    def lift_for(self, effect: float, tilt: float) -> float:
        """The lift that makes B's visit-weighted effect exactly `effect` when B also carries `tilt`."""
        return (effect - tilt * self.visit_weighted_tilt) / self.visit_weighted

    def per_user_effect(self, lift: float, tilt: float) -> float:
        """What B with this lift and tilt moves the mean of per-user rates by."""
        return lift * self.per_user + tilt * self.per_user_tilt


def population_rates(population: Population) -> Rates:
    p = population
    a, b = p.beta_shape
    k = np.arange(1, p.max_visits + 1, dtype=float)
    pmf = visit_probabilities(p.visits_tail, p.max_visits)
    factor = engagement_factor(k, p)
    person_mean_propensity = np.zeros_like(k)  # E[propensity | visits = k], over devices and the Beta draw
    for share, lift in zip(DEVICE_SHARES, DEVICE_LIFT, strict=True):
        person_mean_propensity += share * _capped_beta_mean(lift * factor, a, b, MAX_PROPENSITY)
    person_visits = float(np.sum(pmf * k))
    bot_visits = (p.bot_min_visits + p.bot_max_visits) / 2.0
    people, bots = 1.0 - p.bot_share, p.bot_share
    visits = people * person_visits + bots * bot_visits
    converted = people * float(np.sum(pmf * k * person_mean_propensity))
    tilted = person_mean_propensity * tilt_of_visits(k)  # bots never buy: a tilt does not reach them
    return Rates(
        visit_weighted=converted / visits,
        per_user=people * float(np.sum(pmf * person_mean_propensity)),
        visit_weighted_tilt=people * float(np.sum(pmf * k * tilted)) / visits,
        per_user_tilt=people * float(np.sum(pmf * tilted)),
        bot_visit_share=bots * bot_visits / visits,
    )
