"""What a careful forecast can reach on a corpus: the careful reference's mean MASE in the corpus's calibration.json,
with the 95% normal interval of that mean over its series, widened by the headroom careful leaves (a tuned model
of the same kind does somewhat better). A forecast has no intervals: no width."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping

from bakeoff.taskapi.grade import Grade
from bakeoff.taskapi.parts import Reach
from bakeoff.tasks.intervals.tripwire import Z95, field_of, number

CAREFUL = "fc_careful"
HEADROOM = 0.05  # MASE below careful's interval that a better careful forecaster can still reach


def _careful_row(calibration: Mapping[str, object] | None) -> Mapping[str, object] | None:
    rows = field_of(calibration, "rows")
    for row in rows if isinstance(rows, list) else ():
        if isinstance(row, Mapping) and field_of(row, "variant") == CAREFUL:
            return row
    return None


class ForecastTripwire:
    def reach(self, calibration: Mapping[str, object] | None) -> Reach:
        row = _careful_row(calibration)
        mean = number(field_of(row, "mase"))
        per_series = field_of(row, "per_series")
        values = [v for v in (number(x) for x in per_series.values()) if v is not None] \
            if isinstance(per_series, Mapping) else []
        if mean is None or len(values) < 2:
            return Reach()
        half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
        return Reach(mean - half - HEADROOM, mean + half + HEADROOM, None,
                     f"careful in the corpus's calibration, with its sampling error over series and {HEADROOM} MASE "
                     "of headroom")

    def width(self, grade: Grade) -> float | None:
        return None


TRIPWIRE = ForecastTripwire()
