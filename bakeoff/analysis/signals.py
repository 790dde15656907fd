"""Per-run signals: what one run did, computed from its records by rule.

A run is graded (counts in F1 aggregates) unless the harness failed it, or no answer
came back for the stage that writes the code (implement): such a run says nothing
about the model, so it is counted apart and never scored as zero.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bakeoff.analysis import design as design_rules
from bakeoff.analysis.batch_records import RunRecords, run_model_label, stage_calls
from bakeoff.analysis.design import DesignSignals, analyse_design
from bakeoff.analysis.hooks import PROBE_KEY, RETRAIN_KEY
from bakeoff.analysis.probes import DOES_NOT_USE, USES_LEAK, ProbeResult
from bakeoff.analysis.retrain import RetrainResult
from bakeoff.grading.outcome import RUNG_SCORED
from bakeoff.records import Attribution, CaptureCounts, CaptureStatus, RunStatus, StageRecord

# Why a run is not graded
GRADED, UNCAPTURED, HARNESS_FAILED, UNFINISHED = "graded", "uncaptured", "harness_failed", "unfinished"

# Divergence between what the design says about the leaky column and what the code does
KEEPS_BUT_IGNORES = "design_keeps_code_ignores"
EXCLUDES_BUT_USES = "design_excludes_code_uses"
UNDECLARED_USE = "undeclared_use"  # the design is silent on the column, the code reads it
CONSISTENT = "consistent"
_KEEP_SIDE = {design_rules.KEPT, design_rules.ASSERTED_AVAILABLE}
_EXCLUDE_SIDE = {design_rules.EXCLUDED_WITH_REASON, design_rules.EXCLUDED_WITHOUT_REASON}


@dataclass(frozen=True)
class RepairTurn:
    turn: int
    before_rung: int | None
    after_rung: int | None
    before_f1: float | None
    after_f1: float | None
    effect: str  # rescued, regressed, unchanged


@dataclass(frozen=True)
class RunSignals:
    run_id: str
    model: str
    seed: int | None
    grading: str  # graded, uncaptured, harness_failed, unfinished
    grading_reason: str | None
    calls: int
    captured: int
    uncaptured: int
    unusable: int
    exploration: str  # executed, crashed, timeout, out_of_memory, uncaptured, unusable, harness_error, missing
    design: DesignSignals
    probe: ProbeResult | None
    divergence: str | None  # None when the probe could not decide
    outcome_status: str | None  # the final ladder check's status
    rung: int
    f1: float | None  # holdout F1 when scored, else None
    crash_class: str | None
    crash_detail: str | None
    repair_turns: tuple[RepairTurn, ...]
    predicted_rate: float | None
    true_rate: float | None
    claimed_f1: float | None
    claim_source: str | None
    retrain: RetrainResult | None
    judge_stance: str | None = None  # the optional model judge's reading of the design (never replaces the rules)

    @property
    def judge_agrees(self) -> bool | None:
        return None if self.judge_stance is None else self.judge_stance == self.design.stance

    @property
    def graded(self) -> bool:
        return self.grading == GRADED

    @property
    def scored(self) -> bool:
        return self.rung == RUNG_SCORED and self.f1 is not None

    @property
    def f1_or_zero(self) -> float:
        """The F1 a graded run counts for: a crash or a bad output counts as zero."""
        return self.f1 if self.scored and self.f1 is not None else 0.0

    @property
    def diverges(self) -> bool | None:
        if self.divergence is None:
            return None
        return self.divergence in (KEEPS_BUT_IGNORES, EXCLUDES_BUT_USES)

    @property
    def leak_caught(self) -> bool | None:
        """The design excluded the column and the executed code indeed does not read it."""
        if self.probe is None or self.probe.uses_leak is None:
            return None
        return self.design.stance in _EXCLUDE_SIDE and not self.probe.uses_leak

    @property
    def calibration_error(self) -> float | None:
        """claimed - real: positive when the model promised more than it delivered."""
        if self.claimed_f1 is None or not self.scored or self.f1 is None:
            return None
        return self.claimed_f1 - self.f1


def run_signals(records: RunRecords) -> RunSignals:
    run = records.run
    outcome = run.outcome if run is not None else None
    capture = run.capture if run is not None else _capture_from_stages(records.stages)
    grading, reason = grading_of(records)
    probe, retrain = probe_and_retrain(records)
    design = analyse_design(records.design_text)
    metrics = (outcome.metrics if outcome is not None else None) or {}
    rung = outcome.rung if outcome is not None else 0
    f1 = outcome.f1 if outcome is not None else None
    scored = rung == RUNG_SCORED and f1 is not None
    judge = (records.analysis.design_judge if records.analysis is not None else None) or {}
    return RunSignals(
        run_id=records.run_id,
        model=run_model_label(records),
        seed=run.seed if run is not None else None,
        grading=grading,
        grading_reason=reason,
        calls=capture.calls,
        captured=capture.captured,
        uncaptured=capture.uncaptured,
        unusable=capture.unusable,
        exploration=exploration_of(records.stages.get("explore")),
        design=design,
        probe=probe,
        divergence=divergence_of(design.stance, probe),
        outcome_status=outcome.status.value if outcome is not None else None,
        rung=rung,
        f1=f1 if scored else None,
        crash_class=None if scored or outcome is None else _value(outcome.crash_class or outcome.status),
        crash_detail=None if scored or outcome is None else outcome.detail,
        repair_turns=repair_turns_of(records.stages.get("repair")),
        predicted_rate=metrics.get("predicted_positive_rate") if scored else None,
        true_rate=true_rate_of(metrics),
        claimed_f1=outcome.claimed_f1 if outcome is not None else None,
        claim_source=outcome.claim_source if outcome is not None else None,
        retrain=retrain,
        judge_stance=judge.get("stance"),
    )


def _value(member: StrEnum | None) -> str | None:
    """The plain string of an enum member: signals hold the records' words, not their classes."""
    return None if member is None else member.value


def grading_of(records: RunRecords) -> tuple[str, str | None]:
    if records.run is None:
        return UNFINISHED, "the run has not ended"
    if records.run.status == RunStatus.HARNESS_FAILED:
        return HARNESS_FAILED, records.run.error
    implement = records.stages.get("implement")
    if implement is not None and implement.attribution == Attribution.UNCAPTURED:
        return UNCAPTURED, implement.attribution_reason or "no answer came back for the code"
    if implement is not None and implement.attribution == Attribution.HARNESS_ERROR:
        return HARNESS_FAILED, implement.attribution_reason
    return GRADED, None


def _capture_from_stages(stages: Mapping[str, StageRecord]) -> CaptureCounts:
    """The run's capture counts summed from its stage records (a run that has not ended has no run.json)."""
    statuses = [call.capture.status for record in stages.values() for call in stage_calls(record)
                if call.capture is not None]
    return CaptureCounts(calls=len(statuses), captured=statuses.count(CaptureStatus.CAPTURED),
                         uncaptured=statuses.count(CaptureStatus.UNCAPTURED),
                         unusable=statuses.count(CaptureStatus.UNUSABLE))


def exploration_of(record: StageRecord | None) -> str:
    if record is None:
        return "missing"
    if record.attribution in (Attribution.UNCAPTURED, Attribution.UNUSABLE, Attribution.HARNESS_ERROR):
        return record.attribution.value
    runs = [c for c in record.commands if c.purpose == "explore"]
    if not runs:
        return "missing"
    last = runs[-1]
    if last.timed_out:
        return "timeout"
    if last.oom_killed:
        return "out_of_memory"
    return "executed" if last.exit_code == 0 else "crashed"


def probe_and_retrain(records: RunRecords) -> tuple[ProbeResult | None, RetrainResult | None]:
    """From analysis.json when `bakeoff analyze` wrote one (the latest word), else the evaluate record's extras."""
    evaluate = records.stages.get("evaluate")
    extras = evaluate.extras if evaluate is not None else {}
    analysis = records.analysis
    probes = [analysis.probe if analysis is not None else None, extras.get(PROBE_KEY)]
    retrains = [analysis.retrain if analysis is not None else None, extras.get(RETRAIN_KEY)]
    # a hook that failed leaves {"hook_error": ...} in place of its result: no measurement, not a crash here
    probe = next((p for p in probes if isinstance(p, Mapping) and "verdict" in p), None)
    retrain = next((r for r in retrains if isinstance(r, Mapping) and "retrains" in r), None)
    probe_result = ProbeResult.from_dict(probe) if probe else None
    retrain_result = RetrainResult.from_dict(retrain) if retrain else None
    return probe_result, retrain_result


def divergence_of(stance: str, probe: ProbeResult | None) -> str | None:
    if probe is None or probe.verdict not in (USES_LEAK, DOES_NOT_USE):
        return None
    uses = probe.verdict == USES_LEAK
    if stance in _KEEP_SIDE and not uses:
        return KEEPS_BUT_IGNORES
    if stance in _EXCLUDE_SIDE and uses:
        return EXCLUDES_BUT_USES
    if stance not in _KEEP_SIDE | _EXCLUDE_SIDE and uses:
        return UNDECLARED_USE
    return CONSISTENT


def repair_turns_of(record: StageRecord | None) -> tuple[RepairTurn, ...]:
    if record is None:
        return ()
    return tuple(
        RepairTurn(turn=turn.turn, before_rung=turn.before.rung, after_rung=turn.after.rung,
                   before_f1=turn.before.f1, after_f1=turn.after.f1, effect=turn.effect.value)
        for turn in record.turns
    )


def true_rate_of(metrics: Mapping[str, Any]) -> float | None:
    """The answer key's positive rate, from the scorer's figures (scorer.Score.to_dict: the confusion matrix nested)."""
    if metrics.get("actual_positive_rate"):
        return float(metrics["actual_positive_rate"])
    confusion = metrics.get("confusion")
    if not isinstance(confusion, Mapping):
        return None
    try:
        tp, fp, fn, tn = (int(confusion[key]) for key in ("tp", "fp", "fn", "tn"))
    except (KeyError, TypeError, ValueError):
        return None
    n = tp + fp + fn + tn
    return (tp + fn) / n if n else None
