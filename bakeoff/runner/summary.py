"""The run record (run.json): the outcome of a run, summed up from its stage records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from bakeoff.batchfolder.files import utc_now
from bakeoff.records import (
    RUN_SCHEMA,
    Capture,
    CaptureCounts,
    CaptureStatus,
    Claim,
    CompletionRecord,
    CorpusRef,
    LoopStep,
    ModelRef,
    Outcome,
    RunRecord,
    RunStatus,
    Stage,
    StageRecord,
    StageSummary,
    Timings,
    TokenCounts,
)
from bakeoff.records.parts import TIME_KEYS
from bakeoff.runner.scaffold_kit import final_check

if TYPE_CHECKING:
    from bakeoff.records import CodeVersion, Plan
    from bakeoff.runner.plan import RunSlot
    from bakeoff.taskapi.corpus import CorpusFiles


class SummaryEnv(Protocol):
    """What a run's summary needs of its batch (bakeoff.runner.run.BatchEnv has it): asked for by shape, so the
    summary does not import the runner that calls it."""

    @property
    def plan(self) -> Plan: ...

    @property
    def corpus(self) -> CorpusFiles: ...

    @property
    def code_version(self) -> CodeVersion: ...

__all__ = ["RUN_SCHEMA", "run_summary"]


def _model_calls(stages: Mapping[str, StageRecord], steps: Sequence[LoopStep] = ()) -> list[tuple[CompletionRecord | None, Capture]]:
    """Every model call of the run: its stages' (repair turns included), then a loop's steps'."""
    calls = [(completion, capture) for record in stages.values() for _, completion, capture in record.model_calls()]
    return calls + [(step.completion, step.capture) for step in steps if step.capture is not None]


def _capture_counts(calls: list[tuple[CompletionRecord | None, Capture]]) -> CaptureCounts:
    statuses = [capture.status for _, capture in calls]
    return CaptureCounts(len(calls), statuses.count(CaptureStatus.CAPTURED), statuses.count(CaptureStatus.UNCAPTURED),
                         statuses.count(CaptureStatus.UNUSABLE))


def _token_totals(calls: list[tuple[CompletionRecord | None, Capture]]) -> TokenCounts:
    completions = [completion for completion, _ in calls if completion is not None]
    return TokenCounts(sum(int(c.prompt_tokens or 0) for c in completions),
                       sum(int(c.cached_prompt_tokens or 0) for c in completions),
                       sum(int(c.completion_tokens or 0) for c in completions))


def stage_done_fields(record: StageRecord) -> dict[str, Any]:
    """What the journal's `stage_done` line says of a stage beside its name: its attribution, wall time and
    the tokens its model calls generated (the live display shows tokens and tokens per second from them)."""
    completions = [completion for _, completion, _ in record.model_calls() if completion is not None]
    return {"attribution": record.attribution, "wall_s": round(record.timings.wall_s, 3),
            "prompt_tokens": sum(int(c.prompt_tokens or 0) for c in completions),
            "completion_tokens": sum(int(c.completion_tokens or 0) for c in completions),
            "reasoning_tokens": sum(int(c.reasoning_tokens or 0) for c in completions),
            "generation_s": round(sum(float(c.generation_seconds or 0.0) for c in completions), 3)}


def _claim(stages: Mapping[str, StageRecord]) -> Claim:
    for stage in (Stage.DOCS, Stage.EVALUATE):
        record = stages.get(stage)
        if record is not None and record.claim is not None:
            return record.claim
    return Claim(None)


def _summed_timings(stages: Mapping[str, StageRecord], started_at: str) -> Timings:
    sums = {key: sum(float(getattr(r.timings, key)) for r in stages.values()) for key in TIME_KEYS}
    return Timings(started_at, utc_now(), **sums)


def run_summary(env: SummaryEnv, slot: RunSlot, stages: Mapping[str, StageRecord], started_at: str, error: str | None,
                isolation: str, identity: str | None, steps: Sequence[LoopStep] = ()) -> RunRecord:
    """The run record from the run's stage records (and a loop's step records); `identity` is its backend's
    (None when none was opened)."""
    check = final_check(stages)
    claim = _claim(stages)
    calls = _model_calls(stages, steps)
    info: Mapping[str, Any] = {}
    for completion, _ in calls:
        info = (completion.model_info if completion is not None else None) or info
    repair = stages.get(Stage.REPAIR)
    return RunRecord(
        run_id=slot.run_id,
        run_index=slot.index,
        seed=slot.seed,
        task=env.plan.task,
        model=ModelRef(slot.model.label, slot.model.spec, identity, dict(info)),
        corpus=CorpusRef(str(env.corpus.folder), env.corpus.manifest_sha256()),
        isolation=isolation,
        status=RunStatus.HARNESS_FAILED if error else RunStatus.FINISHED,
        error=error,
        outcome=Outcome(
            status=check.status, rung=check.rung, failed_step=check.failed_step,
            crash_class=check.crash_class, detail=check.detail,
            metrics=dict(check.metrics) if check.metrics is not None else None,
            headline=check.headline, claim=claim,
        ),
        stages=tuple(StageSummary(name, r.attribution, r.capture.status if r.capture else None)
                     for name, r in stages.items()),
        repair_effects=tuple(t.effect for t in repair.turns) if repair is not None else (),
        capture=_capture_counts(calls),
        tokens=_token_totals(calls),
        timings=_summed_timings(stages, started_at),
        code_version=env.code_version,
        scaffold=slot.scaffold,
    )
