"""ab_test's grading of a workspace in an open sandbox: what the model may see (install, the visible analysis)
and what it never sees (the hidden experiments' grade). The work itself is bakeoff.tasks.ab_test.analysis; a
run's check and `bakeoff score --task ab_test` both come here (TaskPlugin.grade)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from bakeoff.records import Command, CrashClass, LadderCheck, LadderStatus, Requirement
from bakeoff.taskapi.context import command_record, crash_of, output_for_model
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.tasks.ab_test.analysis import ANALYZE_SCRIPT, VISIBLE_OUTPUT, AbOutcome, AbRequest, analyse_in_sandbox
from bakeoff.tasks.ab_test.layout import HOLDOUT_IN_SANDBOX, SESSIONS_IN_SANDBOX, TRUTH_PART
from bakeoff.tasks.ab_test.words import HEADLINE

HIDDEN_OUTPUT_CHARS = 2000  # what a stage record keeps of each hidden run's output (there are dozens)


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


def visible_failure(outcome: AbOutcome, limit: int) -> str | None:
    """What the model is told when install or the visible analysis failed (never anything of the hidden runs)."""
    shown = f"python {ANALYZE_SCRIPT} --input data/sessions.csv --output {VISIBLE_OUTPUT}"
    if outcome.rung == 0 and outcome.stage == "analyze":
        return f"There is no {ANALYZE_SCRIPT} in the submission."
    if outcome.stage == "install" and outcome.status != LadderStatus.SCORED:
        return f"Installing requirements.txt failed: {outcome.detail}"
    step = outcome.visible_step
    if step is not None and not step.result.ok:
        return f"`{shown}` failed:\n{output_for_model(step.result, limit)}"
    if outcome.visible_error is not None:
        return f"`{shown}` wrote an unusable result: {outcome.visible_error}"
    return None


def _tail(text: str) -> tuple[str, int]:
    kept = text[-HIDDEN_OUTPUT_CHARS:]
    return kept, len(text.encode("utf-8", "replace")) - len(kept.encode("utf-8", "replace"))


@dataclass
class AbGraded(Graded):
    outcome: AbOutcome
    limit: int  # characters of output shown to the model

    def __post_init__(self) -> None:
        self.sandbox_s = self.outcome.seconds.get("sandbox", 0.0)
        self.scoring_s = self.outcome.seconds.get("score", 0.0)

    def commands(self) -> list[Command]:
        """The command records; a hidden run keeps the end of its output only (its argv names the experiment)."""
        records = []
        for step in self.outcome.steps:
            purpose = step.purpose.split(":")[0]
            result = step.result
            if purpose == "hidden_analyze":
                (stdout, out_cut), (stderr, err_cut) = _tail(result.stdout), _tail(result.stderr)
                result = dataclasses.replace(result, stdout=stdout, stderr=stderr,
                                             stdout_dropped_bytes=result.stdout_dropped_bytes + out_cut,
                                             stderr_dropped_bytes=result.stderr_dropped_bytes + err_cut)
            records.append(command_record(purpose, result, crash_of(result)))
        return records

    def ladder_check(self) -> LadderCheck:
        outcome = self.outcome
        failure = visible_failure(outcome, self.limit)
        step = outcome.visible_step
        lines = outcome.requirements.lines if outcome.requirements else ()
        metrics = outcome.score.to_dict() if outcome.score is not None else None
        if metrics is not None:
            metrics["visible"] = dict(outcome.visible_result) if outcome.visible_result else None
        scored = outcome.status == LadderStatus.SCORED
        winkler = outcome.score.winkler if outcome.score is not None else None
        return LadderCheck(
            rung=outcome.rung,
            status=LadderStatus(outcome.status),
            failed_step=None if scored else outcome.stage,
            headline=HEADLINE.of(float(winkler)) if scored and winkler is not None else None,
            crash_class=CrashClass(outcome.crash_class) if outcome.crash_class else None,
            detail=outcome.detail or None,
            traceback_tail=outcome.traceback_tail or None,
            visible_ok=failure is None,
            visible_failure=failure,
            metrics=metrics,
            requirements=tuple(Requirement.from_json(line.to_dict()) for line in lines),
            visible_output=output_for_model(step.result, self.limit) if step is not None else "",
        )


def grade(job: GradeJob) -> AbGraded:
    """One full grading; the results of the visible and hidden runs are kept in outputs_dir/<label>/."""
    job.workspace.scratch()
    outcome = analyse_in_sandbox(job.sandbox, job.workspace.path, request_for(job), on_stage=job.on_step)
    return AbGraded(outcome, job.settings.feedback_chars)
