"""`bakeoff score REPO --task ab_test`: grade an analysis folder alone on the hidden experiments.

The folder is copied (trusting nothing in it: bakeoff.grading.inputs.copy_working_tree) into a scratch
workspace; a sandbox is opened over it with the visible sessions at data/sessions.csv and the hidden
experiments at /holdout (read-only, their truth never), and bakeoff.tasks.ab_analysis runs and grades it.
The scratch copy is removed at the end, also when a signal unwinds it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bakeoff.analysis.unit_probe import UnitProbeRecord
from bakeoff.analysis.unit_probe_hook import probe_submission
from bakeoff.grading.score import (
    ScoringUnavailable,
    claim_in_submission,
    open_scoring_sandbox,
    scoring_kind,
    scoring_wheelhouse,
)
from bakeoff.tasks.ab_analysis import AbOutcome, AbRequest, analyse_in_sandbox
from bakeoff.tasks.base import OptionNotForTask, ScoreReport, ScoreRequest
from generators.secret import SECRET_FILE
from sandbox.kinds import UNSAFE, consent_settings
from sandbox.submission import SubmissionSandbox

__all__ = ["AbScoreReport", "OptionNotForTask", "score_ab_submission"]


class AbScoreReport(ScoreReport):
    """What grading one ab_test submission found."""

    def __init__(self, outcome: AbOutcome, isolation: str, notes: tuple[str, ...], claim: dict[str, Any],
                 unit_probe: UnitProbeRecord | None = None) -> None:
        self.outcome, self.isolation, self.notes, self.claim = outcome, isolation, notes, claim
        self.unit_probe = unit_probe

    def to_dict(self) -> dict[str, Any]:
        o = self.outcome
        return {
            "task": "ab_test", "status": o.status, "stage": o.stage, "rung": o.rung, "isolation": self.isolation,
            "crash_class": o.crash_class, "detail": o.detail, "traceback_tail": o.traceback_tail,
            "visible_result": dict(o.visible_result) if o.visible_result else None, "visible_error": o.visible_error,
            "metrics": o.score.to_dict() if o.score is not None else None,
            "requirements": o.requirements.to_dict() if o.requirements else None,
            "claim": self.claim, "workspace_notes": list(self.notes),
            "unit_probe": self.unit_probe.to_dict() if self.unit_probe is not None else None,
            "steps": [{"purpose": s.purpose, "argv": list(s.result.argv), "exit_code": s.result.exit_code,
                       "timed_out": s.result.timed_out, "oom_killed": s.result.oom_killed,
                       "duration_s": s.result.duration_s} for s in o.steps],
            "timings": dict(o.seconds),
        }

    def format_text(self) -> str:
        o = self.outcome
        lines = [f"status: {o.status}  (stage {o.stage}, ladder rung {o.rung}/5)"]
        if o.crash_class:
            lines.append(f"crash: {o.crash_class}")
        if o.detail:
            lines.append(f"detail: {o.detail}")
        if o.visible_result:
            v = o.visible_result
            lines.append(f"visible experiment: effect {v['effect']:.5f} [{v['ci_low']:.5f}, {v['ci_high']:.5f}]")
        elif o.visible_error:
            lines.append(f"visible result unusable: {o.visible_error}")
        if o.score is not None:
            from scorer.intervals import format_text

            lines.append(format_text(o.score))
        if self.claim.get("claimed_effect") is not None:
            low, high = self.claim["claimed_ci"]
            lines.append(f"claimed (ESTIMATE in its {self.claim['source']}): {self.claim['claimed_effect']:.5f} "
                         f"[{low:.5f}, {high:.5f}]")
        if self.unit_probe is not None:
            lines.append(_probe_line(self.unit_probe))
        for line in (o.requirements.lines if o.requirements else ()):
            lines.append(f"requirement {line.text!r}: {line.fate}" + (f" ({line.reason})" if line.reason else ""))
        lines.extend(f"workspace copy: {note}" for note in self.notes)
        if o.traceback_tail:
            lines.append("traceback (end):")
            lines.extend("  " + text for text in o.traceback_tail.splitlines()[-8:])
        lines.append(f"time: sandbox {o.seconds.get('sandbox', 0.0):.1f}s  score {o.seconds.get('score', 0.0):.2f}s")
        lines.append(f"isolation: {self.isolation if self.isolation != UNSAFE else f'{UNSAFE} (UNSAFE: no isolation)'}")
        return "\n".join(lines)


def _probe_line(record: UnitProbeRecord) -> str:
    probe = record.probe
    ratios = []
    if probe.width_ratio is not None:
        ratios.append(f"width x{probe.width_ratio:.2f} with every visit logged twice")
    if probe.halved_width_ratio is not None:
        ratios.append(f"x{probe.halved_width_ratio:.2f} on half the users")
    detail = "; ".join(ratios) or probe.message
    return f"unit probe ({record.experiment or 'not run'}): {probe.unit.value}" + (f" ({detail})" if detail else "")


def _claim(outcome: AbOutcome, workspace: Path) -> dict[str, Any]:
    from bakeoff.tasks.ab_test import claim_record, parse_estimate

    step = outcome.visible_step
    return claim_record(claim_in_submission(step.result.stdout if step is not None else "", workspace, parse_estimate))


def score_ab_submission(request: ScoreRequest, on_stage: Callable[[str], None] | None = None) -> AbScoreReport:
    """Grade the analysis in request.repo on the hidden experiments of request.corpus; the folder is never changed."""
    from bakeoff.grading.inputs import copy_working_tree
    from bakeoff.tasks.ab_test import HOLDOUT_IN_SANDBOX, SESSIONS_IN_SANDBOX, TRUTH_PART, VISIBLE_TRUTH_PART, AbTest
    from sandbox.base import Limits

    if request.train:
        raise OptionNotForTask("--train does not apply to --task ab_test (analyze.py has no training step)")
    kind = scoring_kind(request.unsafe_no_isolation, request.sandbox_kind)
    settings = {**request.sandbox_options, **consent_settings(kind, request.unsafe_no_isolation, ScoringUnavailable)}
    corpus = AbTest().corpus_files(request.corpus)
    wheelhouse = scoring_wheelhouse(request.wheelhouse)
    scratch = Path(tempfile.mkdtemp(prefix="bakeoff-score-ab-"))
    try:
        workspace = scratch / "workspace"
        protected = (corpus.path(TRUTH_PART), corpus.path(VISIBLE_TRUTH_PART), corpus.path(SECRET_FILE))
        copied = copy_working_tree(request.repo, workspace, protected=protected)
        box = SubmissionSandbox(kind=kind, workspace=workspace, inputs=tuple(corpus.mounts()), wheelhouse=wheelhouse,
                                limits=Limits(timeout_s=request.timeout_s, disk_bytes=request.disk_bytes),
                                settings=settings)
        ab_request = AbRequest(visible_input=SESSIONS_IN_SANDBOX, hidden_dir=HOLDOUT_IN_SANDBOX,
                               truth_csv=corpus.path(TRUTH_PART), results_dir=scratch / "results",
                               wheelhouse=wheelhouse, install_timeout_s=request.timeout_s,
                               analyze_timeout_s=request.timeout_s)
        with open_scoring_sandbox(box) as sandbox:
            isolation = getattr(sandbox, "kind", kind)
            outcome = analyse_in_sandbox(sandbox, workspace, ab_request, on_stage=on_stage or (lambda _: None))
            (on_stage or (lambda _: None))("unit probe")
            probe = probe_submission(sandbox, request.corpus, outcome.rung, request.timeout_s)
        return AbScoreReport(outcome, isolation, tuple(copied.notes()), _claim(outcome, workspace), probe)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
