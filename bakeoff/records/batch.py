"""The batch record: BATCH/batch.json (schema bakeoff.batch/1), the resolved plan and the run order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.records.errors import DamagedRecord
from bakeoff.records.jsonio import JsonObject, as_object, check_schema, guarded, required
from bakeoff.records.plan import Plan

BATCH_SCHEMA = "bakeoff.batch/1"
BATCH_SCHEMAS = (BATCH_SCHEMA,)


@dataclass(frozen=True)
class BatchRecord:
    """What a batch was started with; a restart with another plan (plan_sha256) is refused."""

    plan: Plan  # the resolved plan (written as Plan.to_dict)
    plan_sha256: str
    order: tuple[str, ...]  # run ids in execution order
    created_at: str = ""
    code_version: Mapping[str, Any] = field(default_factory=dict)  # {"version", "git_commit", "dirty"}
    # file name -> sha256 of each corpus file the runs use; None for a batch without a corpus check (older ones)
    corpus_sha256: Mapping[str, str | None] | None = None

    def to_json(self) -> JsonObject:
        return {
            "schema": BATCH_SCHEMA,
            "plan": self.plan.to_dict(),
            "plan_sha256": self.plan_sha256,
            "order": list(self.order),
            "created_at": self.created_at,
            "code_version": dict(self.code_version),
            "corpus_sha256": dict(self.corpus_sha256) if self.corpus_sha256 is not None else None,
        }

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
            code_version=dict(data.get("code_version") or {}),
            corpus_sha256=dict(fingerprint) if isinstance(fingerprint, Mapping) else None,
        )
