"""Paired comparisons of calibration rows against the careful reference, and the binomial interval of coverage.

A task is valid only when its careful reference beats every cheap cheater on the headline by more than
chance: the 95% interval of careful's margin over the cheater must exclude zero. The margin is paired, on
the same hidden data: over the hidden experiments (ab_test: the mean Winkler difference, experiments
resampled together) or over the holdout rows (spam: the F1 difference, rows resampled together, which for
F1 is a multinomial draw over the eight (truth, careful, other) cells). Both bootstraps are seeded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum

import numpy as np

RESAMPLES = 4000
BOOTSTRAP_SEED = 0
LEVEL = 0.95
Z95 = 1.959963984540054


class RowKind(StrEnum):
    """What a calibration row is."""

    REFERENCE = "reference"  # careless, half, careful ...: an analysis, right or wrong
    CHEATER = "cheater"  # a degenerate baseline that does no real analysis: a constant, a hard-coded answer ...
    # Careful's own analysis with a public prior on top: it needs every step the task measures, so careful ties
    # it and is not asked to beat it (a posterior under what the public code implies is the Bayes rule for an
    # averaged score, so in expectation nothing beats it; docs/tasks.md, ab_test's "Calibration").
    WITH_PRIOR = "with_prior"


@dataclass(frozen=True)
class PairedInterval:
    """Careful's margin over another row on the headline (positive: careful is better), with its interval."""

    estimate: float
    low: float
    high: float
    resamples: int = RESAMPLES
    seed: int = BOOTSTRAP_SEED
    over: str = ""  # what was resampled: "experiments" or "holdout rows"

    @property
    def careful_better(self) -> bool:
        """The interval lies above zero: careful beats the other row by more than chance."""
        return self.low > 0

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "careful_better": self.careful_better}


def _percentiles(values: np.ndarray) -> tuple[float, float]:
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def paired_mean_margin(careful: Sequence[float], other: Sequence[float], lower_is_better: bool,
                       resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED) -> PairedInterval:
    """Careful's margin in the mean of a per-experiment score, experiments resampled with replacement."""
    a, b = np.asarray(careful, dtype=float), np.asarray(other, dtype=float)
    if a.shape != b.shape or a.size == 0:
        raise ValueError("paired scores need the same, non-empty set of experiments")
    margin = (b - a) if lower_is_better else (a - b)
    picks = np.random.default_rng(seed).integers(0, margin.size, (resamples, margin.size))
    low, high = _percentiles(margin[picks].mean(axis=1))
    return PairedInterval(float(margin.mean()), low, high, resamples, seed, "experiments")


def _f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    denominator = 2 * tp + fp + fn
    return np.divide(2 * tp, denominator, out=np.zeros(tp.shape, dtype=float), where=denominator > 0)


def paired_f1_margin(truth: np.ndarray, careful: np.ndarray, other: np.ndarray,
                     resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED) -> PairedInterval:
    """Careful's F1 minus the other row's, holdout rows resampled with replacement (0/1 arrays, one order)."""
    t, c, o = (np.asarray(x, dtype=np.int64) for x in (truth, careful, other))
    if not (t.shape == c.shape == o.shape) or t.size == 0:
        raise ValueError("paired predictions need the same, non-empty set of rows")
    cells = np.bincount(t * 4 + c * 2 + o, minlength=8)  # cell index = truth, careful, other as bits
    counts = np.random.default_rng(seed).multinomial(t.size, cells / t.size, size=resamples)

    def f1_of(prediction_bit: int, draws: np.ndarray) -> np.ndarray:
        index = np.arange(8)
        predicted, actual = (index >> prediction_bit) & 1, index >> 2
        tp = draws[..., (predicted == 1) & (actual == 1)].sum(axis=-1)
        fp = draws[..., (predicted == 1) & (actual == 0)].sum(axis=-1)
        fn = draws[..., (predicted == 0) & (actual == 1)].sum(axis=-1)
        return _f1(tp, fp, fn)

    estimate = float(f1_of(1, cells) - f1_of(0, cells))
    low, high = _percentiles(f1_of(1, counts) - f1_of(0, counts))
    return PairedInterval(estimate, low, high, resamples, seed, "holdout rows")


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (coverage over the hidden experiments)."""
    if trials <= 0:
        raise ValueError("no trials")
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)
