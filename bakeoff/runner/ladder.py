"""The progress ladder of a submission, and what a repair turn did to it.

Rungs: 0 nothing, 1 requirements installed, 2 training completed,
3 prediction completed, 4 output valid, 5 scored (then F1 tells further).
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
F1_TOLERANCE = 0.01  # an F1 change within this is noise, not an effect

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


def turn_effect(before: LadderCheck, after: LadderCheck) -> str:
    """rescued (up the ladder, or F1 up by more than the tolerance), regressed (down, or F1 down), else unchanged."""
    if after.rung > before.rung:
        return RESCUED
    if after.rung < before.rung:
        return REGRESSED
    if before.f1 is not None and after.f1 is not None:
        if after.f1 < before.f1 - F1_TOLERANCE:
            return REGRESSED
        if after.f1 > before.f1 + F1_TOLERANCE:
            return RESCUED
    return UNCHANGED
