"""`bakeoff score --task spam_classifier`: the grading outcome (bakeoff.tasks.spam_classifier.score) as a ScoreReport."""

from __future__ import annotations

import dataclasses
from typing import Any

from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.tasks.spam_classifier.check import SpamGraded
from bakeoff.tasks.spam_classifier.outcome import SubmissionOutcome
from bakeoff.tasks.spam_classifier.words import WORDS
from sandbox.kinds import UNSAFE


def outcome_of(folder: ScoredFolder) -> SubmissionOutcome:
    """The holdout's outcome with what grading the folder alone adds: its claim and the copy's notes."""
    graded = folder.graded
    assert isinstance(graded, SpamGraded)  # this task's own grade() made it
    claim = folder.claim
    return dataclasses.replace(graded.holdout, claimed_f1=claim.claimed, claim_source=WORDS.source(claim.source),
                               workspace_notes=folder.notes)


class SpamScoreReport(ScoreReport):
    """The outcome as `bakeoff score` has always printed it (text) and written it (--json)."""

    def __init__(self, outcome: SubmissionOutcome) -> None:
        self.outcome = outcome

    def to_dict(self) -> dict[str, Any]:
        return self.outcome.to_dict()

    def format_text(self) -> str:
        return format_outcome(self.outcome)


def format_outcome(outcome: SubmissionOutcome) -> str:
    """A short human summary of a SubmissionOutcome."""
    lines = [f"status: {outcome.status}  (stage {outcome.stage}, ladder rung {outcome.rung}/5)"]
    if outcome.crash_class:
        lines.append(f"crash: {outcome.crash_class}")
    if outcome.detail:
        lines.append(f"detail: {outcome.detail}")
    metrics = outcome.metrics
    if metrics is not None and metrics.ok:
        lines.append(
            f"f1 {metrics.f1:.4f}  precision {metrics.precision:.4f}  recall {metrics.recall:.4f}  "
            f"accuracy {metrics.accuracy:.4f}  predicted spam rate {metrics.predicted_positive_rate:.3f} "
            f"(actual {metrics.actual_positive_rate:.3f})"
        )
    else:
        lines.append(f"f1 {outcome.f1:.4f}")
    if outcome.claimed_f1 is not None:
        lines.append(f"claimed f1 (EXPECTED_F1 in its {outcome.claim_source}): {outcome.claimed_f1:.4f}")
    if outcome.requirements is not None and outcome.requirements.lines:
        for line in outcome.requirements.lines:
            reason = f" ({line.reason})" if line.reason else ""
            lines.append(f"requirement {line.text!r}: {line.fate}{reason}")
    for note in outcome.workspace_notes:
        lines.append(f"workspace copy: {note}")
    for step in outcome.steps:
        if step.disk_peak_bytes is not None and step.disk_cap_bytes:
            lines.append(f"disk ({step.stage}): peak {step.disk_peak_bytes / 1024**2:.1f} MiB of {step.disk_cap_bytes / 1024**2:.0f} MiB")
    if outcome.traceback_tail:
        lines.append("traceback (end):")
        lines.extend("  " + text for text in outcome.traceback_tail.splitlines()[-8:])
    timings = outcome.timings
    lines.append(
        f"time: install {timings.install_s:.1f}s  train {timings.train_s:.1f}s  "
        f"predict {timings.predict_s:.1f}s  score {timings.score_s:.2f}s  total {timings.total_s:.1f}s"
    )
    isolation = outcome.isolation if outcome.isolation != UNSAFE else f"{UNSAFE} (UNSAFE: no isolation)"
    lines.append(f"isolation: {isolation}")
    return "\n".join(lines)
