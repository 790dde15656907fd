"""ab_test's grading of a workspace in an open sandbox: what the model may see (install, the visible analysis)
and what it never sees (the hidden experiments' grade). The work itself is bakeoff.tasks.ab_test.analysis; a
run's check and `bakeoff score --task ab_test` both come here (Task.grade)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bakeoff.taskapi.grading import GradeJob
from bakeoff.tasks.ab_test.analysis import ANALYZE_SCRIPT, SCRIPT, VISIBLE_OUTPUT, AbRequest, analyse_in_sandbox
from bakeoff.tasks.ab_test.grade import AbGrade
from bakeoff.tasks.ab_test.layout import HOLDOUT_IN_SANDBOX, SESSIONS_IN_SANDBOX, TRUTH_PART
from bakeoff.tasks.intervals.grading import IntervalGraded


def request_for(job: GradeJob) -> AbRequest:
    return AbRequest(
        visible_input=SESSIONS_IN_SANDBOX,
        hidden_dir=HOLDOUT_IN_SANDBOX,
        truth_csv=job.corpus.path(TRUTH_PART),
        results_dir=job.outputs_dir / job.label,
        wheelhouse=job.wheelhouse,
        install_timeout_s=job.timeout_for("install"),
        analyze_timeout_s=job.timeout_for("analyze"),
        env=job.env,
    )


@dataclass
class AbGraded(IntervalGraded):
    script = SCRIPT
    grade = AbGrade
    shown = f"python {ANALYZE_SCRIPT} --input data/sessions.csv --output {VISIBLE_OUTPUT}"

    def metrics(self) -> dict[str, Any] | None:
        """The interval score, with the visible result beside it."""
        if self.outcome.score is None:
            return None
        metrics: dict[str, Any] = self.outcome.score.to_dict()
        metrics["visible"] = dict(self.outcome.visible_result) if self.outcome.visible_result else None
        return metrics


def grade(job: GradeJob) -> AbGraded:
    """One full grading; the results of the visible and hidden runs are kept in outputs_dir/<label>/."""
    job.workspace.scratch()
    outcome = analyse_in_sandbox(job.sandbox, job.workspace.path, request_for(job), on_stage=job.on_step,
                                 hidden=job.hidden_step)
    return AbGraded(outcome, job.settings.feedback_chars)
