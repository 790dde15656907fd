"""The knobs of the A/B-test take-home's data, validated once, passed down explicitly."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from generators.ab_test.population import MAX_LIFT, Population, population_rates
from generators.errors import InvalidParameter

# 2.0: experiments of different sizes, effects of both signs, propensity rising with visits, bots, a fault
# that re-fires purchases with new timestamps, flat traffic, and the hidden part keyed by a secret.
# 3.0: every hidden experiment draws its own population and fault around the parameters', and the effects a
# distribution drawn per corpus (generators.ab_test.hidden), all from the seed and the secret; the visible
# experiment is byte-identical to 2.0's, and condition_spread 0 makes the hidden part 2.0's too.
# 3.1: B may move one-visit people and frequent visitors differently (a tilt), the visit-weighted effect
# unchanged, so the per-user and the visit-weighted effects part; the concentration, visits tail and bot share of
# hidden experiments range wider, and there are 144 of them (generators.ab_test.hidden); the visible experiment
# is still 2.0's.
# 3.2: the visits tail of hidden experiments ranges wider still (x0.45 to x2.4): the design effect of a visit-level
# analysis moves more from experiment to experiment (its log's spread 0.29-0.38 -> 0.38-0.46 on four secrets), so
# one measured on the visible experiment misses more of them (docs/calibration.md, "How 3.1 and 3.2 were chosen").
GENERATOR_VERSION = "ab_test-3.2"

# Below this many users per experiment an arm may hold too few converters for any interval to mean much.
MIN_USERS = 200
ARMS = ("A", "B")


@dataclass(frozen=True)
class AbParams:
    """Everything that determines the visible experiment (with the seed) and the hidden ones (with the secret)."""

    seed: int = 0
    users: int = 20_000  # the visible experiment, the one the model analyses
    effect: float = 0.01  # its true effect of B on the visit-weighted conversion rate (absolute)
    experiments: int = 144  # hidden experiments (3.1; 96 before: too few to tell careful from a fixed design effect)
    holdout_users: int = 4_000  # users in the smallest hidden experiment ...
    holdout_size_spread: float = 20.0  # ... and the largest has this many times more (log-uniform between)
    zero_effect_share: float = 0.25  # share of hidden experiments where B does nothing
    max_effect: float = 0.05  # the other hidden effects are uniform in [-max_effect, max_effect]
    base_rate: float = 0.08  # a typical person's per-visit propensity (the Beta mean)
    concentration: float = 3.0  # Beta(a + b); smaller means people differ more (stronger within-user correlation)
    visits_tail: float = 1.7  # Pareto index of a person's visits: P(visits >= k) = k^-tail
    max_visits: int = 100
    engagement: float = 0.5  # a person's propensity grows as visits ** engagement
    bot_share: float = 0.001  # share of visitors that are bots: many visits, never a purchase
    bot_min_visits: int = 40
    bot_max_visits: int = 160
    days: int = 14
    fault_days: int = 2  # consecutive days on which one arm's logger misbehaves
    fault_converted_share: float = 1.0  # on the fault days, share of the faulty arm's purchases logged twice
    fault_other_share: float = 0.1  # ... and of its visits without a purchase (always as exact repeats)
    refire_share: float = 0.5  # share of the doubled purchases re-fired seconds later, with a new timestamp
    condition_spread: float = 1.0  # how far hidden experiments' conditions and effects wander (0: as in 2.0)

    def __post_init__(self) -> None:
        validate(self)

    def to_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def population(self) -> Population:
        return Population(self.base_rate, self.concentration, self.visits_tail, self.max_visits, self.engagement,
                          self.bot_share, self.bot_min_visits, self.bot_max_visits)


def params_of_manifest(params: dict[str, object]) -> AbParams:
    """The parameters a manifest records; one written before 3.0 has no condition_spread, and its hidden part is
    what condition_spread 0 draws."""
    return AbParams(**{"condition_spread": 0.0, **params})  # type: ignore[arg-type]


def validate(p: AbParams) -> None:
    """Raise InvalidParameter naming the first bad field."""
    _whole("seed", p.seed, 0)
    _whole("users", p.users, MIN_USERS)
    _whole("holdout_users", p.holdout_users, MIN_USERS)
    _whole("experiments", p.experiments, 1)
    _whole("max_visits", p.max_visits, 1)
    _whole("bot_min_visits", p.bot_min_visits, 1)
    _whole("bot_max_visits", p.bot_max_visits, p.bot_min_visits)
    _whole("days", p.days, 4)
    _whole("fault_days", p.fault_days, 1)
    if p.fault_days > p.days - 2:
        raise InvalidParameter(f"fault_days must leave the first and the last day clean, got {p.fault_days} of {p.days}")
    for name in ("zero_effect_share", "fault_converted_share", "fault_other_share", "refire_share", "condition_spread"):
        _number(name, getattr(p, name), 0.0, 1.0)
    _number("bot_share", p.bot_share, 0.0, 0.1)
    _number("holdout_size_spread", p.holdout_size_spread, 1.0, 1000.0)
    _number("base_rate", p.base_rate, 0.001, 0.4)
    _number("effect", p.effect, -0.05, 0.05)
    _number("max_effect", p.max_effect, 0.001, 0.2)
    _number("concentration", p.concentration, 0.1, 1000.0)
    _number("visits_tail", p.visits_tail, 0.5, 10.0)
    _number("engagement", p.engagement, 0.0, 1.0)
    rate = population_rates(p.population).visit_weighted
    largest = max(abs(p.effect), p.max_effect)
    if largest > MAX_LIFT * rate:
        raise InvalidParameter(f"an effect of {largest} is more than {MAX_LIFT:.0%} of the arm-A conversion rate "
                               f"{rate:.4f}: lower max_effect or effect, or raise base_rate")


def _whole(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameter(f"{name} must be a whole number, got {value!r}")
    if value < minimum:
        raise InvalidParameter(f"{name} must be at least {minimum}, got {value}")


def _number(name: str, value: object, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidParameter(f"{name} must be a number in [{low}, {high}], got {value!r}")
    if not low <= value <= high:
        raise InvalidParameter(f"{name} must be in [{low}, {high}], got {value}")
