"""A task's vocabulary: its headline number and the words its pages use for what every task has.

The records hold the headline's value with its name, direction and tolerance (bakeoff.records.Headline);
what the task declares once is here: how people read it (`label`), and what a graded run that was never
scored counts for when runs are averaged with their failures (`failed_value`: a share of right answers counts
a crash as 0; an interval score has no such value, so such runs are left out of that average).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from bakeoff.records import ClaimSource, Headline, Rung

# No task's grader gives a value near this; past it a mean over a few runs could overflow to inf.
MAX_MAGNITUDE = 1e12


@dataclass(frozen=True)
class HeadlineSpec:
    name: str  # the key in the records (and the name of its columns: `<name>`, `<name>_low`...)
    label: str  # how pages and sentences name it (a few words, as a sentence's middle has them)
    higher_is_better: bool
    tolerance: float  # a change within it is noise, not an effect of a repair turn
    failed_value: float | None = None  # what a graded but unscored run counts for; None: it is left out
    fmt: str = "{:.3f}"  # how one value is printed
    # The values the task's grader can give (None: unbounded that way); a record outside them, or not finite,
    # was not written by the grader and is refused before anything is published (bakeoff.analysis.admit).
    lowest: float | None = None
    highest: float | None = None

    def admits(self, value: float) -> bool:
        """Whether `value` is one the grader can give: finite and within [lowest, highest]."""
        return (math.isfinite(value) and abs(value) <= MAX_MAGNITUDE and (self.lowest is None or value >= self.lowest)
                and (self.highest is None or value <= self.highest))

    def of(self, value: float | None) -> Headline:
        return Headline(self.name, value, self.higher_is_better, self.tolerance)

    def show(self, value: float | None) -> str:
        return "–" if value is None else self.fmt.format(value)

    @property
    def counts_failures(self) -> bool:
        """Whether an average over graded runs can count a run that was never scored (as failed_value)."""
        return self.failed_value is not None


@dataclass(frozen=True)
class TaskWords:
    """What a task's pages call the steps every task has (the rungs and the visible step's output)."""

    rungs: dict[Rung, str] = field(default_factory=dict)  # a rung's name on pages; its record name otherwise
    visible_output: str = "visible step output"  # the fold of a check's visible_output on a transcript page
    claim: str = "estimate"  # what the model's claim estimates ("claimed effect" beside "real effect")
    sources: dict[ClaimSource, str] = field(default_factory=dict)  # where a claim was found, as pages say it

    def rung(self, rung: int) -> str:
        known = Rung(rung) if 0 <= rung <= Rung.SCORED else None
        return "" if known is None else self.rungs.get(known, known.label)

    def source(self, source: ClaimSource | None) -> str | None:
        return None if source is None else self.sources.get(source, source.value)
