"""What a careful A/B analysis can reach on a corpus (bakeoff.tasks.intervals.tripwire): ab_careful's Winkler
interval, and half its mean interval width as the thinnest the data allows."""

from __future__ import annotations

from bakeoff.taskapi.grade import Grade
from bakeoff.tasks.intervals.tripwire import IntervalTripwire, field_of, number


def mean_width(grade: Grade) -> float | None:
    return grade.value("mean_width")


TRIPWIRE = IntervalTripwire("ab_careful", "winklers", "winkler", mean_width,
                            lambda row: number(field_of(row, "mean_width")))
