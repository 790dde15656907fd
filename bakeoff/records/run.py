"""The run record: runs/<run_id>/run.json (schema bakeoff.run/2), the outcome of a run summed up from its stages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.records.batch import CodeVersion
from bakeoff.records.enums import Attribution, CaptureStatus, CrashClass, LadderStatus, RepairEffect, RunStatus, Stage
from bakeoff.records.jsonio import (
    JsonObject,
    as_list,
    as_object,
    enum_value,
    optional,
    optional_enum,
    read_record,
    required,
)
from bakeoff.records.ladder import Headline, Rung, rung_of
from bakeoff.records.parts import Claim, Timings
from bakeoff.records.plan import DEFAULT_SCAFFOLD, row_label

RUN_SCHEMA = "bakeoff.run/2"  # /1: before the task-neutral outcome (bakeoff.batchfolder.upgrade reads it)
RUN_SCHEMAS = (RUN_SCHEMA,)


@dataclass(frozen=True)
class ModelRef:
    label: str
    spec: str
    identity: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict)  # the backend's model_info (sha256, quantization, n_ctx...)

    @property
    def facts(self) -> ModelFacts:
        return ModelFacts.from_info(self.info)

    def to_json(self) -> JsonObject:
        return {"label": self.label, "spec": self.spec, "identity": self.identity, "info": dict(self.info)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelRef:
        return cls(data.get("label") or "", data.get("spec") or "", data.get("identity"), dict(data.get("info") or {}))


@dataclass(frozen=True)
class ModelFacts:
    """What a backend's model_info says of the model's cost and identity, typed (None where it says nothing):
    a GGUF's quantization, parameter count (from its header's tensor table) and file size and sha256;
    the GPU it was offloaded to; an endpoint's served model name."""

    quantization: str | None = None
    parameters: int | None = None
    file_bytes: int | None = None
    sha256: str | None = None
    gpu: str | None = None
    served_model: str | None = None

    @classmethod
    def from_info(cls, info: Mapping[str, Any]) -> ModelFacts:
        def whole(key: str) -> int | None:
            value = info.get(key)
            return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

        def text(key: str) -> str | None:
            value = info.get(key)
            return value if isinstance(value, str) and value else None

        return cls(text("quantization"), whole("parameters"), whole("file_bytes"), text("sha256"), text("gpu"),
                   text("served_model"))


@dataclass(frozen=True)
class CorpusRef:
    path: str
    manifest_sha256: str | None

    def to_json(self) -> JsonObject:
        return {"path": self.path, "manifest_sha256": self.manifest_sha256}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CorpusRef:
        return cls(data.get("path") or "", data.get("manifest_sha256"))


@dataclass(frozen=True)
class Outcome:
    """The run's final ladder check (how far it got, its headline) and the model's claim beside it."""

    status: LadderStatus
    rung: Rung
    failed_step: str | None = None
    crash_class: CrashClass | None = None
    detail: str | None = None
    metrics: Mapping[str, Any] | None = None
    headline: Headline | None = None
    claim: Claim = field(default_factory=lambda: Claim(None))

    @property
    def rung_name(self) -> str:
        return Rung(self.rung).label

    @property
    def headline_value(self) -> float | None:
        return self.headline.value if self.headline is not None else None

    def to_json(self) -> JsonObject:
        return {"status": self.status, "rung": int(self.rung), "rung_name": self.rung_name,
                "failed_step": self.failed_step, "crash_class": self.crash_class, "detail": self.detail,
                "metrics": dict(self.metrics) if self.metrics is not None else None,
                "headline": self.headline.to_json() if self.headline is not None else None,
                "claim": self.claim.to_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        required(data, "status", "rung")
        return cls(enum_value(LadderStatus, data["status"], "outcome.status"), rung_of(data["rung"], "outcome.rung"),
                   data.get("failed_step"),
                   optional_enum(CrashClass, data.get("crash_class"), "outcome.crash_class"), data.get("detail"),
                   optional(dict, data.get("metrics"), "outcome.metrics"),
                   optional(Headline.from_json, data.get("headline"), "outcome.headline"),
                   optional(Claim.from_json, data.get("claim"), "outcome.claim") or Claim(None))


@dataclass(frozen=True)
class StageSummary:
    stage: Stage
    attribution: Attribution
    capture: CaptureStatus | None  # None for a stage with no model call

    def to_json(self) -> JsonObject:
        return {"stage": self.stage, "attribution": self.attribution, "capture": self.capture}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StageSummary:
        return cls(enum_value(Stage, data["stage"], "stages.stage"), enum_value(Attribution, data["attribution"], "stages.attribution"),
                   optional_enum(CaptureStatus, data.get("capture"), "stages.capture"))


@dataclass(frozen=True)
class CaptureCounts:
    """Counts over the run's model calls."""

    calls: int = 0
    captured: int = 0
    uncaptured: int = 0
    unusable: int = 0

    def to_json(self) -> JsonObject:
        return {"calls": self.calls, "captured": self.captured, "uncaptured": self.uncaptured, "unusable": self.unusable}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CaptureCounts:
        return cls(*(int(data.get(key) or 0) for key in ("calls", "captured", "uncaptured", "unusable")))


@dataclass(frozen=True)
class TokenCounts:
    prompt: int = 0
    cached_prompt: int = 0
    completion: int = 0

    def to_json(self) -> JsonObject:
        return {"prompt": self.prompt, "cached_prompt": self.cached_prompt, "completion": self.completion}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TokenCounts:
        return cls(*(int(data.get(key) or 0) for key in ("prompt", "cached_prompt", "completion")))


@dataclass(frozen=True)
class RunRecord:
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

    @property
    def finished(self) -> bool:
        return self.status == RunStatus.FINISHED

    @property
    def row_label(self) -> str:
        """The report's row of this run: its model, under its scaffold."""
        return row_label(self.model.label, self.scaffold)

    def to_json(self) -> JsonObject:
        return {
            "schema": RUN_SCHEMA,
            "run_id": self.run_id,
            "run_index": self.run_index,
            "seed": self.seed,
            "task": self.task,
            "model": self.model.to_json(),
            "corpus": self.corpus.to_json(),
            "isolation": self.isolation,
            "status": self.status,
            "error": self.error,
            "outcome": self.outcome.to_json(),
            "stages": [s.to_json() for s in self.stages],
            "repair_effects": list(self.repair_effects),
            "capture": self.capture.to_json(),
            "tokens": self.tokens.to_json(),
            "timings": self.timings.to_json(),
            "code_version": self.code_version.to_json(),
            **({"scaffold": self.scaffold} if self.scaffold != DEFAULT_SCAFFOLD else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "") -> RunRecord:
        return read_record(data, ("run_id", "status", "outcome", "timings"), RUN_SCHEMAS, where, cls._read, "run")

    @classmethod
    def _read(cls, data: Mapping[str, Any]) -> RunRecord:
        return cls(
            run_id=data["run_id"],
            run_index=data.get("run_index") or 0,
            seed=data.get("seed") or 0,
            task=data.get("task") or "",
            model=ModelRef.from_json(as_object(data.get("model") or {}, "model")),
            corpus=CorpusRef.from_json(as_object(data.get("corpus") or {}, "corpus")),
            isolation=data.get("isolation") or "",
            status=enum_value(RunStatus, data["status"], "status"),
            error=data.get("error"),
            outcome=Outcome.from_json(as_object(data["outcome"], "outcome")),
            stages=tuple(StageSummary.from_json(as_object(s, "stages")) for s in as_list(data.get("stages"), "stages")),
            repair_effects=tuple(enum_value(RepairEffect, e, "repair_effects")
                                 for e in as_list(data.get("repair_effects"), "repair_effects")),
            capture=CaptureCounts.from_json(as_object(data.get("capture") or {}, "capture")),
            tokens=TokenCounts.from_json(as_object(data.get("tokens") or {}, "tokens")),
            timings=Timings.from_json(as_object(data["timings"], "timings")),
            code_version=CodeVersion.from_json(as_object(data.get("code_version") or {}, "code_version")),
            scaffold=str(data.get("scaffold") or DEFAULT_SCAFFOLD),
        )
