"""The analysis record: runs/<run_id>/analysis.json (schema bakeoff.analysis/1), written by `bakeoff analyze`.

The measurements inside (the design reading, the probe, the retrains, the judge's opinion) are the
analysis package's own results, kept here as the JSON objects it writes (see docs/reports.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bakeoff.records.jsonio import JsonObject, read_record

ANALYSIS_SCHEMA = "bakeoff.analysis/1"
ANALYSIS_SCHEMAS = (ANALYSIS_SCHEMA,)
OPTIONAL_KEYS = ("isolation", "requirements", "probe", "retrain", "design_judge")


@dataclass(frozen=True)
class AnalysisRecord:
    run_id: str
    computed_at: str
    design: Mapping[str, Any]  # what the design document says (always present)
    # Written only when measured: the sandbox's kind and the offline install (with the probe or the retrains),
    # the leak probe, the other-seed retrains, and the optional model judge's reading of the design.
    isolation: str | None = None
    requirements: Any = None
    probe: Mapping[str, Any] | None = None
    retrain: Mapping[str, Any] | None = None
    design_judge: Mapping[str, Any] | None = None

    def to_json(self) -> JsonObject:
        data: JsonObject = {"schema": ANALYSIS_SCHEMA, "run_id": self.run_id, "computed_at": self.computed_at,
                            "design": dict(self.design)}
        for key in OPTIONAL_KEYS:
            value = getattr(self, key)
            if value is not None:
                data[key] = dict(value) if isinstance(value, Mapping) else value
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "") -> AnalysisRecord:
        return read_record(data, ("run_id",), ANALYSIS_SCHEMAS, where, lambda data: cls(
            run_id=data["run_id"], computed_at=data.get("computed_at") or "", design=dict(data.get("design") or {}),
            isolation=data.get("isolation"), requirements=data.get("requirements"), probe=data.get("probe"),
            retrain=data.get("retrain"), design_judge=data.get("design_judge"),
        ), "analysis")
