"""Running forecast.py in an open sandbox: install, the backtest cut (the visible step), the same cut without
the after-close columns (for the probe), the real horizon (the hidden step); every forecast graded on the host.

The one code path of the task's ladder check and of its `bakeoff score`. Every way the submission fails is an
outcome; only the grader's own failures raise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bakeoff.records import CrashClass, LadderStatus, Rung
from bakeoff.taskapi.grading import Ending, command_failure
from bakeoff.taskapi.workspace import DATA_DIR, SCRATCH_DIR, keep_output, real_folder
from bakeoff.tasks.intervals.running import REQUIREMENTS_FILE, fresh
from generators.demand_forecast.mase import MAX_BYTES, ForecastFileError, ForecastScore
from generators.demand_forecast.probe import forecast_move
from generators.demand_forecast.running import BACKTEST_CUT, BLIND_CUT, REAL, SCRIPT, Cut, grade_cut
from sandbox.base import ExecResult, Sandbox
from sandbox.requirements import RequirementsReport, install_requirements

VERB, INSTALL, SCORE = "forecast", "install", "score"
VISIBLE, BLIND, HIDDEN = "visible_forecast", "blind_forecast", "hidden_forecast"
CUTS = {VISIBLE: BACKTEST_CUT, BLIND: BLIND_CUT, HIDDEN: REAL}


def command(cut: Cut, output: str) -> list[str]:
    return ["python", SCRIPT, "--history", f"{DATA_DIR}/{cut.history}", "--horizon-calendar",
            f"{DATA_DIR}/{cut.calendar}", "--output", output]


SHOWN = " ".join(command(BACKTEST_CUT, f"{SCRATCH_DIR}/{VISIBLE}.csv"))


@dataclass(frozen=True)
class Step:
    purpose: str
    result: ExecResult


@dataclass(frozen=True, kw_only=True)
class ForecastOutcome(Ending):
    """How grading ended and what it found: each run's score (or why its forecast was unusable)."""

    scores: Mapping[str, ForecastScore] = field(default_factory=dict)  # visible, blind, hidden forecasts graded
    errors: Mapping[str, str] = field(default_factory=dict)  # a run's unusable forecast: why
    forecasts: Mapping[str, Path] = field(default_factory=dict)  # kept on the host (a `bakeoff score` removes them)
    blind_move: float | None = None  # the probe's: how far the blind forecast lies from the backtest's
    requirements: RequirementsReport | None = None
    steps: tuple[Step, ...] = ()
    sandbox_s: float = 0.0  # seconds its commands ran in the sandbox
    score_s: float = 0.0  # seconds of grading on the host

    def step(self, purpose: str) -> Step | None:
        return next((s for s in self.steps if s.purpose == purpose), None)


@dataclass
class ForecastRequest:
    corpus: Path  # the data folder on the host (its truth read here, never in the sandbox)
    results_dir: Path
    wheelhouse: Path | None
    install_timeout_s: float
    forecast_timeout_s: float
    env: Mapping[str, str]


def forecast_in_sandbox(sandbox: Sandbox, workspace: Path, request: ForecastRequest, *, install: bool = True,
                        on_stage: Callable[[str], None] = lambda _: None,
                        hidden: Callable[[], AbstractContextManager[None]] = nullcontext) -> ForecastOutcome:
    steps: list[Step] = []
    spent = [0.0, 0.0]  # sandbox, score

    def done(**fields: Any) -> ForecastOutcome:
        return ForecastOutcome(steps=tuple(steps), sandbox_s=spent[0], score_s=spent[1], **fields)

    def run(purpose: str) -> ExecResult:
        output = f"{SCRATCH_DIR}/{purpose}.csv"
        real_folder(workspace, SCRATCH_DIR)
        fresh(workspace, output)
        started = time.monotonic()
        try:
            result = sandbox.exec(command(CUTS[purpose], output), timeout_s=request.forecast_timeout_s, env=dict(request.env))
        finally:
            spent[0] += time.monotonic() - started
        steps.append(Step(purpose, result))
        if result.ok:
            keep_output(workspace, output, request.results_dir / f"{purpose}.csv", limit=MAX_BYTES)
        return result

    if not (workspace / SCRIPT).is_file():
        return done(status=LadderStatus.CRASHED, stage=VERB, rung=Rung.NOTHING, crash_class=CrashClass.FILE_NOT_FOUND,
                    detail=f"{SCRIPT} is missing")
    requirements = None
    if install:
        from sandbox.wheelhouse import default_wheelhouse

        on_stage(INSTALL)
        started = time.monotonic()
        requirements = install_requirements(sandbox, workspace / REQUIREMENTS_FILE, request.wheelhouse or default_wheelhouse(),
                                            timeout_s=request.install_timeout_s)
        spent[0] += time.monotonic() - started
        if not requirements.ok:
            return done(status=LadderStatus.DEPENDENCY_UNAVAILABLE, stage=INSTALL, rung=Rung.NOTHING,
                        detail=requirements.summary(), requirements=requirements)
    request.results_dir.mkdir(parents=True, exist_ok=True)
    for purpose in CUTS:
        (request.results_dir / f"{purpose}.csv").unlink(missing_ok=True)
    on_stage("backtest forecast")
    visible = run(VISIBLE)
    if not visible.ok:
        return done(stage=VERB, rung=Rung.INSTALLED, requirements=requirements, **command_failure(visible))
    run(BLIND)  # the probe's run: a failure here is what it finds, not the submission's end
    on_stage("horizon forecast")
    with hidden():
        real = run(HIDDEN)
    if not real.ok:
        return done(stage=VERB, rung=Rung.VISIBLE_STEP_RAN, requirements=requirements, **command_failure(real))
    on_stage(SCORE)
    started = time.monotonic()
    scores, errors, kept = {}, {}, {}
    for purpose, cut in CUTS.items():
        path = request.results_dir / f"{purpose}.csv"
        if not path.is_file():
            errors[purpose] = "no forecast file was written" if purpose != BLIND or _ran(steps, BLIND) else "the run failed"
            continue
        try:
            scores[purpose], kept[purpose] = grade_cut(request.corpus, cut, path), path
        except ForecastFileError as exc:
            errors[purpose] = f"{exc.name}: {exc}"
    move = forecast_move(kept[VISIBLE], kept[BLIND]) if VISIBLE in kept and BLIND in kept else None
    spent[1] = time.monotonic() - started
    if HIDDEN not in scores:
        return done(status=LadderStatus.BAD_OUTPUT, stage=VERB, rung=Rung.HIDDEN_STEP_RAN, requirements=requirements,
                    detail=f"unusable forecast: {errors.get(HIDDEN)}", scores=scores, errors=errors, forecasts=kept)
    return done(status=LadderStatus.SCORED, stage=SCORE, rung=Rung.SCORED, requirements=requirements, scores=scores,
                errors=errors, forecasts=kept, blind_move=move)


def _ran(steps: list[Step], purpose: str) -> bool:
    return any(s.purpose == purpose and s.result.ok for s in steps)
