"""What a careful simulation can reach on a corpus (bakeoff.tasks.intervals.tripwire): sim_careful's relative
Winkler interval over the configurations, and as the thinnest relative width half of its relative Winkler score
(a Winkler score is the width plus the misses' penalties, so careful's width is at most its score, and near it
where careful covers)."""

from __future__ import annotations

from bakeoff.taskapi.grade import Grade
from bakeoff.tasks.intervals.grade import IntervalGrade
from bakeoff.tasks.intervals.tripwire import IntervalTripwire, field_of, number


def mean_relative_width(grade: Grade) -> float | None:
    """The mean of each configuration's interval width over its true wait."""
    if not isinstance(grade, IntervalGrade):
        return None
    widths = [(p.ci_high - p.ci_low) / p.truth for p in grade.points()
              if p.ci_low is not None and p.ci_high is not None and p.truth > 0]
    return sum(widths) / len(widths) if widths else None


TRIPWIRE = IntervalTripwire("sim_careful", "per_configuration", "relative_winkler", mean_relative_width,
                            lambda row: number(field_of(row, "relative_winkler")))
