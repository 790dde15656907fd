"""The ladder check: how far a submission got, in words that are the same for every task.

Rungs (`Rung`): nothing, installed (its requirements), visible step ran (the step the model may see the
output of), hidden step ran (on the data it never sees), output valid, scored. Past the top rung the task's
headline number (`Headline`: its name, value, direction and noise) tells further. What each rung means for
one task, and the words its pages use for it, are the task's (bakeoff.taskapi).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from bakeoff.records.codec import JsonRecord
from bakeoff.records.enums import CrashClass, LadderStatus, RepairEffect
from bakeoff.records.errors import DamagedRecord


class Rung(IntEnum):
    """How far a submission got (the check's `rung`; its `rung_name` is the member's label)."""

    NOTHING = 0
    INSTALLED = 1
    VISIBLE_STEP_RAN = 2
    HIDDEN_STEP_RAN = 3
    OUTPUT_VALID = 4
    SCORED = 5

    @property
    def label(self) -> str:
        return self.name.lower()


RUNG_NAMES = tuple(rung.label for rung in Rung)
TOP_RUNG = Rung.SCORED


def rung_of(value: Any, name: str = "rung") -> Rung:
    """A recorded rung number as a Rung; DamagedRecord for anything else."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= TOP_RUNG:
        raise DamagedRecord(f"'{name}' is {value!r}, not a rung from 0 to {int(TOP_RUNG)}")
    return Rung(value)


@dataclass(frozen=True)
class Headline(JsonRecord):
    """The number a scored submission is judged by: its name, its value (None: not scored), which way is
    better, and the change that is only noise (a repair turn within it left the submission unchanged)."""

    name: str
    value: float | None
    higher_is_better: bool
    tolerance: float = 0.0

    def gain(self, before: Headline) -> float | None:
        """How much better this value is than `before`'s (negative: worse); None when either is missing."""
        if self.value is None or before.value is None:
            return None
        return (self.value - before.value) if self.higher_is_better else (before.value - self.value)


@dataclass(frozen=True)
class Requirement(JsonRecord):
    """One line of the submission's requirements.txt and what became of it (sandbox.requirements)."""

    line: int
    text: str
    name: str | None
    fate: str  # installed, provided_by_image, unavailable, ignored, invalid_line, pending
    reason: str | None
    wheels: tuple[str, ...] = ()


@dataclass(frozen=True)
class LadderCheck(JsonRecord):
    """Where a submission stands after install, its visible step and its hidden step, graded on the host."""

    rung: Rung
    status: LadderStatus
    failed_step: str | None  # the task's step it ended at (a stage name for one that filled the disk); None when scored
    headline: Headline | None
    crash_class: CrashClass | None = None
    detail: str | None = None
    traceback_tail: str | None = None
    visible_ok: bool = False  # install and the visible step passed: what the model can know
    visible_failure: str | None = None  # the real output shown to the model when they did not
    metrics: Mapping[str, Any] | None = None  # the task's grader's figures
    requirements: tuple[Requirement, ...] = ()
    visible_output: str = ""  # what the visible step printed (the model's claim may be in it)
    extras: Mapping[str, Any] = field(default_factory=dict)  # written only when not empty
    WRITTEN_WHEN_SET = ("extras",)
    DERIVED = ("rung_name",)

    @property
    def rung_name(self) -> str:
        return Rung(self.rung).label

    @property
    def headline_value(self) -> float | None:
        return self.headline.value if self.headline is not None else None


def turn_effect(before: LadderCheck, after: LadderCheck) -> RepairEffect:
    """rescued (up the ladder, or the headline better by more than its tolerance), regressed (down, or worse),
    else unchanged."""
    if after.rung > before.rung:
        return RepairEffect.RESCUED
    if after.rung < before.rung:
        return RepairEffect.REGRESSED
    if before.headline is None or after.headline is None:
        return RepairEffect.UNCHANGED
    gain = after.headline.gain(before.headline)
    tolerance = max(before.headline.tolerance, after.headline.tolerance)
    if gain is not None and gain < -tolerance:
        return RepairEffect.REGRESSED
    if gain is not None and gain > tolerance:
        return RepairEffect.RESCUED
    return RepairEffect.UNCHANGED
