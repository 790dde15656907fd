"""spam_classifier's ladder check: install, train and score a submission in the run's own sandbox, plus a smoke test.

Grading itself (install, train, predict on the hidden holdout, score on the host)
is `bakeoff.grading.grade.grade_in_sandbox`, the same code `bakeoff score`
uses. What the check adds is the smoke test the model may see: prediction on a
slice of the training data (labels removed), checked against those labels. The
holdout result is never shown to the model.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import cast

from bakeoff.grading.outcome import RUNG_TRAINED
from bakeoff.records import Command
from bakeoff.records.enums import LadderStatus
from bakeoff.runner.checks import HOLDOUT_OUTPUT, grading_commands, keep_output, printed
from bakeoff.runner.context import RunContext, StageClock
from bakeoff.runner.ladder import LadderCheck, Requirement
from bakeoff.runner.workspace import SCRATCH_DIR
from sandbox.paths import HOLDOUT as HOLDOUT_IN_SANDBOX  # the holdout features (bakeoff score: the same)

SMOKE_INPUT = f"{SCRATCH_DIR}/smoke_input.csv"
SMOKE_ANSWERS = f"{SCRATCH_DIR}/smoke_answers.csv"
SMOKE_OUTPUT = f"{SCRATCH_DIR}/smoke_predictions.csv"
TRAIN_PART, HOLDOUT_PART, ANSWERS_PART = "train.csv", "holdout.csv", "holdout_answers.csv"


def write_smoke_files(train_csv: Path, workspace: Path, rows: int) -> None:
    """The first `rows` training rows without their label, and their labels as a small answer key.

    The caller makes sure the scratch folder is a real folder (RunRepo.scratch()); files planted there
    by sandboxed code are replaced, never written through.
    """
    with open(train_csv, newline="", encoding="utf-8") as source:
        reader = csv.DictReader(source)
        fields = [name for name in reader.fieldnames or [] if name != "label"]
        picked = [row for _, row in zip(range(rows), reader, strict=False)]
    for name in (SMOKE_INPUT, SMOKE_ANSWERS):
        (workspace / name).unlink(missing_ok=True)
    with open(workspace / SMOKE_INPUT, "w", newline="", encoding="utf-8") as features:
        writer = csv.DictWriter(features, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(picked)
    with open(workspace / SMOKE_ANSWERS, "w", newline="", encoding="utf-8") as answers:
        key = csv.writer(answers)
        key.writerow(["id", "label"])
        key.writerows([row["id"], row["label"]] for row in picked)


def _grade(ctx: RunContext, clock: StageClock, features: str, answers: Path, output: str, *, first: bool):
    from bakeoff.grading.grade import GradingRequest, grade_in_sandbox

    request = GradingRequest(
        features_in_sandbox=features,
        answers=answers,
        wheelhouse=cast(Path, ctx.wheelhouse),  # None only where no step installs (as before the plug-ins)
        train=first,
        install=first,
        timeout_s=ctx.task.settings.timeout_for("train" if first else "predict"),
        predictions_name=output,
    )
    outcome = grade_in_sandbox(ctx.sandbox, ctx.repo.path, request)
    timings = outcome.timings
    clock.sandbox_s += timings.install_s + timings.train_s + timings.predict_s
    clock.scoring_s += timings.score_s
    return outcome


def _visible_failure(outcome, limit: int) -> str:
    """What the model is told about install or training failing (the real output, never the holdout)."""
    if outcome.stage == "install":
        return f"Installing requirements.txt failed: {outcome.detail}"
    if outcome.stage == "train":
        step = outcome.step("train")
        if step is None:
            return f"`python train.py` could not run: {outcome.detail}"
        return f"`python train.py` failed:\n{printed(step, limit)}"
    return f"The submission could not be run: {outcome.status} {outcome.detail}".strip()


def _smoke_failure(smoke, limit: int) -> str | None:
    shown = f"python predict.py --input {SMOKE_INPUT} --output {SMOKE_OUTPUT}"
    if smoke.status == LadderStatus.SCORED:
        return None
    if smoke.status == LadderStatus.BAD_OUTPUT:
        return f"`{shown}` wrote an invalid predictions file: {smoke.detail}"
    if smoke.status == LadderStatus.NO_PREDICT_SCRIPT:
        return "There is no predict.py in the submission."
    return f"`{shown}` failed:\n{printed(smoke.step('predict'), limit)}"


def run_check(ctx: RunContext, clock: StageClock, label: str) -> tuple[LadderCheck, list[Command]]:
    """One full check; `label` names the holdout predictions file kept in the run folder."""
    limit = ctx.task.settings.feedback_chars
    ctx.repo.scratch()
    holdout = _grade(ctx, clock, HOLDOUT_IN_SANDBOX, ctx.corpus.path(ANSWERS_PART), HOLDOUT_OUTPUT, first=True)
    keep_output(ctx.repo.path, HOLDOUT_OUTPUT, ctx.predictions_dir / f"{label}.csv")
    commands = grading_commands(holdout, {"predict": "holdout_predict"})
    train_output = printed(holdout.step("train"), limit)
    visible_failure: str | None
    if holdout.rung < RUNG_TRAINED and holdout.status != LadderStatus.NO_PREDICT_SCRIPT:
        visible_ok, visible_failure = False, _visible_failure(holdout, limit)
    else:
        ctx.repo.scratch()
        write_smoke_files(ctx.corpus.path(TRAIN_PART), ctx.repo.path, ctx.task.settings.smoke_rows)
        smoke = _grade(ctx, clock, SMOKE_INPUT, ctx.repo.path / SMOKE_ANSWERS, SMOKE_OUTPUT, first=False)
        commands += grading_commands(smoke, {"predict": "smoke_predict"})
        visible_failure = _smoke_failure(smoke, limit)
        visible_ok = visible_failure is None
    lines = holdout.requirements.lines if holdout.requirements else ()
    requirements = tuple(Requirement.from_json(line.to_dict()) for line in lines)
    check = LadderCheck(
        rung=holdout.rung,
        status=holdout.status,
        failed_step=None if holdout.status == LadderStatus.SCORED else holdout.stage,
        f1=holdout.f1 if holdout.status == LadderStatus.SCORED else None,
        crash_class=holdout.crash_class,
        detail=holdout.detail or None,
        traceback_tail=holdout.traceback_tail or None,
        visible_ok=visible_ok,
        visible_failure=visible_failure,
        metrics=holdout.metrics.to_dict() if holdout.metrics is not None else None,
        requirements=requirements,
        train_output=train_output,
    )
    return check, commands
