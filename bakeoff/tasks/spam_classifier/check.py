"""spam_classifier's grading of a workspace in an open sandbox: install, train, predict on the hidden holdout and
score on the host (bakeoff.tasks.spam_classifier.grade), plus, in a run, the smoke test the model may see: prediction on a
slice of the training data (labels removed), checked against those labels. The holdout result is never shown
to the model. A run's check and `bakeoff score` both come here (Task.grade).
"""

from __future__ import annotations

import csv
import io
import tempfile
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import durable
from bakeoff.records import Command, LadderCheck, LadderStatus, Requirement, Rung
from bakeoff.records.parts import Crash, crash_class_of
from bakeoff.taskapi.context import shorten
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.taskapi.workspace import SCRATCH_DIR
from bakeoff.tasks.spam_classifier.grade import GradingRequest, grade_in_sandbox
from bakeoff.tasks.spam_classifier.layout import ANSWERS_PART, HOLDOUT_IN_SANDBOX, TRAIN_PART
from bakeoff.tasks.spam_classifier.outcome import GradingStep, SpamGrade, SubmissionOutcome
from bakeoff.tasks.spam_classifier.words import HEADLINE

SMOKE_INPUT = f"{SCRATCH_DIR}/smoke_input.csv"
SMOKE_OUTPUT = f"{SCRATCH_DIR}/smoke_predictions.csv"
HOLDOUT_OUTPUT = f"{SCRATCH_DIR}/holdout_predictions.csv"  # the hidden run's output file, in the scratch folder


def write_smoke_files(train_csv: Path, workspace: Path, answers: Path, rows: int) -> None:
    """The first `rows` training rows without their label at SMOKE_INPUT in the workspace (visible data the
    model may see), and their labels as a small answer key at `answers`, a host path outside every mount: the
    submission's code never reaches the key it is checked against.

    Sandboxed code wrote the workspace: whatever it left at SMOKE_INPUT (a link, a folder) is removed, never
    followed, and the file written in its place (durable.TrustedRoot).
    """
    with open(train_csv, newline="", encoding="utf-8") as source:
        reader = csv.DictReader(source)
        fields = [name for name in reader.fieldnames or [] if name != "label"]
        picked = [row for _, row in zip(range(rows), reader, strict=False)]
    features = io.StringIO(newline="")
    writer = csv.DictWriter(features, fieldnames=fields, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(picked)
    root = durable.TrustedRoot(workspace)
    root.ensure_folder(SCRATCH_DIR)
    root.remove_tree(SMOKE_INPUT)
    root.write_bytes(SMOKE_INPUT, features.getvalue().encode("utf-8"), mode=0o644)
    with open(answers, "w", newline="", encoding="utf-8") as handle:
        key = csv.writer(handle)
        key.writerow(["id", "label"])
        key.writerows([row["id"], row["label"]] for row in picked)


def grading_command(step: GradingStep, purpose: str, outcome: SubmissionOutcome, failed: bool) -> Command:
    """One grading step (a GradingStep) as a stage record's command; `outcome` gives isolation and the crash."""
    crash = None
    if failed:
        # a failure with no crash class (bad_output, dependency_unavailable...) is named by its status
        crash = Crash(crash_class_of(outcome.crash_class or outcome.status, "crash_class"), outcome.detail,
                      outcome.traceback_tail)
    return Command.of(purpose, step, step.stdout_tail, step.stderr_tail, outcome.isolation, crash)


def grading_commands(outcome: SubmissionOutcome, purposes: dict[str, str]) -> list[Command]:
    """Every step of a grading outcome as command records; the last one carries the crash when it failed."""
    last = len(outcome.steps) - 1
    return [
        grading_command(step, purposes.get(step.stage, step.stage), outcome,
                        failed=(i == last and outcome.status != "scored"))
        for i, step in enumerate(outcome.steps)
    ]


def printed(step: GradingStep | None, limit: int) -> str:
    """What a step printed, stdout then stderr, shortened for the model (head and tail kept)."""
    if step is None:
        return ""
    text = "\n".join(part.rstrip() for part in (step.stdout_tail, step.stderr_tail) if part.strip())
    return shorten(text or "(no output)", limit)


def _visible_failure(outcome: SubmissionOutcome, limit: int) -> str:
    """What the model is told about install or training failing (the real output, never the holdout)."""
    if outcome.stage == "install":
        return f"Installing requirements.txt failed: {outcome.detail}"
    if outcome.stage == "train":
        step = outcome.step("train")
        if step is None:
            return f"`python train.py` could not run: {outcome.detail}"
        return f"`python train.py` failed:\n{printed(step, limit)}"
    return f"The submission could not be run: {outcome.status} {outcome.detail}".strip()


def _smoke_failure(smoke: SubmissionOutcome, limit: int) -> str | None:
    shown = f"python predict.py --input {SMOKE_INPUT} --output {SMOKE_OUTPUT}"
    if smoke.status == LadderStatus.SCORED:
        return None
    if smoke.status == LadderStatus.BAD_OUTPUT:
        return f"`{shown}` wrote an invalid predictions file: {smoke.detail}"
    if smoke.status == LadderStatus.NO_SCRIPT:
        return "There is no predict.py in the submission."
    return f"`{shown}` failed:\n{printed(smoke.step('predict'), limit)}"


@dataclass
class SpamGraded(Graded):
    """The holdout's grading outcome (what `bakeoff score` prints), the smoke test's when it ran, and what the
    model may be told of them."""

    holdout: SubmissionOutcome
    smoke: SubmissionOutcome | None
    limit: int  # characters of output shown to the model
    visible_failure: str | None = None
    _commands: list[Command] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sandbox_s = sum(o.timings.install_s + o.timings.train_s + o.timings.predict_s for o in self._graded())
        self.scoring_s = sum(o.timings.score_s for o in self._graded())

    def _graded(self) -> list[SubmissionOutcome]:
        return [self.holdout, *([self.smoke] if self.smoke is not None else [])]

    def commands(self) -> list[Command]:
        return list(self._commands)

    def ladder_check(self) -> LadderCheck:
        holdout = self.holdout
        lines = holdout.requirements.lines if holdout.requirements else ()
        return holdout.check(
            HEADLINE.of(holdout.f1),
            visible_ok=self.visible_failure is None,
            visible_failure=self.visible_failure,
            metrics=SpamGrade.stamped(holdout.metrics.to_dict() if holdout.metrics is not None else None),
            requirements=tuple(Requirement.from_json(line.to_dict()) for line in lines),
            visible_output=printed(holdout.step("train"), self.limit),
        )


def _grade(job: GradeJob, features: str, answers: Path, output: str, kept: Path | None, *, first: bool,
           hidden: bool) -> SubmissionOutcome:
    request = GradingRequest(
        features_in_sandbox=features,
        answers=answers,
        wheelhouse=job.wheelhouse or Path(),  # every install reads it; a run and `bakeoff score` always name one
        train=first and job.train,
        install=first,
        timeout_s=job.timeout_for("train" if first else "predict"),
        predictions_name=output,
        kept=kept,
        gate=job.hidden_step if hidden else nullcontext,  # install and train run before the gate opens
    )
    return grade_in_sandbox(job.sandbox, job.workspace.path, request, job.on_step)


def grade(job: GradeJob) -> SpamGraded:
    """One full grading; the holdout predictions are kept as outputs_dir/<label>.csv."""
    limit = job.settings.feedback_chars
    job.workspace.scratch()
    kept = job.outputs_dir / f"{job.label}.csv"
    holdout = _grade(job, HOLDOUT_IN_SANDBOX, job.corpus.path(ANSWERS_PART), HOLDOUT_OUTPUT, kept, first=True,
                     hidden=True)
    commands = grading_commands(holdout, {"predict": "holdout_predict"})
    if not job.visible_step:
        return SpamGraded(holdout, None, limit, None, commands)
    if holdout.rung < Rung.VISIBLE_STEP_RAN and holdout.status != LadderStatus.NO_SCRIPT:
        return SpamGraded(holdout, None, limit, _visible_failure(holdout, limit), commands)
    job.workspace.scratch()
    with tempfile.TemporaryDirectory(prefix="bakeoff-smoke-") as private:  # the key: host side, outside every mount
        answers = Path(private) / "smoke_answers.csv"
        write_smoke_files(job.corpus.path(TRAIN_PART), job.workspace.path, answers, int(job.settings.own["smoke_rows"]))
        smoke = _grade(job, SMOKE_INPUT, answers, SMOKE_OUTPUT, None, first=False, hidden=False)
    commands += grading_commands(smoke, {"predict": "smoke_predict"})
    return SpamGraded(holdout, smoke, limit, _smoke_failure(smoke, limit), commands)
