"""The batch record: BATCH/batch.json (schema bakeoff.batch/1), the resolved plan and the run order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bakeoff.records.codec import JsonRecord, TopRecord
from bakeoff.records.plan import Plan

BATCH_SCHEMA = "bakeoff.batch/1"

if TYPE_CHECKING:
    PlanField = Plan
else:
    PlanField = Any  # the plan's JSON is its canonical, hashed form, not its fields: __post_init__ reads it


@dataclass(frozen=True)
class CodeVersion(JsonRecord):
    """The bakeoff that wrote a record: its version and, from a git checkout, the commit and whether it was dirty."""

    version: str = ""
    git_commit: str | None = None
    dirty: bool | None = None


@dataclass(frozen=True)
class Extension(JsonRecord):
    """A plan that only added models or runs, accepted on a batch already started: when, the plan it
    replaced (its hash) and the runs it added (their ids, in the order they run)."""

    at: str
    previous_plan_sha256: str
    added: tuple[str, ...]


@dataclass(frozen=True)
class BatchRecord(TopRecord):
    """What a batch was started with; a restart with another plan (plan_sha256) is refused unless the
    plan only adds models or runs (an Extension)."""

    plan: PlanField  # the resolved plan (written as Plan.to_dict)
    plan_sha256: str
    order: tuple[str, ...]  # run ids in execution order
    created_at: str = ""
    code_version: CodeVersion = field(default_factory=CodeVersion)
    # file name -> sha256 of each corpus file the runs use; None for a batch without a corpus check (older ones)
    corpus_sha256: Mapping[str, str | None] | None = None
    # What a leaderboard pools batches by (None or empty in batches written before it): the task's version
    # (bakeoff.taskapi.version) and each model's identity by label (its file's sha256, or endpoint and model).
    task_version: str | None = None
    identities: Mapping[str, str] = field(default_factory=dict)
    extensions: tuple[Extension, ...] = ()
    SCHEMA = BATCH_SCHEMA
    WRITTEN_WHEN_SET = ("task_version", "identities", "extensions")  # an older batch.json stays as it was

    def __post_init__(self) -> None:
        if not isinstance(self.plan, Plan):
            object.__setattr__(self, "plan", Plan.from_json(self.plan))

    def added_later(self) -> dict[str, int]:
        """Run id -> the extension (1, 2...) that added it, for runs not in the plan the batch was started with."""
        return {run_id: number for number, ext in enumerate(self.extensions, 1) for run_id in ext.added}
