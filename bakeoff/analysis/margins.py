"""The ranked board's margins: each row's paired advantage over the row ranked after it, on their shared seeds, and
where that interval holds zero, about how many runs per model would separate a difference of that size.

The runs needed come from a normal approximation on the paired differences' observed spread:
n = ((z_{1 - alpha/2} + z_{power}) * sd / |d|)^2, with a two-sided 5% level and 80% power. It is a rough guide
(the spread of a few runs is itself uncertain), said as "about".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from bakeoff.analysis.core import PairedComparison
from bakeoff.analysis.stats import Estimate

POWER = 0.8
ALPHA = 0.05  # two-sided
RUNS_NEEDED_RULE = (f"about how many runs per model would separate a difference of that size with {POWER:.0%} power "
                    f"at a two-sided {ALPHA:.0%} level: n = ((z_{1 - ALPHA / 2:g} + z_{POWER:g}) * sd / |d|)^2, "
                    "sd the spread of the paired differences (a normal approximation)")


@dataclass(frozen=True)
class Margin:
    """A row against the next one down the board."""

    row: str
    next_row: str
    advantage: Estimate | None  # the row's advantage over next_row (positive: the row is better); None: no shared seed
    spread: float | None  # the paired differences' standard deviation
    runs_needed: int | None  # where the advantage's interval holds zero (and the spread says), else None

    @property
    def separated(self) -> bool:
        a = self.advantage
        return a is not None and a.has_interval and (a.low > 0 or a.high < 0)


def runs_to_separate(difference: float, spread: float | None, power: float = POWER, alpha: float = ALPHA) -> int | None:
    """Runs per model for a paired comparison to tell `difference` from zero, or None where the spread cannot say
    (no spread, none at all, or no difference to separate)."""
    if spread is None or spread <= 0 or difference == 0:
        return None
    z = NormalDist().inv_cdf
    return math.ceil(((z(1 - alpha / 2) + z(power)) * spread / abs(difference)) ** 2)


def advantage_of(pair: PairedComparison, row: str) -> Estimate | None:
    """The pair's difference as `row`'s advantage over the other (a pair's difference is model_a's)."""
    d = pair.difference
    if d is None or pair.model_a == row:
        return d
    return Estimate(-d.mean, -d.high, -d.low, d.n)


def next_row_margins(ranked: Sequence[str], pairs: Sequence[PairedComparison]) -> dict[str, Margin]:
    """row -> its margin over the row ranked after it (the last row has none)."""
    by_rows = {frozenset((p.model_a, p.model_b)): p for p in pairs}
    margins = {}
    for row, below in zip(ranked, ranked[1:], strict=False):
        pair = by_rows.get(frozenset((row, below)))
        if pair is None:
            continue
        advantage = advantage_of(pair, row)
        needed = None
        if advantage is not None and advantage.has_interval and advantage.low <= 0 <= advantage.high:
            needed = runs_to_separate(advantage.mean, pair.spread)
        margins[row] = Margin(row, below, advantage, pair.spread, needed)
    return margins
