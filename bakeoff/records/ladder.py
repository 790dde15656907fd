"""The ladder check: where a submission stands after install, train, smoke test and the hidden holdout.

How a repair turn changed it (turn_effect, with the task's headline number) is the runner's: bakeoff.runner.ladder.

Rungs: 0 nothing, 1 requirements installed, 2 training completed,
3 prediction completed, 4 output valid, 5 scored (then F1 tells further).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.records.enums import CrashClass, LadderStatus
from bakeoff.records.jsonio import JsonObject, enum_value, items, optional_enum, required

RUNG_NAMES = (
    "nothing",
    "requirements_installed",
    "training_completed",
    "prediction_completed",
    "output_valid",
    "scored",
)
TOP_RUNG = len(RUNG_NAMES) - 1


@dataclass(frozen=True)
class Requirement:
    """One line of the submission's requirements.txt and what became of it (sandbox.requirements)."""

    line: int
    text: str
    name: str | None
    fate: str  # installed, provided_by_image, unavailable, ignored, invalid_line, pending
    reason: str | None
    wheels: tuple[str, ...] = ()

    def to_json(self) -> JsonObject:
        return {"line": self.line, "text": self.text, "name": self.name, "fate": self.fate, "reason": self.reason,
                "wheels": list(self.wheels)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Requirement:
        return cls(data["line"], data.get("text") or "", data.get("name"), data.get("fate") or "",
                   data.get("reason"), tuple(data.get("wheels") or ()))


@dataclass(frozen=True)
class LadderCheck:
    """Where a submission stands after install, train, smoke test and the hidden holdout."""

    rung: int
    status: LadderStatus
    failed_step: str | None  # install, train, predict, score (a stage name for one that filled the disk); None when scored
    f1: float | None
    crash_class: CrashClass | None = None
    detail: str | None = None
    traceback_tail: str | None = None
    visible_ok: bool = False  # install, train and the smoke test passed: what the model can know
    visible_failure: str | None = None  # the real output shown to the model when they did not
    metrics: Mapping[str, Any] | None = None  # the task's scorer's figures (spam: f1, precision, ... tp, fp, fn, tn)
    requirements: tuple[Requirement, ...] = ()
    train_output: str = ""  # what training printed (the model's claim may be in it)
    extras: Mapping[str, Any] = field(default_factory=dict)  # written only when not empty

    @property
    def rung_name(self) -> str:
        return RUNG_NAMES[self.rung]

    def to_json(self) -> JsonObject:
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
            "requirements": [r.to_json() for r in self.requirements],
            "train_output": self.train_output,
            **({"extras": dict(self.extras)} if self.extras else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LadderCheck:
        required(data, "rung", "status")
        return cls(
            rung=int(data["rung"]),
            status=enum_value(LadderStatus, data["status"], "check.status"),
            failed_step=data.get("failed_step"),
            f1=data.get("f1"),
            crash_class=optional_enum(CrashClass, data.get("crash_class"), "check.crash_class"),
            detail=data.get("detail"),
            traceback_tail=data.get("traceback_tail"),
            visible_ok=bool(data.get("visible_ok")),
            visible_failure=data.get("visible_failure"),
            metrics=data.get("metrics"),
            requirements=items(Requirement.from_json, data.get("requirements"), "check.requirements"),
            train_output=data.get("train_output") or "",
            extras=data.get("extras") or {},
        )

    # The names the runner has always used.
    def to_dict(self) -> JsonObject:
        return self.to_json()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LadderCheck:
        return cls.from_json(data)

