"""The progress ladder of a submission, and what a repair turn did to it.

Rungs: 0 nothing, 1 requirements installed, 2 the visible step completed (training, or the task's own
smoke run), 3 the hidden run completed, 4 output valid, 5 scored; then the task's headline number tells
further (bakeoff.tasks: each plug-in gives its Headline).
"""

from __future__ import annotations

from dataclasses import dataclass

from bakeoff.records.enums import RepairEffect
from bakeoff.records.ladder import RUNG_NAMES, TOP_RUNG, LadderCheck, Requirement

__all__ = ["RECORD_HEADLINE", "REGRESSED", "RESCUED", "RUNG_NAMES", "TOP_RUNG", "UNCHANGED", "Headline", "LadderCheck",
           "Requirement", "turn_effect"]

# The check itself is a record (bakeoff.records.ladder); these names are the runner's since before.
RESCUED, REGRESSED, UNCHANGED = RepairEffect.RESCUED, RepairEffect.REGRESSED, RepairEffect.UNCHANGED


@dataclass(frozen=True)
class Headline:
    """The number that judges a scored check: its key, its direction and the change that is only noise.

    The value is the check's own field `key` when it has one (the record's `f1`), else `metrics[key]`.
    """

    key: str
    higher_is_better: bool
    tolerance: float

    def value(self, check: LadderCheck) -> float | None:
        found = getattr(check, self.key, None) if self.key in RECORD_FIELDS else (check.metrics or {}).get(self.key)
        return float(found) if isinstance(found, (int, float)) and not isinstance(found, bool) else None


RECORD_FIELDS = frozenset({"f1"})  # headline numbers the check record holds as fields of its own (docs/records.md)
# The check record's own headline field: what a caller that names no task's Headline compares.
RECORD_HEADLINE = Headline("f1", higher_is_better=True, tolerance=0.01)


def turn_effect(before: LadderCheck, after: LadderCheck, headline: Headline = RECORD_HEADLINE) -> RepairEffect:
    """rescued (up the ladder, or the headline better by more than its tolerance), regressed (down, or worse),
    else unchanged."""
    if after.rung > before.rung:
        return RESCUED
    if after.rung < before.rung:
        return REGRESSED
    old, new = headline.value(before), headline.value(after)
    if old is not None and new is not None:
        gain = (new - old) if headline.higher_is_better else (old - new)
        if gain < -headline.tolerance:
            return REGRESSED
        if gain > headline.tolerance:
            return RESCUED
    return UNCHANGED
