"""What a careful spam filter can reach on a corpus: the careful reference's holdout F1 in the corpus's
calibration.json, on its own secret and on every fresh one it was also run on, widened by the F1's sampling error
on a holdout of that size (read as a share over the holdout's spam messages) and by the headroom careful leaves
(the audit of issue 34 found a tuned threshold adds up to 0.014 F1). A filter has no intervals: no width."""

from __future__ import annotations

import math
from collections.abc import Mapping

from bakeoff.taskapi.grade import Grade
from bakeoff.taskapi.parts import Reach
from bakeoff.tasks.intervals.tripwire import Z95, careful_row, field_of, number

CAREFUL = "careful"
HEADROOM = 0.02  # F1 above careful's best that a tuned careful filter can still reach


def sampling_half_width(f1: float, calibration: Mapping[str, object] | None) -> float:
    """The 95% half-width of an F1 over the holdout's spam messages (rows x spam rate of the calibrated corpus)."""
    params = field_of(calibration, "params")
    rows, rate = number(field_of(params, "holdout_rows")), number(field_of(params, "spam_rate"))
    if rows is None or rate is None or rows * rate < 1 or not 0 <= f1 <= 1:
        return 0.0
    return Z95 * math.sqrt(f1 * (1 - f1) / (rows * rate))


class SpamTripwire:
    def reach(self, calibration: Mapping[str, object] | None) -> Reach:
        row = careful_row(calibration, CAREFUL)
        if row is None:
            return Reach()
        spread = field_of(row, "spread")
        found = [number(field_of(row, "holdout_f1")), *(number(v) for v in (spread if isinstance(spread, list) else ()))]
        values = [v for v in found if v is not None]
        if not values:
            return Reach()
        low, high = min(values), max(values)
        return Reach(low - sampling_half_width(low, calibration) - HEADROOM,
                     high + sampling_half_width(high, calibration) + HEADROOM, None,
                     f"careful in the corpus's calibration, with its sampling error and {HEADROOM} F1 of headroom")

    def width(self, grade: Grade) -> float | None:
        return None


TRIPWIRE = SpamTripwire()
