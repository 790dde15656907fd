"""What a careful spam filter can reach on a corpus: the careful reference's holdout F1 in the corpus's
calibration.json, on its own secret and on every fresh one it was also run on, with the headroom careful leaves
(the audit of issue 34 found a tuned threshold adds up to 0.014 F1). A filter has no intervals: no width."""

from __future__ import annotations

from collections.abc import Mapping

from bakeoff.taskapi.grade import Grade
from bakeoff.taskapi.parts import Reach
from bakeoff.tasks.intervals.tripwire import careful_row, field_of, number

CAREFUL = "careful"
HEADROOM = 0.02  # F1 above careful's best that a tuned careful filter can still reach


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
        return Reach(min(values) - HEADROOM, max(values) + HEADROOM, None,
                     f"careful in the corpus's calibration, with {HEADROOM} F1 of headroom")

    def width(self, grade: Grade) -> float | None:
        return None


TRIPWIRE = SpamTripwire()
