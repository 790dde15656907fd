"""The analysis record: runs/<run_id>/analysis.json (schema bakeoff.analysis/1), written by `bakeoff analyze`.

The measurements inside (the design reading, the probe, the retrains, the judge's opinion) are the
analysis package's own results, kept here as the JSON objects it writes (see docs/reports.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.records.codec import TopRecord

ANALYSIS_SCHEMA = "bakeoff.analysis/1"


@dataclass(frozen=True)
class AnalysisRecord(TopRecord):
    run_id: str
    computed_at: str = ""
    design: Mapping[str, Any] = field(default_factory=dict)  # what the design document says (always present)
    # Written only when measured: the sandbox's kind and the offline install (with the probe or the retrains),
    # the leak probe, the other-seed retrains, and the optional model judge's reading of the design.
    isolation: str | None = None
    requirements: Any = None
    probe: Mapping[str, Any] | None = None
    retrain: Mapping[str, Any] | None = None
    design_judge: Mapping[str, Any] | None = None
    SCHEMA = ANALYSIS_SCHEMA
    WRITTEN_WHEN_SET = ("isolation", "requirements", "probe", "retrain", "design_judge")
