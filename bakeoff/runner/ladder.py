"""The progress ladder of a submission, and what a repair turn did to it.

Rungs: 0 nothing, 1 requirements installed, 2 the visible step completed (training, or the task's own
smoke run), 3 the hidden run completed, 4 output valid, 5 scored; then the task's headline number tells
further (bakeoff.tasks: each plug-in gives its Headline).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

RUNG_NAMES = (
    "nothing",
    "requirements_installed",
    "training_completed",
    "prediction_completed",
    "output_valid",
    "scored",
)
TOP_RUNG = len(RUNG_NAMES) - 1

RESCUED, REGRESSED, UNCHANGED = "rescued", "regressed", "unchanged"


@dataclass(frozen=True)
class LadderCheck:
    """Where a submission stands after install, train, smoke test and the hidden holdout."""

    rung: int
    status: str  # scored, crashed, timeout, out_of_memory, bad_output, dependency_unavailable, no_*_script
    failed_step: str | None  # install, train, predict, score; None when scored
    f1: float | None
    crash_class: str | None = None
    detail: str | None = None
    traceback_tail: str | None = None
    visible_ok: bool = False  # install, train and the smoke test passed: what the model can know
    visible_failure: str | None = None  # the real output shown to the model when they did not
    metrics: Mapping[str, Any] | None = None
    requirements: tuple[Mapping[str, Any], ...] = ()
    train_output: str = ""  # what training printed (the model's claim may be in it)
    extras: Mapping[str, Any] = field(default_factory=dict)

    @property
    def rung_name(self) -> str:
        return RUNG_NAMES[self.rung]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rung": self.rung,
            "rung_name": self.rung_name,
            "status": self.status,
            "failed_step": self.failed_step,
            "f1": self.f1,
            "crash_class": self.crash_class,
            "detail": self.detail,
            "traceback_tail": self.traceback_tail,
            "visible_ok": self.visible_ok,
            "visible_failure": self.visible_failure,
            "metrics": dict(self.metrics) if self.metrics is not None else None,
            "requirements": [dict(r) for r in self.requirements],
            "train_output": self.train_output,
            **({"extras": dict(self.extras)} if self.extras else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "LadderCheck":
        return cls(
            rung=int(data["rung"]),
            status=data["status"],
            failed_step=data.get("failed_step"),
            f1=data.get("f1"),
            crash_class=data.get("crash_class"),
            detail=data.get("detail"),
            traceback_tail=data.get("traceback_tail"),
            visible_ok=bool(data.get("visible_ok")),
            visible_failure=data.get("visible_failure"),
            metrics=data.get("metrics"),
            requirements=tuple(data.get("requirements") or ()),
            train_output=data.get("train_output") or "",
            extras=data.get("extras") or {},
        )


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


def turn_effect(before: LadderCheck, after: LadderCheck, headline: Headline = RECORD_HEADLINE) -> str:
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
