"""ab_test's ladder check in a run's own sandbox: what the model may see (install, the visible analysis) and
what it never sees (the hidden experiments' grade). The work itself is bakeoff.tasks.ab_analysis."""

from __future__ import annotations

import dataclasses

from bakeoff.records import Command, CrashClass, LadderStatus
from bakeoff.runner.context import RunContext, StageClock, command_record, crash_of, output_for_model
from bakeoff.runner.ladder import LadderCheck, Requirement
from bakeoff.tasks.ab_analysis import ANALYZE_SCRIPT, VISIBLE_OUTPUT, AbOutcome, AbRequest, analyse_in_sandbox

HIDDEN_OUTPUT_CHARS = 2000  # what a stage record keeps of each hidden run's output (there are dozens)


def request_for(ctx: RunContext, label: str) -> AbRequest:
    from bakeoff.tasks.ab_test import HOLDOUT_IN_SANDBOX, SESSIONS_IN_SANDBOX, TRUTH_PART

    settings = ctx.task.settings
    return AbRequest(
        visible_input=SESSIONS_IN_SANDBOX,
        hidden_dir=HOLDOUT_IN_SANDBOX,
        truth_csv=ctx.corpus.path(TRUTH_PART),
        results_dir=ctx.predictions_dir / label,
        wheelhouse=ctx.wheelhouse,
        install_timeout_s=settings.timeout_for("install"),
        analyze_timeout_s=settings.timeout_for("analyze"),
        env=ctx.env,
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


def _commands(outcome: AbOutcome) -> list[Command]:
    """The command records; a hidden run keeps the end of its output only (its argv names the experiment)."""
    records = []
    for step in outcome.steps:
        purpose = step.purpose.split(":")[0]
        result = step.result
        if purpose == "hidden_analyze":
            (stdout, out_cut), (stderr, err_cut) = _tail(result.stdout), _tail(result.stderr)
            result = dataclasses.replace(result, stdout=stdout, stderr=stderr,
                                         stdout_dropped_bytes=result.stdout_dropped_bytes + out_cut,
                                         stderr_dropped_bytes=result.stderr_dropped_bytes + err_cut)
        records.append(command_record(purpose, result, crash_of(result)))
    return records


def to_check(outcome: AbOutcome, limit: int) -> LadderCheck:
    failure = visible_failure(outcome, limit)
    step = outcome.visible_step
    lines = outcome.requirements.lines if outcome.requirements else ()
    requirements = tuple(Requirement.from_json(line.to_dict()) for line in lines)
    metrics = outcome.score.to_dict() if outcome.score is not None else None
    if metrics is not None:
        metrics["visible"] = dict(outcome.visible_result) if outcome.visible_result else None
    return LadderCheck(
        rung=outcome.rung,
        status=LadderStatus(outcome.status),
        failed_step=None if outcome.status == LadderStatus.SCORED else outcome.stage,
        f1=None,
        crash_class=CrashClass(outcome.crash_class) if outcome.crash_class else None,
        detail=outcome.detail or None,
        traceback_tail=outcome.traceback_tail or None,
        visible_ok=failure is None,
        visible_failure=failure,
        metrics=metrics,
        requirements=requirements,
        train_output=output_for_model(step.result, limit) if step is not None else "",
    )


def run_check(ctx: RunContext, clock: StageClock, label: str) -> tuple[LadderCheck, list[Command]]:
    """One full check; the results of the visible and hidden runs are kept in predictions/<label>/."""
    ctx.repo.scratch()
    outcome = analyse_in_sandbox(ctx.sandbox, ctx.repo.path, request_for(ctx, label))
    clock.sandbox_s += outcome.seconds.get("sandbox", 0.0)
    clock.scoring_s += outcome.seconds.get("score", 0.0)
    return to_check(outcome, ctx.task.settings.feedback_chars), _commands(outcome)
