"""The spam take-home's per-run signals: what every task's run says (bakeoff.analysis.core) and what the
design says of the leaking column, what the leak probe saw the code do, the predicted spam rate, the claimed
F1 and the seed retrains.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TypeVar

from bakeoff.analysis.core import GRADED, HARNESS_FAILED, UNCAPTURED, UNFINISHED, RunCore, run_core
from bakeoff.batchfolder.read import RunRecords
from bakeoff.records import Stage
from bakeoff.taskapi.grade import read_grade
from bakeoff.tasks.spam_classifier import design as design_rules
from bakeoff.tasks.spam_classifier.design import DesignSignals, analyse_design
from bakeoff.tasks.spam_classifier.hooks import PROBE_KEY, RETRAIN_KEY
from bakeoff.tasks.spam_classifier.judge import JudgeOpinion
from bakeoff.tasks.spam_classifier.outcome import SpamGrade
from bakeoff.tasks.spam_classifier.probes import DOES_NOT_USE, USES_LEAK, ProbeResult, read_probe
from bakeoff.tasks.spam_classifier.retrain import RetrainResult, read_retrain
from bakeoff.tasks.spam_classifier.words import WORDS

__all__ = ["CONSISTENT", "EXCLUDES_BUT_USES", "GRADED", "HARNESS_FAILED", "KEEPS_BUT_IGNORES", "UNCAPTURED",
           "UNDECLARED_USE", "UNFINISHED", "RunSignals", "divergence_of", "probe_and_retrain", "run_signals"]

# Divergence between what the design says about the leaky column and what the code does
KEEPS_BUT_IGNORES = "design_keeps_code_ignores"
EXCLUDES_BUT_USES = "design_excludes_code_uses"
UNDECLARED_USE = "undeclared_use"  # the design is silent on the column, the code reads it
CONSISTENT = "consistent"
_KEEP_SIDE = {design_rules.KEPT, design_rules.ASSERTED_AVAILABLE}
_EXCLUDE_SIDE = {design_rules.EXCLUDED_WITH_REASON, design_rules.EXCLUDED_WITHOUT_REASON}
T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class RunSignals(RunCore):
    """What every task's run says (bakeoff.analysis.core.RunCore, read once) and the spam take-home's own."""

    design: DesignSignals
    probe: ProbeResult | None
    divergence: str | None  # None when the probe could not decide
    predicted_rate: float | None
    true_rate: float | None
    claim_source: str | None
    retrain: RetrainResult | None
    judge_stance: str | None = None  # the optional model judge's reading of the design (never replaces the rules)

    @property
    def f1(self) -> float | None:
        """Holdout F1 when scored, else None."""
        return self.headline

    @property
    def claimed_f1(self) -> float | None:
        return self.claim.claimed

    @property
    def judge_agrees(self) -> bool | None:
        return None if self.judge_stance is None else self.judge_stance == self.design.stance

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
    core = run_core(records)
    run = records.run
    outcome = run.outcome if run is not None else None
    probe, retrain = probe_and_retrain(records)
    design = analyse_design(records.design_text)
    grade = read_grade(SpamGrade, outcome.metrics) if outcome is not None else None
    judge = records.analysis.design_judge if records.analysis is not None else None
    return RunSignals(
        **{f.name: getattr(core, f.name) for f in fields(RunCore)},
        design=design,
        probe=probe,
        divergence=divergence_of(design.stance, probe),
        predicted_rate=grade.predicted_positive_rate if core.scored and grade is not None else None,
        true_rate=grade.true_rate if grade is not None else None,
        claim_source=WORDS.source(core.claim.source),
        retrain=retrain,
        judge_stance=JudgeOpinion.from_dict(judge).stance if judge else None,
    )


def probe_and_retrain(records: RunRecords) -> tuple[ProbeResult | None, RetrainResult | None]:
    """From analysis.json when `bakeoff analyze` wrote one (the latest word), else the evaluate record's extras."""
    evaluate = records.stages.get(Stage.EVALUATE)
    extras = evaluate.extras if evaluate is not None else {}
    analysis = records.analysis
    # a hook that failed leaves {"hook_error": ...} in place of its result: no measurement, not a crash here
    return (_first(read_probe, analysis.probe if analysis is not None else None, extras.get(PROBE_KEY)),
            _first(read_retrain, analysis.retrain if analysis is not None else None, extras.get(RETRAIN_KEY)))


def _first(read: Callable[[object], T | None], *sources: object) -> T | None:
    """The first of `sources` that holds the record `read` reads."""
    return next((found for found in map(read, sources) if found is not None), None)


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
