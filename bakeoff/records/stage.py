"""The stage record: runs/<run_id>/stages/<n>-<stage>.json (schema bakeoff.stage/2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bakeoff.records.codec import JsonObject, JsonRecord, TopRecord, decode
from bakeoff.records.enums import Attribution, LadderStatus, RepairEffect, RepairGrant, StageName
from bakeoff.records.ladder import LadderCheck, Rung
from bakeoff.records.loop import LoopSummary
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
# The order of a stage record's keys, as docs/records.md lists them (the fields' order puts the required first).
STAGE_KEYS = ("run_id", "stage", "index", "attribution", "attribution_reason", "prompt", "completion", "capture",
              "files_written", "commands", "shown_to_model", "check", "turns", "claim", "extras", "commit",
              "timings", "resources", "loop")

if TYPE_CHECKING:
    MaybeResources = Resources | None
else:
    MaybeResources = Any  # written {} for a stage that was not sampled: __post_init__ reads it


@dataclass(frozen=True)
class RepairTurn(JsonRecord):
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
    WRITTEN_WHEN_SET = ("harness_error",)


@dataclass(frozen=True)
class StageRecord(TopRecord):
    """One finished (or harness-failed) stage of a run, as written to disk and read back on resume."""

    run_id: str
    stage: StageName
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
    resources: MaybeResources = None  # None (written {}) for a stage that was not sampled
    loop: LoopSummary | None = None  # a loop's stage (Scaffold.step_stage): how its loop ended (written only then)
    SCHEMA = STAGE_SCHEMA
    READ_DEFAULTS = {"run_id": "", "index": 0}
    WRITTEN_WHEN_SET = ("loop",)

    def __post_init__(self) -> None:
        if not isinstance(self.resources, Resources | None):  # read from its JSON: an object, {} when not sampled
            resources = decode(Resources, self.resources, ".resources") if self.resources != {} else None
            object.__setattr__(self, "resources", resources)

    def to_json(self) -> JsonObject:
        data = super().to_json()
        data["resources"] = data["resources"] or {}
        return {"schema": data["schema"], **{key: data[key] for key in STAGE_KEYS if key in data}}

    def model_calls(self) -> tuple[tuple[Prompt, CompletionRecord | None, Capture], ...]:
        """(prompt, completion, capture) of every model call the stage made, its repair turns included."""
        entries = [(self.prompt, self.completion, self.capture)]
        entries += [(t.prompt, t.completion, t.capture) for t in self.turns]
        return tuple((p, c, cap) for p, c, cap in entries if p is not None and cap is not None)


DISK_FULL = "disk_full"  # a stage whose workspace filled the disk: the model's failure, and the end of its run
NO_CHECK = LadderCheck(Rung.NOTHING, LadderStatus.NOT_CHECKED, None, None)  # the run's outcome when no check ran


def final_check(done: Mapping[str, StageRecord]) -> LadderCheck:
    """The last ladder check of a run, from its stage records in order: the one of a stage that filled the disk
    (the run ended there), else the last stage's that has one; NO_CHECK when none has. The one definition the
    runner (its run record) and the tasks' reports (a run without one yet) read."""
    for record in done.values():
        if record.attribution_reason == DISK_FULL and record.check is not None:
            return record.check
    for record in reversed(list(done.values())):
        if record.check is not None:
            return record.check
    return NO_CHECK
