"""The run record: runs/<run_id>/run.json (schema bakeoff.run/2), the outcome of a run summed up from its stages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.records.batch import CodeVersion
from bakeoff.records.codec import JsonRecord, TopRecord
from bakeoff.records.enums import (
    Attribution,
    CaptureStatus,
    CrashClass,
    LadderStatus,
    RepairEffect,
    RunStatus,
    StageName,
)
from bakeoff.records.ladder import Headline, Rung
from bakeoff.records.parts import Claim, Timings
from bakeoff.records.plan import DEFAULT_SCAFFOLD, row_label

RUN_SCHEMA = "bakeoff.run/2"  # /1: before the task-neutral outcome (bakeoff.batchfolder.upgrade reads it)


@dataclass(frozen=True)
class ModelRef(JsonRecord):
    label: str = ""
    spec: str = ""
    identity: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict)  # the backend's model_info (sha256, quantization, n_ctx...)

    @property
    def facts(self) -> ModelFacts:
        return ModelFacts.from_info(self.info)


@dataclass(frozen=True)
class ModelFacts:
    """What a backend's model_info says of the model's cost and identity, typed (None where it says nothing):
    a GGUF's quantization, parameter count (from its header's tensor table) and file size and sha256;
    the GPU it was offloaded to; an endpoint's served model name; the engine that served it (bakeoff's own
    "binding" or "server", or what an endpoint said it runs: bakeoff.models.effective)."""

    quantization: str | None = None
    parameters: int | None = None
    file_bytes: int | None = None
    sha256: str | None = None
    gpu: str | None = None
    served_model: str | None = None
    engine: str | None = None

    @classmethod
    def from_info(cls, info: Mapping[str, Any]) -> ModelFacts:
        def whole(key: str) -> int | None:
            value = info.get(key)
            return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

        def text(key: str) -> str | None:
            value = info.get(key)
            return value if isinstance(value, str) and value else None

        return cls(text("quantization"), whole("parameters"), whole("file_bytes"), text("sha256"), text("gpu"),
                   text("served_model"), text("engine"))


@dataclass(frozen=True)
class CorpusRef(JsonRecord):
    path: str = ""
    manifest_sha256: str | None = None


@dataclass(frozen=True)
class Outcome(JsonRecord):
    """The run's final ladder check (how far it got, its headline) and the model's claim beside it."""

    status: LadderStatus
    rung: Rung
    failed_step: str | None = None
    crash_class: CrashClass | None = None
    detail: str | None = None
    metrics: Mapping[str, Any] | None = None
    headline: Headline | None = None
    claim: Claim = field(default_factory=lambda: Claim(None))
    DERIVED = ("rung_name",)

    @property
    def rung_name(self) -> str:
        return Rung(self.rung).label

    @property
    def headline_value(self) -> float | None:
        return self.headline.value if self.headline is not None else None


@dataclass(frozen=True)
class StageSummary(JsonRecord):
    stage: StageName
    attribution: Attribution
    capture: CaptureStatus | None  # None for a stage with no model call


@dataclass(frozen=True)
class CaptureCounts(JsonRecord):
    """Counts over the run's model calls."""

    calls: int = 0
    captured: int = 0
    uncaptured: int = 0
    unusable: int = 0


@dataclass(frozen=True)
class TokenCounts(JsonRecord):
    prompt: int = 0
    cached_prompt: int = 0
    completion: int = 0


@dataclass(frozen=True)
class RunRecord(TopRecord):
    """One run of one model on the task, written last, when the run has ended."""

    run_id: str
    run_index: int
    seed: int
    task: str
    model: ModelRef
    corpus: CorpusRef
    isolation: str  # docker, bwrap or none (unsafe)
    status: RunStatus
    error: str | None
    outcome: Outcome
    stages: tuple[StageSummary, ...]
    repair_effects: tuple[RepairEffect, ...]
    capture: CaptureCounts
    tokens: TokenCounts
    timings: Timings  # summed over the stages
    code_version: CodeVersion = field(default_factory=CodeVersion)
    scaffold: str = DEFAULT_SCAFFOLD  # how the run was driven (bakeoff.scaffolds); written when not the default
    SCHEMA = RUN_SCHEMA
    READ_DEFAULTS = {"run_index": 0, "seed": 0, "task": "", "model": {}, "corpus": {}, "isolation": "", "error": None,
                     "stages": [], "repair_effects": [], "capture": {}, "tokens": {}}
    WRITTEN_WHEN_SET = ("scaffold",)

    @property
    def finished(self) -> bool:
        return self.status == RunStatus.FINISHED

    @property
    def row_label(self) -> str:
        """The report's row of this run: its model, under its scaffold."""
        return row_label(self.model.label, self.scaffold)
