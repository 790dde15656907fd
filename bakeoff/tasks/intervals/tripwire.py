"""What a careful analysis can reach on an interval task, from the corpus's calibration.json: careful's headline
interval over the hidden items (the mean of its per-item scores with its normal 95% interval, stretched to hold its
headline on every fresh secret the calibration drew), and the thinnest interval width the truth allows, a share
of careful's own (halving an honest interval's width takes four times the data).

A task names its careful row, where the row keeps its per-item scores, and its width measure (bakeoff.taskapi.parts.Tripwire).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bakeoff.taskapi.grade import Grade
from bakeoff.taskapi.parts import Reach

Z95 = 1.959963984540054
THINNEST_SHARE = 0.5  # of careful's width: thinner needs four times the data careful had


def field_of(mapping: object, name: str) -> object:
    """`mapping[name]` of a JSON object as read, None where it is not one or lacks the name."""
    return mapping[name] if isinstance(mapping, Mapping) and name in mapping else None


def number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def careful_row(calibration: Mapping[str, object] | None, variant: str) -> Mapping[str, object] | None:
    """The calibration's reference row named `variant` (None: no calibration, or no such row)."""
    rows = field_of(calibration, "references")
    for row in rows if isinstance(rows, list) else ():
        if isinstance(row, Mapping) and field_of(row, "variant") == variant:
            return row
    return None


def mean_interval(scores: Sequence[float]) -> tuple[float, float] | None:
    """The mean of per-item scores with its normal 95% interval (None from fewer than two)."""
    if len(scores) < 2:
        return None
    mean = sum(scores) / len(scores)
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / (len(scores) - 1))
    half = Z95 * spread / math.sqrt(len(scores))
    return mean - half, mean + half


def per_item(row: Mapping[str, object], name: str) -> list[float]:
    """The row's per-item scores kept under `name` (a list, or a mapping of item to score)."""
    kept = field_of(row, name)
    values = kept.values() if isinstance(kept, Mapping) else kept if isinstance(kept, list) else ()
    return [v for v in (number(x) for x in values) if v is not None]


@dataclass(frozen=True)
class IntervalTripwire:
    """An interval task's tripwire part: its careful row, the row's per-item scores and headline, its width."""

    careful: str  # the reference row's variant
    scores: str  # the row's per-item scores (what its headline is the mean of)
    headline: str  # the row's headline figure
    width_of: Callable[[Grade], float | None]  # a run's width measure
    careful_width: Callable[[Mapping[str, object]], float | None]  # careful's width on the same measure

    def reach(self, calibration: Mapping[str, object] | None) -> Reach:
        row = careful_row(calibration, self.careful)
        if row is None:
            return Reach()
        interval = mean_interval(per_item(row, self.scores))
        spread = [v for v in (number(x) for x in _list(field_of(row, "spread"))) if v is not None]
        ends = [*(interval or ()), *spread, *([h] if (h := number(field_of(row, self.headline))) is not None else [])]
        width = self.careful_width(row)
        return Reach(min(ends) if ends else None, max(ends) if ends else None,
                     THINNEST_SHARE * width if width is not None else None,
                     f"{self.careful} in the corpus's calibration")

    def width(self, grade: Grade) -> float | None:
        return self.width_of(grade)


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []
