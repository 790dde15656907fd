"""Grading a submission that already sits in an open sandbox's workspace.

The stage runner reuses this inside its own long-lived sandbox (for the
repair loop's smoke test on a slice of train, and for the hidden holdout);
`bakeoff score` opens a sandbox just for it (bakeoff.tasks.spam_classifier.score).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import durable
from bakeoff.errors import BakeoffError
from bakeoff.records import CrashClass, LadderStatus, Rung
from bakeoff.taskapi.grading import command_failure
from bakeoff.tasks.spam_classifier.outcome import (
    INSTALL,
    PREDICT,
    SCORE,
    TRAIN,
    GradingStep,
    SubmissionOutcome,
    Timings,
)
from sandbox.base import ExecResult, Sandbox
from sandbox.requirements import RequirementsReport, install_requirements
from scorer import AnswerKeyError, Score, failed_score, score_files
from scorer.reading import MISSING_FILE

PREDICTIONS_FILE = ".bakeoff-predictions.csv"  # in the workspace; a name no submission would choose
TRAIN_SCRIPT = "train.py"
PREDICT_SCRIPT = "predict.py"
REQUIREMENTS_FILE = "requirements.txt"
MAX_PREDICTIONS_BYTES = 64 << 20  # an id and a label per row; a holdout's whole file is a few MB


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
    kept: Path | None = None  # host path the predictions are copied to and scored from (None: a private temporary)
    # Opened around the prediction alone: the hidden-input gate (GradeJob.hidden_step) for the hidden holdout.
    gate: Callable[[], AbstractContextManager[None]] = nullcontext


def _quiet(stage: str) -> None:
    """The default progress callback: say nothing."""


@dataclass
class _Progress:
    """What grading has gathered so far; turned into the frozen outcome at the end."""

    isolation: str
    started: float
    steps: list[GradingStep]
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
        self.steps.append(GradingStep.from_result(stage, result))
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
            return progress.finish(stage=TRAIN, rung=Rung.INSTALLED, **command_failure(result))

    on_stage(PREDICT)
    argv = ["python", PREDICT_SCRIPT, "--input", request.features_in_sandbox, "--output", request.predictions_name]
    with tempfile.TemporaryDirectory(prefix="bakeoff-predictions-") as private:
        kept = request.kept or Path(private) / "predictions.csv"
        with request.gate():  # the predictions are copied out before it closes: it undoes what was written
            _clear(workspace, request.predictions_name)
            result = progress.run(sandbox, PREDICT, argv, request.timeout_s)
            copied = copy_predictions(workspace, request.predictions_name, kept) if result.ok else None
        if not result.ok:
            return progress.finish(stage=PREDICT, rung=Rung.VISIBLE_STEP_RAN, **command_failure(result))
        on_stage(SCORE)
        began = time.monotonic()
        score = copied if copied is not None else _score_kept(kept, request.answers)
        progress.seconds[SCORE] = time.monotonic() - began
    if not score.ok:
        # The host path means nothing to the reader; the file's name does.
        detail = f"{score.error}: {score.message}".replace(str(kept), request.predictions_name)
        return progress.finish(LadderStatus.BAD_OUTPUT, SCORE, Rung.HIDDEN_STEP_RAN, detail=detail, metrics=score)
    return progress.finish(LadderStatus.SCORED, SCORE, Rung.SCORED, f1=score.f1, metrics=score)


def copy_predictions(workspace: Path, produced: str, kept: Path) -> Score | None:
    """Copy the predictions sandboxed code wrote at `produced` to the host path `kept`, through durable's
    no-follow, size-capped reader; None when copied, else the failed score that says why not. A link (of the
    file or of a folder on its way), a folder or a pipe there is never followed or opened."""
    root = durable.TrustedRoot(workspace)
    try:
        data = root.read_bytes(produced, limit=MAX_PREDICTIONS_BYTES)
    except FileNotFoundError:
        return failed_score(MISSING_FILE, f"{produced} was not written")
    except durable.UnsafePath as exc:
        return failed_score("not_a_regular_file", f"{produced} is not a regular file in the workspace ({type(exc).__name__})")
    if len(data) > MAX_PREDICTIONS_BYTES:
        return failed_score("too_large", f"{produced} is over {MAX_PREDICTIONS_BYTES} bytes")
    kept.parent.mkdir(parents=True, exist_ok=True)
    durable.write_bytes(kept, data)
    return None


def _score_kept(kept: Path, answers: Path) -> Score:
    try:
        return score_files(kept, answers)
    except AnswerKeyError as exc:
        raise AnswerKeyUnusable(f"the answer key {answers} cannot be used: {exc}") from None


def _clear(workspace: Path, produced: str) -> None:
    """No stale predictions file is ever scored as new: whatever is at `produced` goes (never through a link)."""
    root = durable.TrustedRoot(workspace)
    root.ensure_folder(PurePosixPath(produced).parent)
    root.remove_tree(produced)
