"""Uncertainty: percentile bootstrap intervals from an explicit, seeded numpy Generator."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

BOOTSTRAP_SAMPLES = 10_000
LEVEL = 0.95
# Fewer values than this give no interval worth printing: two runs resample to two points, and a
# percentile interval of them is one of the two values (often [x, x]). Pages say "too few runs" instead.
# The one rule for every interval shown (report, leaderboard, scaffold tables, exports) and the plan's note.
MIN_INTERVAL_N = 3
INTERVAL_RULE = (f"95% percentile bootstrap intervals, none from fewer than {MIN_INTERVAL_N} runs "
                 "(or shared seeds) of a row, which shows 'too few runs' instead")


def too_few_runs_note(runs_per_model: int) -> str | None:
    """What a plan of `runs_per_model` runs is told before it starts when no interval can come of it."""
    if runs_per_model >= MIN_INTERVAL_N:
        return None
    return (f"runs = {runs_per_model}: no interval will appear in the report or the leaderboard (they need at least "
            f"{MIN_INTERVAL_N} runs per model); give runs = {MIN_INTERVAL_N} or more to tell models apart")


@dataclass(frozen=True)
class Estimate:
    """A mean with its bootstrap interval over n values."""

    mean: float
    low: float
    high: float
    n: int

    @property
    def has_interval(self) -> bool:
        return self.n >= MIN_INTERVAL_N

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        """(low, high), or (None, None) from too few values to say (MIN_INTERVAL_N)."""
        return (self.low, self.high) if self.has_interval else (None, None)

    def to_dict(self) -> dict:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}


def bootstrap_mean(values: Sequence[float], rng, samples: int = BOOTSTRAP_SAMPLES, level: float = LEVEL) -> Estimate | None:
    """The mean of `values` and a percentile bootstrap interval; None for no values.

    One value gives a zero-width interval: there is no spread to resample.
    """
    import numpy as np

    data = np.asarray(list(values), dtype=float)
    if data.size == 0:
        return None
    mean = float(data.mean())
    if data.size == 1:
        return Estimate(mean, mean, mean, 1)
    draws = rng.integers(0, data.size, size=(samples, data.size))
    means = data[draws].mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return Estimate(mean, float(low), float(high), int(data.size))


def rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None
