"""How the hidden experiments differ from the visible one and from each other (generators 3.0 and 3.1).

Before 3.0 every hidden experiment shared the visible one's population and fault, and differed only in size,
effect and the fault's place: the per-user variance was a constant, so a width fitted to the number of users
on the visible experiment, or a visit-level interval inflated by the design effect measured once on it, was as
good as estimating the variance. Since 3.0 each hidden experiment draws its own conditions from the seed and
the secret, around the parameters' values: base rate, concentration (how much people differ, so the
within-user correlation), visits tail (how many visits a user makes, so the cluster sizes), engagement, bot
share and the fault's length and sizes. The variance of an estimate, and the design effect of a visit-level
analysis, then move from experiment to experiment and only the data tell them.

The effects follow a distribution drawn once per corpus from the seed and the secret: the share without an
effect, the shape (uniform, normal or Laplace) and the scale (absolute, capped per experiment at a relative
lift of 0.8 of its own visit-weighted rate). Knowing the public
generator's distribution of distributions (`public_effect_draws`) tells a submission much less than knowing
the one its corpus was drawn with.

Each corpus also draws its centre: base rate, cluster sizes and engagement moved together away from the
visible experiment's (lighter), so that a width per user or a design effect measured on the visible experiment
is off for the hidden ones by a factor the secret decides.

Since 3.1 each experiment also draws a tilt (generators.ab_test.population): the new page moves one-visit
people and frequent visitors by different amounts, with the visit-weighted effect still the one drawn (zero
for a null experiment, whose tilt helps one kind of visitor as much as it hinders the other: a log without a
tilt would otherwise tell its effect is exactly zero). The per-user and the visit-weighted effects then part
by an amount and a sign the data tell and the size does not, so an analysis of the mean of per-user rates (the
right unit, the wrong estimand) misses on most experiments instead of by a share of the effect.
The tilts are drawn after everything else, so each 3.1 experiment has its 3.0 seed, size and base rate.
3.1 also widens the ranges of the concentration (x1/3 to x3 in 3.0), the visits tail (x0.8 to x1.25) and the bot
share (x1/4 to x4), so that a design effect fixed on the visible experiment misses more hidden ones, too wide or
too narrow, and has 144 hidden experiments instead of 96: at 96 careful's margin over that fixed design effect
(about +0.005) was within chance on one secret in three (measured at full size: docs/calibration.md, ab_test).

`condition_spread` scales every range (0: the parameters' own conditions in every experiment, with effects
drawn as before 3.0: a share `zero_effect_share` at zero, the rest uniform in [-max_effect, max_effect]).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from generators.ab_test.params import AbParams
from generators.ab_test.population import MAX_LIFT, population_rates
from generators.ab_test.sessions import Conditions, conditions_of

SHAPES = ("uniform", "normal", "laplace")
# The corpus's centre: base rate, visits (cluster sizes) and engagement moved together away from the visible
# experiment's, always lighter, by a load log-uniform in this range (drawn with the secret): the base rate
# divided by the load, the visits tail multiplied by load ** CENTRE_TAIL_POWER (smaller clusters), engagement
# divided by load ** CENTRE_ENGAGEMENT_POWER. A width per user or a design effect measured on the visible
# experiment is then too wide for every hidden one, by a factor (about 1.5 to 2.5) only the secret knows.
# Lighter, not heavier, because the propensity cap and engagement's ceiling leave little room above the
# visible experiment (a heavier centre moved the design effect by a factor of 1.2 at most).
CENTRE_LOAD_RANGE = (1.5, 3.0)
CENTRE_TAIL_POWER = 0.3
CENTRE_ENGAGEMENT_POWER = 0.9
# Multiplicative ranges (log-uniform between) of each experiment's knobs around the centre at condition_spread 1.
BASE_RATE_RANGE = (0.5, 2.0)
CONCENTRATION_RANGE = (1 / 5, 5.0)
VISITS_TAIL_RANGE = (0.45, 2.4)  # 3.2 (3.1: x0.6 to x1.8, 3.0: x0.8 to x1.25)
ENGAGEMENT_RANGE = (0.5, 1.5)  # uniform: a multiple of the centre's engagement
BOT_SHARE_RANGE = (0.125, 8.0)
FAULT_OTHER_RANGE = (0.0, 2.0)  # uniform: a multiple of fault_other_share
FAULT_CONVERTED_RANGE = (0.5, 1.0)  # uniform: a multiple of fault_converted_share
REFIRE_REACH = 0.25  # refire_share +- this
# The effect distribution: null share uniform in [0, NULL_SHARE_REACH * zero_effect_share] (below the stated
# quarter on average: a shrinkage toward zero that assumes a quarter over-shrinks more often than not), reach
# log-uniform in this range times max_effect, converted to a relative lift by each experiment's own rate.
NULL_SHARE_REACH = 0.8
EFFECT_REACH_RANGE = (0.7, 2.5)
LARGEST_RELATIVE_LIFT = MAX_LIFT - 0.1  # relative lifts are clipped here: arm B's propensity stays below 1
# The tilt: each corpus draws its reach log-uniform in this range; an experiment with an effect draws a sign
# and a size uniform in [TILT_LEAST_SHARE, 1] of the reach, capped so that |lift| + |tilt| <= MAX_LIFT.
TILT_REACH_RANGE = (0.4, 0.8)
TILT_LEAST_SHARE = 1 / 3


@dataclass(frozen=True)
class EffectPrior:
    """One corpus's distribution of hidden effects."""

    null_share: float
    shape: str
    reach: float  # absolute; uniform: half-width; normal: two standard deviations; Laplace: three scales

    def draw(self, rng: np.random.Generator, rates: np.ndarray) -> np.ndarray:
        """Relative lifts for experiments of these visit-weighted rates: the shape times the reach over the rate,
        that capped at LARGEST_RELATIVE_LIFT (a low-rate experiment cannot move by more than it has)."""
        count = len(rates)
        if self.shape == "uniform":
            unit = rng.uniform(-1.0, 1.0, count)
        elif self.shape == "normal":
            unit = rng.normal(0.0, 0.5, count)
        else:
            unit = rng.laplace(0.0, 1 / 3, count)
        reach = np.minimum(self.reach / rates, LARGEST_RELATIVE_LIFT)
        lifts = np.clip(unit * reach, -LARGEST_RELATIVE_LIFT, LARGEST_RELATIVE_LIFT)
        return np.where(rng.random(count) < self.null_share, 0.0, lifts)

    def to_dict(self) -> dict[str, object]:
        return {"null_share": round(self.null_share, 4), "shape": self.shape, "reach": round(self.reach, 4)}


def _log_uniform(rng: np.random.Generator, bounds: tuple[float, float], spread: float) -> float:
    return math.exp(spread * rng.uniform(math.log(bounds[0]), math.log(bounds[1])))


def _spread_uniform(rng: np.random.Generator, bounds: tuple[float, float], spread: float) -> float:
    """Uniform in bounds pulled toward 1 by `spread` (0: exactly 1)."""
    return 1.0 + spread * (rng.uniform(*bounds) - 1.0)


def draw_effect_prior(rng: np.random.Generator, params: AbParams) -> EffectPrior:
    spread = params.condition_spread
    null_share = min(1.0, params.zero_effect_share * _spread_uniform(rng, (0.0, NULL_SHARE_REACH), spread))
    shape = SHAPES[int(rng.integers(len(SHAPES)))]
    return EffectPrior(null_share, shape, params.max_effect * _log_uniform(rng, EFFECT_REACH_RANGE, spread))


@dataclass(frozen=True)
class Centre:
    """One corpus's base rate, visits tail and engagement, around which its hidden experiments' are drawn."""

    base_rate: float
    visits_tail: float
    engagement: float


def draw_centre(rng: np.random.Generator, params: AbParams) -> Centre:
    load = _log_uniform(rng, CENTRE_LOAD_RANGE, params.condition_spread)
    return Centre(params.base_rate / load, params.visits_tail * load**CENTRE_TAIL_POWER,
                  params.engagement / load**CENTRE_ENGAGEMENT_POWER)


def draw_conditions(rng: np.random.Generator, params: AbParams, centre: Centre) -> Conditions:
    """One hidden experiment's population and fault, around the corpus's centre and the parameters' fault."""
    s = params.condition_spread
    population = replace(
        conditions_of(params).population,
        base_rate=min(0.4, centre.base_rate * _log_uniform(rng, BASE_RATE_RANGE, s)),
        concentration=min(1000.0, params.concentration * _log_uniform(rng, CONCENTRATION_RANGE, s)),
        visits_tail=centre.visits_tail * _log_uniform(rng, VISITS_TAIL_RANGE, s),
        engagement=min(1.0, centre.engagement * _spread_uniform(rng, ENGAGEMENT_RANGE, s)),
        bot_share=min(0.1, params.bot_share * _log_uniform(rng, BOT_SHARE_RANGE, s)),
    )
    longest = min(params.days - 2, 2 * params.fault_days)
    fault_days = params.fault_days if s == 0 else int(rng.integers(1, longest + 1))
    return Conditions(
        population, fault_days,
        fault_converted_share=min(1.0, params.fault_converted_share * _spread_uniform(rng, FAULT_CONVERTED_RANGE, s)),
        fault_other_share=min(1.0, params.fault_other_share * _spread_uniform(rng, FAULT_OTHER_RANGE, s)),
        refire_share=min(1.0, max(0.0, params.refire_share + s * rng.uniform(-REFIRE_REACH, REFIRE_REACH))),
    )


def hidden_effects(rng: np.random.Generator, params: AbParams, conditions: list[Conditions]) -> list[float]:
    """The true effects (absolute, rounded to 5 decimals) of experiments with these conditions."""
    count = len(conditions)
    if params.condition_spread == 0:  # the parameters' distribution, as before 3.0
        zero = set(rng.permutation(count)[: round(params.zero_effect_share * count)].tolist())
        effects = rng.uniform(-params.max_effect, params.max_effect, count)
        return [0.0 if index in zero else round(float(effects[index]), 5) for index in range(count)]
    rates = np.array([population_rates(c.population).visit_weighted for c in conditions])
    lifts = draw_effect_prior(rng, params).draw(rng, rates)
    return [round(float(lift * rate), 5) for lift, rate in zip(lifts, rates, strict=True)]


def hidden_tilts(rng: np.random.Generator, params: AbParams, conditions: list[Conditions],
                 effects: list[float]) -> list[float]:
    """Each experiment's tilt (rounded to 5 decimals): a sign, a size from the corpus's
    reach, and a cap that keeps B's propensities inside [0, 1]."""
    reach = _log_uniform(rng, TILT_REACH_RANGE, 1.0) * params.condition_spread
    signs = rng.choice((-1.0, 1.0), len(effects))
    shares = rng.uniform(TILT_LEAST_SHARE, 1.0, len(effects))
    tilts = []
    for condition, effect, sign, share in zip(conditions, effects, signs, shares, strict=True):
        rates = population_rates(condition.population)
        # |lift| <= |effect| / R + |tilt| * |c| with c = the unit tilt's visit-weighted effect over R, so this
        # cap keeps |lift| + |tilt| <= MAX_LIFT whatever the sign.
        # The 0.001 keeps rounding the effect and the tilt to 5 decimals from pushing the sum past the cap.
        room = ((MAX_LIFT - 0.001 - abs(effect) / rates.visit_weighted)
                / (1.0 + abs(rates.visit_weighted_tilt) / rates.visit_weighted))
        size = min(share * reach, max(0.0, room))
        # A null experiment is tilted too (B helps one kind of visitor as much as it hinders the other): were it
        # not, finding no tilt in a log would tell a submission that its effect is exactly zero.
        tilts.append(round(float(sign * size), 5))
    return tilts


def public_effect_draws(params: AbParams, corpora: int = 400, per_corpus: int = 96, seed: int = 0) -> np.ndarray:
    """Hidden effects as the public code makes them, pooled over many corpora drawn with a public seed: all a
    submission can know of its own corpus's effect distribution without the secret."""
    rng = np.random.default_rng(seed)
    pooled = []
    for _ in range(corpora):
        centre = draw_centre(rng, params)
        conditions = [draw_conditions(rng, params, centre) for _ in range(per_corpus)]
        pooled.extend(hidden_effects(rng, params, conditions))
    return np.asarray(pooled)
