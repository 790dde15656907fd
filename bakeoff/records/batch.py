"""The batch record: BATCH/batch.json (schema bakeoff.batch/1), the resolved plan and the run order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.records.errors import DamagedRecord
from bakeoff.records.jsonio import JsonObject, as_list, as_object, check_schema, guarded, required
from bakeoff.records.plan import Plan

BATCH_SCHEMA = "bakeoff.batch/1"
BATCH_SCHEMAS = (BATCH_SCHEMA,)


@dataclass(frozen=True)
class CodeVersion:
    """The bakeoff that wrote a record: its version and, from a git checkout, the commit and whether it was dirty."""

    version: str = ""
    git_commit: str | None = None
    dirty: bool | None = None

    def to_json(self) -> JsonObject:
        return {"version": self.version, "git_commit": self.git_commit, "dirty": self.dirty}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CodeVersion:
        commit, dirty = data.get("git_commit"), data.get("dirty")
        return cls(str(data.get("version") or ""), commit if isinstance(commit, str) else None,
                   dirty if isinstance(dirty, bool) else None)


@dataclass(frozen=True)
class Extension:
    """A plan that only added models or runs, accepted on a batch already started: when, the plan it
    replaced (its hash) and the runs it added (their ids, in the order they run)."""

    at: str
    previous_plan_sha256: str
    added: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {"at": self.at, "previous_plan_sha256": self.previous_plan_sha256, "added": list(self.added)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Extension:
        added = data.get("added") or []
        if not isinstance(added, list) or not all(isinstance(run_id, str) for run_id in added):
            raise DamagedRecord("'extensions.added' is not a list of run names")
        return cls(str(data.get("at") or ""), str(data.get("previous_plan_sha256") or ""), tuple(added))


@dataclass(frozen=True)
class BatchRecord:
    """What a batch was started with; a restart with another plan (plan_sha256) is refused unless the
    plan only adds models or runs (an Extension)."""

    plan: Plan  # the resolved plan (written as Plan.to_dict)
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

    def added_later(self) -> dict[str, int]:
        """Run id -> the extension (1, 2...) that added it, for runs not in the plan the batch was started with."""
        return {run_id: number for number, ext in enumerate(self.extensions, 1) for run_id in ext.added}

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "schema": BATCH_SCHEMA,
            "plan": self.plan.to_dict(),
            "plan_sha256": self.plan_sha256,
            "order": list(self.order),
            "created_at": self.created_at,
            "code_version": self.code_version.to_json(),
            "corpus_sha256": dict(self.corpus_sha256) if self.corpus_sha256 is not None else None,
        }
        if self.task_version is not None:  # the newer keys only where known: an older batch.json stays as it was
            data["task_version"] = self.task_version
        if self.identities:
            data["identities"] = dict(self.identities)
        if self.extensions:
            data["extensions"] = [e.to_json() for e in self.extensions]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "") -> BatchRecord:
        required(data, "plan", "plan_sha256", "order")
        check_schema(data, BATCH_SCHEMAS, where)
        order = data["order"]
        if not isinstance(order, list) or not all(isinstance(run_id, str) for run_id in order):
            raise DamagedRecord("'order' is not a list of run names")
        return guarded(lambda: cls._read(data, tuple(order)), "batch")

    @classmethod
    def _read(cls, data: Mapping[str, Any], order: tuple[str, ...]) -> BatchRecord:
        fingerprint = data.get("corpus_sha256")
        return cls(
            plan=Plan.from_json(as_object(data["plan"], "plan")),
            plan_sha256=data["plan_sha256"],
            order=order,
            created_at=data.get("created_at") or "",
            code_version=CodeVersion.from_json(as_object(data.get("code_version") or {}, "code_version")),
            corpus_sha256=dict(fingerprint) if isinstance(fingerprint, Mapping) else None,
            task_version=data["task_version"] if isinstance(data.get("task_version"), str) else None,
            identities={str(k): str(v) for k, v in as_object(data.get("identities") or {}, "identities").items()},
            extensions=tuple(Extension.from_json(as_object(e, "extensions"))
                             for e in as_list(data.get("extensions") or [], "extensions")),
        )
