"""Grading a submission that already sits in an open sandbox's workspace.

The stage runner reuses this inside its own long-lived sandbox (for the
repair loop's smoke test on a slice of train, and for the hidden holdout);
`bakeoff score` opens a sandbox just for it (bakeoff.tasks.spam.score).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bakeoff.errors import BakeoffError
from bakeoff.grading.crashes import classify
from bakeoff.records import CrashClass, LadderStatus, Rung
from bakeoff.tasks.spam.outcome import INSTALL, PREDICT, SCORE, TRAIN, StepRecord, SubmissionOutcome, Timings
from sandbox.base import ExecResult, Sandbox
from sandbox.requirements import RequirementsReport, install_requirements
from scorer import AnswerKeyError, Score, failed_score, score_files

PREDICTIONS_FILE = ".bakeoff-predictions.csv"  # in the workspace; a name no submission would choose
TRAIN_SCRIPT = "train.py"
PREDICT_SCRIPT = "predict.py"
REQUIREMENTS_FILE = "requirements.txt"


class AnswerKeyUnusable(BakeoffError):
    """The answer key given to the grader is defective: bakeoff cannot grade against it."""


@dataclass(frozen=True)
class GradingRequest:
    """What to run and what to score against."""

    features_in_sandbox: str  # the features CSV as the sandbox sees it (e.g. /holdout/holdout.csv)
    answers: Path  # host path of the answer key for those features; never shown to the sandbox
    wheelhouse: Path  # host folder the sandbox shows at /wheels
    train: bool = False
    install: bool = True  # False when the requirements were installed earlier in this sandbox
    timeout_s: float = 600.0  # per command
    predictions_name: str = PREDICTIONS_FILE


def _quiet(stage: str) -> None:
    """The default progress callback: say nothing."""


@dataclass
class _Progress:
    """What grading has gathered so far; turned into the frozen outcome at the end."""

    isolation: str
    started: float
    steps: list[StepRecord]
    seconds: dict[str, float]
    requirements: RequirementsReport | None = None

    def finish(self, status: LadderStatus, stage: str, rung: Rung, **fields) -> SubmissionOutcome:
        timings = Timings(
            install_s=self.seconds.get(INSTALL, 0.0),
            train_s=self.seconds.get(TRAIN, 0.0),
            predict_s=self.seconds.get(PREDICT, 0.0),
            score_s=self.seconds.get(SCORE, 0.0),
            total_s=time.monotonic() - self.started,
        )
        return SubmissionOutcome(
            status=status,
            stage=stage,
            rung=rung,
            isolation=self.isolation,
            requirements=self.requirements,
            timings=timings,
            steps=tuple(self.steps),
            **fields,
        )

    def run(self, sandbox: Sandbox, stage: str, argv: list[str], timeout_s: float) -> ExecResult:
        result = sandbox.exec(argv, timeout_s=timeout_s)
        self.steps.append(StepRecord.from_result(stage, result))
        self.seconds[stage] = result.duration_s
        return result


def grade_in_sandbox(
    sandbox: Sandbox,
    workspace: Path,
    request: GradingRequest,
    on_stage: Callable[[str], None] = _quiet,
) -> SubmissionOutcome:
    """Install requirements, optionally train, predict on the features, score on the host.

    `workspace` is the host folder the sandbox runs in. Every way the submission
    can fail is an outcome; only the grader's own failures raise.
    """
    progress = _Progress(isolation=sandbox.kind, started=time.monotonic(), steps=[], seconds={})
    if not (workspace / PREDICT_SCRIPT).is_file():
        detail = f"{PREDICT_SCRIPT} is missing"
        return progress.finish(LadderStatus.NO_SCRIPT, PREDICT, Rung.NOTHING, detail=detail)

    if request.install:
        on_stage(INSTALL)
        began = time.monotonic()
        progress.requirements = install_requirements(
            sandbox, workspace / REQUIREMENTS_FILE, request.wheelhouse, timeout_s=request.timeout_s
        )
        progress.seconds[INSTALL] = time.monotonic() - began
        if not progress.requirements.ok:
            detail = progress.requirements.summary()
            return progress.finish(LadderStatus.DEPENDENCY_UNAVAILABLE, INSTALL, Rung.NOTHING, detail=detail)

    if request.train:
        on_stage(TRAIN)
        if not (workspace / TRAIN_SCRIPT).is_file():
            detail = f"{TRAIN_SCRIPT} is missing"
            return progress.finish(LadderStatus.CRASHED, TRAIN, Rung.INSTALLED,
                                   crash_class=CrashClass.FILE_NOT_FOUND, detail=detail)
        result = progress.run(sandbox, TRAIN, ["python", TRAIN_SCRIPT], request.timeout_s)
        if not result.ok:
            return progress.finish(stage=TRAIN, rung=Rung.INSTALLED, **_failure(result))

    on_stage(PREDICT)
    output = workspace / request.predictions_name
    if _inside(workspace, output.parent):
        _remove(output)
    argv = ["python", PREDICT_SCRIPT, "--input", request.features_in_sandbox, "--output", request.predictions_name]
    result = progress.run(sandbox, PREDICT, argv, request.timeout_s)
    if not result.ok:
        return progress.finish(stage=PREDICT, rung=Rung.VISIBLE_STEP_RAN, **_failure(result))

    on_stage(SCORE)
    began = time.monotonic()
    score = _score_output(workspace, output, request.answers)
    progress.seconds[SCORE] = time.monotonic() - began
    if not score.ok:
        # The scratch path means nothing to the reader; the file's name does.
        detail = f"{score.error}: {score.message}".replace(str(output), request.predictions_name)
        return progress.finish(LadderStatus.BAD_OUTPUT, SCORE, Rung.HIDDEN_STEP_RAN, detail=detail, metrics=score)
    return progress.finish(LadderStatus.SCORED, SCORE, Rung.SCORED, f1=score.f1, metrics=score)


def _failure(result: ExecResult) -> dict:
    """status, crash_class, detail and traceback_tail for a command that did not succeed."""
    crash = classify(result)
    if result.oom_killed:
        status, crash_class = LadderStatus.OUT_OF_MEMORY, None
    elif result.timed_out:
        status, crash_class = LadderStatus.TIMEOUT, None
    else:
        status, crash_class = LadderStatus.CRASHED, crash.crash_class
    return {"status": status, "crash_class": crash_class, "detail": crash.detail, "traceback_tail": crash.traceback_tail}


def _score_output(workspace: Path, output: Path, answers: Path) -> Score:
    # The file was written by sandboxed code: a symlink (of the file, or of a
    # folder on its way) could point the host's scorer at any host file, the
    # answer key itself, so only a regular file inside the workspace counts.
    if not _inside(workspace, output.parent):
        return failed_score("not_a_regular_file", f"{output.name} lies outside the workspace (a linked folder)")
    if output.is_symlink():
        return failed_score("not_a_regular_file", f"{output.name} is a symbolic link, not a file")
    if output.exists() and not output.is_file():
        return failed_score("not_a_regular_file", f"{output.name} is not a regular file")
    try:
        return score_files(output, answers)
    except AnswerKeyError as exc:
        raise AnswerKeyUnusable(f"the answer key {answers} cannot be used: {exc}") from None


def _inside(workspace: Path, folder: Path) -> bool:
    """True when `folder`, links resolved, is the workspace or inside it."""
    return folder.resolve().is_relative_to(workspace.resolve())


def _remove(path: Path) -> None:
    """Clear a stale predictions file, so an old one is never scored as new."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
