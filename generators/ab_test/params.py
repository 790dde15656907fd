"""The knobs of the A/B-test take-home's data, validated once, passed down explicitly."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from generators.errors import InvalidParameter

GENERATOR_VERSION = "ab_test-1.0"

# Below this many users per experiment an arm may hold too few converters for any interval to mean much.
MIN_USERS = 200
ARMS = ("A", "B")


@dataclass(frozen=True)
class AbParams:
    """Everything that determines the visible experiment and the hidden ones. Same params => same bytes."""

    seed: int = 0
    users: int = 20_000  # the visible experiment, the one the model analyses
    effect: float = 0.01  # its true effect of B on the per-visit conversion rate (absolute)
    experiments: int = 48  # hidden experiments
    holdout_users: int = 20_000  # users per hidden experiment
    zero_effect_share: float = 0.25  # share of hidden experiments where B does nothing
    max_effect: float = 0.02  # the other hidden effects are drawn uniformly from [0.001, max_effect]
    base_rate: float = 0.08  # mean per-visit conversion propensity of a user in arm A
    concentration: float = 3.0  # Beta(a + b); smaller means users differ more (stronger within-user correlation)
    visits_tail: float = 1.7  # Pareto index of visits per user: P(visits >= k) = k^-tail
    max_visits: int = 100
    days: int = 14
    fault_days: int = 2  # consecutive days on which one arm's logger misbehaves
    fault_converted_share: float = 1.0  # on the fault days, share of the faulty arm's converted sessions logged twice
    fault_other_share: float = 0.1  # ... and of its sessions that did not convert

    def __post_init__(self) -> None:
        validate(self)

    def to_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def validate(p: AbParams) -> None:
    """Raise InvalidParameter naming the first bad field."""
    _whole("seed", p.seed, 0)
    _whole("users", p.users, MIN_USERS)
    _whole("holdout_users", p.holdout_users, MIN_USERS)
    _whole("experiments", p.experiments, 1)
    _whole("max_visits", p.max_visits, 1)
    _whole("days", p.days, 4)
    _whole("fault_days", p.fault_days, 1)
    if p.fault_days > p.days - 2:
        raise InvalidParameter(f"fault_days must leave the first and the last day clean, got {p.fault_days} of {p.days}")
    for name in ("zero_effect_share", "fault_converted_share", "fault_other_share"):
        _number(name, getattr(p, name), 0.0, 1.0)
    _number("base_rate", p.base_rate, 0.001, 0.5)
    _number("effect", p.effect, 0.0, 0.05)
    _number("max_effect", p.max_effect, 0.001, 0.05)
    _number("concentration", p.concentration, 0.1, 1000.0)
    _number("visits_tail", p.visits_tail, 0.5, 10.0)


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
