"""Per-run signals: what one run did, computed from its records by rule.

A run is graded (counts in F1 aggregates) unless the harness failed it, or no answer
came back for the stage that writes the code (implement): such a run says nothing
about the model, so it is counted apart and never scored as zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from bakeoff.analysis import design as design_rules
from bakeoff.analysis.batch_records import JUDGE_FIELD, RunRecords, run_model_label
from bakeoff.analysis.design import DesignSignals, analyse_design
from bakeoff.analysis.hooks import PROBE_KEY, RETRAIN_KEY
from bakeoff.analysis.probes import DOES_NOT_USE, USES_LEAK, ProbeResult
from bakeoff.analysis.retrain import RetrainResult
from bakeoff.grading.outcome import RUNG_SCORED

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
        return self.f1 if self.scored else 0.0

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
        if self.claimed_f1 is None or not self.scored:
            return None
        return self.claimed_f1 - self.f1


def run_signals(records: RunRecords) -> RunSignals:
    run = records.run or {}
    outcome = run.get("outcome") or {}
    capture = run.get("capture") or _capture_from_stages(records.stages)
    grading, reason = grading_of(records)
    probe, retrain = probe_and_retrain(records)
    design = analyse_design(records.design_text)
    metrics = outcome.get("metrics") or {}
    rung = int(outcome.get("rung") or 0)
    scored = rung == RUNG_SCORED and outcome.get("f1") is not None
    return RunSignals(
        run_id=records.run_id,
        model=run_model_label(records),
        seed=run.get("seed"),
        grading=grading,
        grading_reason=reason,
        calls=int(capture.get("calls", 0)),
        captured=int(capture.get("captured", 0)),
        uncaptured=int(capture.get("uncaptured", 0)),
        unusable=int(capture.get("unusable", 0)),
        exploration=exploration_of(records.stages.get("explore")),
        design=design,
        probe=probe,
        divergence=divergence_of(design.stance, probe),
        outcome_status=outcome.get("status"),
        rung=rung,
        f1=outcome.get("f1") if scored else None,
        crash_class=None if scored else (outcome.get("crash_class") or outcome.get("status")),
        crash_detail=None if scored else outcome.get("detail"),
        repair_turns=repair_turns_of(records.stages.get("repair")),
        predicted_rate=metrics.get("predicted_positive_rate") if scored else None,
        true_rate=true_rate_of(metrics),
        claimed_f1=outcome.get("claimed_f1"),
        claim_source=outcome.get("claim_source"),
        retrain=retrain,
        judge_stance=((records.analysis or {}).get(JUDGE_FIELD) or {}).get("stance"),
    )


def grading_of(records: RunRecords) -> tuple[str, str | None]:
    if records.run is None:
        return UNFINISHED, "the run has not ended"
    if records.run.get("status") == "harness_failed":
        return HARNESS_FAILED, records.run.get("error")
    implement = records.stages.get("implement") or {}
    if implement.get("attribution") == "uncaptured":
        return UNCAPTURED, implement.get("attribution_reason") or "no answer came back for the code"
    if implement.get("attribution") == "harness_error":
        return HARNESS_FAILED, implement.get("attribution_reason")
    return GRADED, None


def _capture_from_stages(stages: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    counts = {"calls": 0, "captured": 0, "uncaptured": 0, "unusable": 0}
    for record in stages.values():
        for entry in [record, *record.get("turns", ())]:
            status = (entry.get("capture") or {}).get("status")
            if status in counts:
                counts["calls"] += 1
                counts[status] += 1
    return counts


def exploration_of(record: Mapping[str, Any] | None) -> str:
    if record is None:
        return "missing"
    attribution = record.get("attribution")
    if attribution in ("uncaptured", "unusable", "harness_error"):
        return attribution
    runs = [c for c in record.get("commands", ()) if c.get("purpose") == "explore"]
    if not runs:
        return "missing"
    last = runs[-1]
    if last.get("timed_out"):
        return "timeout"
    if last.get("oom_killed"):
        return "out_of_memory"
    return "executed" if last.get("exit_code") == 0 else "crashed"


def probe_and_retrain(records: RunRecords) -> tuple[ProbeResult | None, RetrainResult | None]:
    """From analysis.json when `bakeoff analyze` wrote one (the latest word), else the evaluate record's extras."""
    evaluate = records.stages.get("evaluate") or {}
    sources = [records.analysis or {}, evaluate.get("extras") or {}, evaluate]
    # a hook that failed leaves {"hook_error": ...} in place of its result: no measurement, not a crash here
    probe = next((s[PROBE_KEY] for s in sources if "verdict" in (s.get(PROBE_KEY) or {})), None)
    retrain = next((s[RETRAIN_KEY] for s in sources if "retrains" in (s.get(RETRAIN_KEY) or {})), None)
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


def repair_turns_of(record: Mapping[str, Any] | None) -> tuple[RepairTurn, ...]:
    if record is None:
        return ()
    turns = []
    for index, turn in enumerate(record.get("turns", ()), start=1):
        before, after = turn.get("before") or {}, turn.get("after") or {}
        turns.append(
            RepairTurn(
                turn=int(turn.get("turn") or index),
                before_rung=before.get("rung"),
                after_rung=after.get("rung"),
                before_f1=before.get("f1"),
                after_f1=after.get("f1"),
                effect=turn.get("effect") or "unchanged",
            )
        )
    return tuple(turns)


def true_rate_of(metrics: Mapping[str, Any]) -> float | None:
    if metrics.get("actual_positive_rate"):
        return float(metrics["actual_positive_rate"])
    confusion = metrics.get("confusion") or metrics
    try:
        n = int(confusion.get("tp", 0)) + int(confusion.get("fp", 0)) + int(confusion.get("fn", 0)) + int(confusion.get("tn", 0))
        return (int(confusion["tp"]) + int(confusion["fn"])) / n if n else None
    except (KeyError, TypeError, ValueError):
        return None
