"""What every interval task's grade holds (scorer.intervals.IntervalScore as the check records it): coverage of
the truth and the Winkler score over the graded items, the counts of items, graded and failed ones, the errors
by name and each item's interval against its truth. A task's grade adds its own figures and rows' point name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bakeoff.taskapi.grade import Grade, key


@dataclass(frozen=True)
class IntervalPoint:
    """One hidden item's interval (None where the result was unusable) and its truth, with the item's group
    and load where the check recorded them (simulation's bands)."""

    item: str
    truth: float
    point: float | None
    ci_low: float | None
    ci_high: float | None
    error: str | None = None
    band: str | None = None
    utilisation: float | None = None

    @property
    def covered(self) -> bool | None:
        if self.ci_low is None or self.ci_high is None:
            return None
        return self.ci_low <= self.truth <= self.ci_high


@dataclass(frozen=True)
class IntervalRow:
    """One item's row as the check records it; a task's row names its point (estimate, effect)."""

    experiment: str | None
    truth: float | None
    ci_low: float | None
    ci_high: float | None
    error: str | None
    band: str | None
    utilisation: float | None

    @property
    def point(self) -> float | None:
        return None

    def as_point(self) -> IntervalPoint | None:
        """The row as a plotted point (None without a truth)."""
        if self.truth is None:
            return None
        return IntervalPoint(str(self.experiment or ""), self.truth, self.point, self.ci_low, self.ci_high, self.error,
                             self.band, self.utilisation)


@dataclass(frozen=True)
class IntervalGrade(Grade):
    """The figures every interval task's grade has."""

    coverage: float | None
    winkler: float | None
    items: int = field(metadata=key("n"))  # hidden items (experiments, configurations)
    graded: int
    failed: int
    errors: Mapping[str, int]
    experiments: tuple[IntervalRow, ...]

    def points(self) -> tuple[IntervalPoint, ...]:
        """Each item's interval against its truth (rows without a truth passed over)."""
        return tuple(p for row in self.experiments if (p := row.as_point()) is not None)
