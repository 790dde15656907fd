"""The stage record: runs/<run_id>/stages/<n>-<stage>.json (schema bakeoff.stage/2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.records.enums import Attribution, RepairEffect, RepairGrant, Stage
from bakeoff.records.jsonio import JsonObject, enum_value, items, optional, read_record, required
from bakeoff.records.ladder import LadderCheck
from bakeoff.records.parts import (
    Capture,
    Claim,
    Command,
    Commit,
    CompletionRecord,
    FileWritten,
    Prompt,
    Resources,
    Timings,
)

STAGE_SCHEMA = "bakeoff.stage/2"  # /1: before the task-neutral ladder (bakeoff.batchfolder.upgrade reads it)
STAGE_SCHEMAS = (STAGE_SCHEMA,)


def _json_or_none(part: Any) -> Any:
    return part.to_json() if part is not None else None


@dataclass(frozen=True)
class RepairTurn:
    """One repair turn: what was asked and answered, and the ladder check before and after it."""

    turn: int
    granted_because: RepairGrant
    prompt: Prompt | None
    completion: CompletionRecord | None
    capture: Capture | None
    files_written: tuple[FileWritten, ...]
    before: LadderCheck
    after: LadderCheck
    effect: RepairEffect
    harness_error: str | None = None  # written only for a turn the harness failed

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "turn": self.turn, "granted_because": self.granted_because, "prompt": _json_or_none(self.prompt),
            "completion": _json_or_none(self.completion), "capture": _json_or_none(self.capture),
        }
        if self.harness_error is not None:
            data["harness_error"] = self.harness_error
        data.update(before=self.before.to_json(), after=self.after.to_json(), effect=self.effect,
                    files_written=[f.to_json() for f in self.files_written])
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RepairTurn:
        required(data, "turn", "before", "after", "effect")
        return cls(
            turn=data["turn"],
            granted_because=enum_value(RepairGrant, data.get("granted_because"), "turn.granted_because"),
            prompt=optional(Prompt.from_json, data.get("prompt"), "turn.prompt"),
            completion=optional(CompletionRecord.from_json, data.get("completion"), "turn.completion"),
            capture=optional(Capture.from_json, data.get("capture"), "turn.capture"),
            files_written=items(FileWritten.from_json, data.get("files_written"), "turn.files_written"),
            before=LadderCheck.from_json(data["before"]),
            after=LadderCheck.from_json(data["after"]),
            effect=enum_value(RepairEffect, data["effect"], "turn.effect"),
            harness_error=data.get("harness_error"),
        )


@dataclass(frozen=True)
class StageRecord:
    """One finished (or harness-failed) stage of a run, as written to disk and read back on resume."""

    run_id: str
    stage: Stage
    index: int  # 1..6
    attribution: Attribution
    commit: Commit
    timings: Timings
    attribution_reason: str | None = None  # a capture reason, crash class, status, disk_full or the harness's error
    prompt: Prompt | None = None
    completion: CompletionRecord | None = None
    capture: Capture | None = None
    files_written: tuple[FileWritten, ...] = ()
    commands: tuple[Command, ...] = ()
    shown_to_model: str | None = None  # explore: the exploration output as handed to decide
    check: LadderCheck | None = None
    turns: tuple[RepairTurn, ...] = ()
    claim: Claim | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)  # evaluate: measurements by hook name
    resources: Resources | None = None  # None (written {}) for a stage that was not sampled

    def to_json(self) -> JsonObject:
        return {
            "schema": STAGE_SCHEMA,
            "run_id": self.run_id,
            "stage": self.stage,
            "index": self.index,
            "attribution": self.attribution,
            "attribution_reason": self.attribution_reason,
            "prompt": _json_or_none(self.prompt),
            "completion": _json_or_none(self.completion),
            "capture": _json_or_none(self.capture),
            "files_written": [f.to_json() for f in self.files_written],
            "commands": [c.to_json() for c in self.commands],
            "shown_to_model": self.shown_to_model,
            "check": _json_or_none(self.check),
            "turns": [t.to_json() for t in self.turns],
            "claim": _json_or_none(self.claim),
            "extras": dict(self.extras),
            "commit": self.commit.to_json(),
            "timings": self.timings.to_json(),
            "resources": self.resources.to_json() if self.resources is not None else {},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "") -> StageRecord:
        """The record; DamagedRecord when a key it needs is missing or malformed, UnknownRecordSchema for another schema."""
        keys = ("stage", "attribution", "commit", "timings")
        return read_record(data, keys, STAGE_SCHEMAS, where, cls._read, "stage")

    @classmethod
    def _read(cls, data: Mapping[str, Any]) -> StageRecord:
        return cls(
            run_id=data.get("run_id") or "",
            stage=enum_value(Stage, data["stage"], "stage"),
            index=data.get("index") or 0,
            attribution=enum_value(Attribution, data["attribution"], "attribution"),
            commit=Commit.from_json(data["commit"] if isinstance(data["commit"], Mapping) else {}),
            timings=Timings.from_json(data["timings"] if isinstance(data["timings"], Mapping) else {}),
            attribution_reason=data.get("attribution_reason"),
            prompt=optional(Prompt.from_json, data.get("prompt"), "prompt"),
            completion=optional(CompletionRecord.from_json, data.get("completion"), "completion"),
            capture=optional(Capture.from_json, data.get("capture"), "capture"),
            files_written=items(FileWritten.from_json, data.get("files_written"), "files_written"),
            commands=items(Command.from_json, data.get("commands"), "commands"),
            shown_to_model=data.get("shown_to_model"),
            check=optional(LadderCheck.from_json, data.get("check"), "check"),
            turns=items(RepairTurn.from_json, data.get("turns"), "turns"),
            claim=optional(Claim.from_json, data.get("claim"), "claim"),
            extras=dict(data.get("extras") or {}),
            resources=Resources.from_json(data.get("resources") or {}),
        )

    def model_calls(self) -> tuple[tuple[Prompt, CompletionRecord | None, Capture], ...]:
        """(prompt, completion, capture) of every model call the stage made, its repair turns included."""
        entries = [(self.prompt, self.completion, self.capture)]
        entries += [(t.prompt, t.completion, t.capture) for t in self.turns]
        return tuple((p, c, cap) for p, c, cap in entries if p is not None and cap is not None)
