"""Running an ab_test submission in an open sandbox: install, analyze.py on the visible sessions, then on
every hidden experiment; the intervals graded on the host (scorer.intervals).

The one code path of the run's ladder check (bakeoff.tasks.ab_test.check) and of `bakeoff score --task ab_test`
(bakeoff.tasks.ab_test.score). Every way the submission fails is an outcome; only the grader's own failures raise.
A hidden run that times out or runs out of memory ends the hidden runs (the rest count as missing): a
submission that hangs must not cost its time limit once per experiment.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import durable
from bakeoff.grading.crashes import classify
from bakeoff.records import CrashClass, LadderStatus, Rung
from bakeoff.taskapi.workspace import SCRATCH_DIR, keep_output, real_folder
from sandbox.base import ExecResult, Sandbox
from sandbox.requirements import RequirementsReport, install_requirements

ANALYZE_SCRIPT = "analyze.py"
REQUIREMENTS_FILE = "requirements.txt"
VISIBLE_OUTPUT = f"{SCRATCH_DIR}/visible_result.json"
HIDDEN_OUTPUT = f"{SCRATCH_DIR}/hidden_result.json"
INSTALL, ANALYZE, SCORE = "install", "analyze", "score"


@dataclass(frozen=True)
class AbRequest:
    """What to run: the visible input, the hidden experiments (names and truth) and the limits."""

    visible_input: str  # as the sandbox sees it, e.g. data/sessions.csv
    hidden_dir: str  # as the sandbox sees it, e.g. /holdout (one <experiment>.csv each)
    truth_csv: Path  # host path: experiment, effect (never shown to the sandbox)
    results_dir: Path  # host folder the results are moved into (one <experiment>.json each)
    wheelhouse: Path | None
    install_timeout_s: float = 300.0
    analyze_timeout_s: float = 120.0
    env: Mapping[str, str] = field(default_factory=dict)
    level: float = 0.95


@dataclass(frozen=True)
class Step:
    purpose: str  # install, visible_analyze, hidden_analyze:<experiment>
    result: ExecResult


@dataclass(frozen=True)
class AbOutcome:
    status: str  # the ladder's vocabulary: scored, crashed, timeout, out_of_memory, bad_output, dependency_unavailable
    stage: str  # install, analyze, score
    rung: Rung  # 2: the visible analysis ran; 3: every hidden one did
    crash_class: str | None = None
    detail: str = ""
    traceback_tail: str = ""
    visible_error: str | None = None  # why the visible result is unusable (None: it is fine)
    visible_result: Mapping[str, float] | None = None
    score: Any = None  # scorer.intervals.IntervalScore, once the hidden runs ran
    requirements: RequirementsReport | None = None
    steps: tuple[Step, ...] = ()
    seconds: Mapping[str, float] = field(default_factory=dict)  # sandbox, score

    @property
    def visible_step(self) -> Step | None:
        return next((s for s in self.steps if s.purpose == "visible_analyze"), None)


def _failure(result: ExecResult) -> dict[str, Any]:
    crash = classify(result)
    status = (LadderStatus.OUT_OF_MEMORY if result.oom_killed
              else LadderStatus.TIMEOUT if result.timed_out else LadderStatus.CRASHED)
    crash_class = crash.crash_class if status == LadderStatus.CRASHED else None
    return {"status": status, "crash_class": crash_class, "detail": crash.detail, "traceback_tail": crash.traceback_tail}


class _Runner:
    def __init__(self, sandbox: Sandbox, request: AbRequest) -> None:
        self.sandbox, self.request = sandbox, request
        self.steps: list[Step] = []
        self.sandbox_s = 0.0

    def run(self, purpose: str, argv: list[str], timeout_s: float) -> ExecResult:
        started = time.monotonic()
        try:
            result = self.sandbox.exec(argv, timeout_s=timeout_s, env=dict(self.request.env))
        finally:
            self.sandbox_s += time.monotonic() - started
        self.steps.append(Step(purpose, result))
        return result

    def analyze(self, purpose: str, source: str, output: str) -> ExecResult:
        argv = ["python", ANALYZE_SCRIPT, "--input", source, "--output", output]
        return self.run(purpose, argv, self.request.analyze_timeout_s)


def _wheelhouse(request: AbRequest) -> Path:
    """The host wheelhouse the sandbox shows at /wheels (the default one when the caller named none)."""
    from sandbox.wheelhouse import default_wheelhouse

    return request.wheelhouse or default_wheelhouse()


def _fresh(workspace: Path, relative: str) -> None:
    """No stale result is ever graded as new. Sandboxed code ran before: the folder of `relative` is made real
    again (a link it left in its place, or on the way, is removed and never followed) and whatever is at
    `relative` is removed, through durable.TrustedRoot."""
    root = durable.TrustedRoot(workspace)
    root.ensure_folder(PurePosixPath(relative).parent)
    root.remove_tree(relative)


def _read_kept(path: Path) -> tuple[Mapping[str, float] | None, str | None]:
    from scorer.interval_reading import ResultFileError, read_result

    try:
        result = read_result(path)
    except ResultFileError as exc:
        return None, f"{exc.name}: {exc}".replace(str(path), path.name)
    return {"effect": result.effect, "ci_low": result.ci_low, "ci_high": result.ci_high}, None


def analyse_in_sandbox(sandbox: Sandbox, workspace: Path, request: AbRequest, *, install: bool = True,
                       on_stage: Callable[[str], None] = lambda _: None) -> AbOutcome:
    """Install, the visible run, the hidden runs, the grade. `workspace` is the host folder the sandbox runs in."""
    from scorer.intervals import grade_one, read_truth, score_experiments

    runner = _Runner(sandbox, request)
    done = lambda **fields: AbOutcome(steps=tuple(runner.steps), seconds={"sandbox": runner.sandbox_s}, **fields)  # noqa: E731
    if not (workspace / ANALYZE_SCRIPT).is_file():
        return done(status=LadderStatus.CRASHED, stage=ANALYZE, rung=Rung.NOTHING, crash_class=CrashClass.FILE_NOT_FOUND,
                    detail=f"{ANALYZE_SCRIPT} is missing")
    requirements = None
    if install:
        on_stage(INSTALL)
        started = time.monotonic()
        requirements = install_requirements(sandbox, workspace / REQUIREMENTS_FILE, _wheelhouse(request),
                                            timeout_s=request.install_timeout_s)
        runner.sandbox_s += time.monotonic() - started
        if not requirements.ok:
            return done(status=LadderStatus.DEPENDENCY_UNAVAILABLE, stage=INSTALL, rung=Rung.NOTHING,
                        detail=requirements.summary(), requirements=requirements)
    on_stage("visible analysis")
    real_folder(workspace, SCRATCH_DIR)  # a real folder again, whatever sandboxed code left in its place
    _fresh(workspace, VISIBLE_OUTPUT)
    visible = runner.analyze("visible_analyze", request.visible_input, VISIBLE_OUTPUT)
    if not visible.ok:
        return done(stage=ANALYZE, rung=Rung.INSTALLED, requirements=requirements, **_failure(visible))
    request.results_dir.mkdir(parents=True, exist_ok=True)
    keep_output(workspace, VISIBLE_OUTPUT, request.results_dir / "visible.json")
    visible_result, visible_error = _read_kept(request.results_dir / "visible.json")
    truth = read_truth(request.truth_csv)
    on_stage("hidden analyses")
    stop: dict[str, Any] | None = None  # a timeout or out-of-memory: the hidden runs end there
    first_crash: dict[str, Any] | None = None
    graded = []
    for name, effect in truth.items():
        kept = request.results_dir / f"{name}.json"
        kept.unlink(missing_ok=True)
        if stop is None:
            _fresh(workspace, HIDDEN_OUTPUT)
            result = runner.analyze(f"hidden_analyze:{name}", f"{request.hidden_dir}/{name}.csv", HIDDEN_OUTPUT)
            if result.ok:
                keep_output(workspace, HIDDEN_OUTPUT, kept)
            else:
                failed = _failure(result)
                first_crash = first_crash or failed
                stop = failed if failed["status"] != LadderStatus.CRASHED else None
        graded.append(grade_one(name, effect, kept))
    failure = stop or first_crash
    on_stage(SCORE)
    started = time.monotonic()
    score = score_experiments(graded, request.level)
    seconds = {"sandbox": runner.sandbox_s, "score": time.monotonic() - started}
    outcome = AbOutcome(status=LadderStatus.SCORED, stage=SCORE, rung=Rung.SCORED, visible_result=visible_result,
                        visible_error=visible_error, score=score, requirements=requirements,
                        steps=tuple(runner.steps), seconds=seconds)
    if failure is not None:
        return dataclasses.replace(outcome, stage=ANALYZE, rung=Rung.VISIBLE_STEP_RAN, **failure)
    if score.failed:
        errors = ", ".join(f"{name} x{count}" for name, count in sorted(score.errors.items()))
        return dataclasses.replace(outcome, status=LadderStatus.BAD_OUTPUT, rung=Rung.HIDDEN_STEP_RAN, detail=f"unusable results: {errors}")
    return outcome
