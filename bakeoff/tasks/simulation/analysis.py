"""Running a simulation submission in an open sandbox: install, simulate.py on the visible example, then on
every hidden configuration, each under its CPU-time budget; the intervals graded on the host
(scorer.intervals, relative to the true mean waits, and by load band).

The one code path of the run's ladder check (bakeoff.tasks.simulation.check) and of `bakeoff score --task
simulation`. Every way the submission fails is an outcome; only the grader's own failures raise. A hidden run
that passes the wall-clock timeout or runs out of memory ends the hidden runs (the rest count as missing); one
that crashes, or is stopped by its CPU budget (which costs no more than the budget), does not.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bakeoff.grading.crashes import classify
from bakeoff.records import CrashClass, LadderStatus, Rung
from bakeoff.taskapi.workspace import SCRATCH_DIR, keep_output, real_folder
from bakeoff.tasks.simulation.cpu_cap import SIMULATE_SCRIPT, budget_of, capped_argv, over_budget, wall_timeout
from generators.simulation.configs import BANDS
from sandbox.base import ExecResult, Sandbox
from sandbox.requirements import RequirementsReport, install_requirements

REQUIREMENTS_FILE = "requirements.txt"
VISIBLE_OUTPUT = f"{SCRATCH_DIR}/visible_result.json"
HIDDEN_OUTPUT = f"{SCRATCH_DIR}/hidden_result.json"
INSTALL, SIMULATE, SCORE = "install", "simulate", "score"
RESULT_KEYS = ("estimate", "ci_low", "ci_high")
TRUTH_COLUMNS = ("configuration", "wait")
BAND_NAMES = tuple(name for name, _, _ in BANDS)


@dataclass(frozen=True)
class SimRequest:
    """What to run: the visible configuration, the hidden ones (names, budgets, truth) and the limits."""

    visible_config: str  # as the sandbox sees it, e.g. data/examples/example_1.json
    visible_budget: int  # its cpu_seconds
    hidden_dir: str  # as the sandbox sees it, e.g. /holdout (one <configuration>.json each)
    hidden_budgets: Mapping[str, int]  # configuration -> cpu_seconds (read from the host's copies)
    truth_csv: Path  # host path: configuration, wait, band... (never shown to the sandbox)
    results_dir: Path  # host folder the results are moved into (one <configuration>.json each)
    wheelhouse: Path | None
    install_timeout_s: float = 300.0
    simulate_timeout_s: float = 60.0  # the wall-clock floor of one run (its CPU budget may raise it)
    env: Mapping[str, str] = field(default_factory=dict)
    level: float = 0.95


@dataclass(frozen=True)
class Step:
    purpose: str  # install, visible_simulate, hidden_simulate:<configuration>
    result: ExecResult


@dataclass(frozen=True)
class SimOutcome:
    status: str  # the ladder's vocabulary: scored, crashed, timeout, out_of_memory, bad_output, dependency_unavailable
    stage: str  # install, simulate, score
    rung: Rung  # 2: the visible simulation ran; 3: every hidden one did
    crash_class: str | None = None
    detail: str = ""
    traceback_tail: str = ""
    visible_error: str | None = None  # why the visible result is unusable (None: it is fine)
    visible_result: Mapping[str, float] | None = None
    score: Any = None  # scorer.intervals.IntervalScore (relative), once the hidden runs ran
    bands: Mapping[str, Any] = field(default_factory=dict)  # band -> IntervalScore of its configurations
    requirements: RequirementsReport | None = None
    steps: tuple[Step, ...] = ()
    seconds: Mapping[str, float] = field(default_factory=dict)  # sandbox, score

    @property
    def visible_step(self) -> Step | None:
        return next((s for s in self.steps if s.purpose == "visible_simulate"), None)


def failure_of(result: ExecResult) -> dict[str, Any]:
    """How a failed run ends the ladder: out of memory, a timeout (the wall clock's or the CPU budget's), a crash."""
    crash = classify(result)
    if over_budget(result):
        return {"status": LadderStatus.TIMEOUT, "crash_class": None, "detail": "simulate.py used its CPU-time budget",
                "traceback_tail": crash.traceback_tail}
    status = (LadderStatus.OUT_OF_MEMORY if result.oom_killed
              else LadderStatus.TIMEOUT if result.timed_out else LadderStatus.CRASHED)
    crash_class = crash.crash_class if status == LadderStatus.CRASHED else None
    return {"status": status, "crash_class": crash_class, "detail": crash.detail, "traceback_tail": crash.traceback_tail}


class _Runner:
    def __init__(self, sandbox: Sandbox, request: SimRequest) -> None:
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

    def simulate(self, purpose: str, config: str, output: str, cpu_seconds: int) -> ExecResult:
        timeout = wall_timeout(cpu_seconds, self.request.simulate_timeout_s)
        return self.run(purpose, capped_argv(config, output, cpu_seconds), timeout)


def _wheelhouse(request: SimRequest) -> Path:
    from sandbox.wheelhouse import default_wheelhouse

    return request.wheelhouse or default_wheelhouse()


def _fresh(workspace: Path, relative: str) -> None:
    """No stale result is ever graded as new (a link planted there is removed, never followed)."""
    path = workspace / relative
    if path.is_symlink() or path.is_file():
        path.unlink()


def read_kept(path: Path) -> tuple[Mapping[str, float] | None, str | None]:
    from scorer.interval_reading import ResultFileError, read_result

    try:
        result = read_result(path, RESULT_KEYS)
    except ResultFileError as exc:
        return None, f"{exc.name}: {exc}".replace(str(path), path.name)
    return {"estimate": result.effect, "ci_low": result.ci_low, "ci_high": result.ci_high}, None


def hidden_budgets(holdout: Path) -> dict[str, int]:
    """configuration -> cpu_seconds, from the host's copies of the hidden configurations."""
    return {p.stem: budget_of(p.read_text(encoding="utf-8")) for p in sorted(Path(holdout).glob("*.json"))
            if p.is_file() and not p.is_symlink()}


def _install(runner: _Runner, workspace: Path, request: SimRequest) -> RequirementsReport:
    started = time.monotonic()
    report = install_requirements(runner.sandbox, workspace / REQUIREMENTS_FILE, _wheelhouse(request),
                                  timeout_s=request.install_timeout_s)
    runner.sandbox_s += time.monotonic() - started
    return report


def simulate_in_sandbox(sandbox: Sandbox, workspace: Path, request: SimRequest, *, install: bool = True,
                        bands: Mapping[str, str] | None = None,
                        on_stage: Callable[[str], None] = lambda _: None) -> SimOutcome:
    """Install, the visible run, the hidden runs, the grade (by band where `bands` names them)."""
    from scorer.intervals import grade_one, read_truth, score_experiments, score_groups

    runner = _Runner(sandbox, request)
    done = lambda **fields: SimOutcome(steps=tuple(runner.steps), seconds={"sandbox": runner.sandbox_s}, **fields)  # noqa: E731
    if not (workspace / SIMULATE_SCRIPT).is_file():
        return done(status=LadderStatus.CRASHED, stage=SIMULATE, rung=Rung.NOTHING, crash_class=CrashClass.FILE_NOT_FOUND,
                    detail=f"{SIMULATE_SCRIPT} is missing")
    requirements = None
    if install:
        on_stage(INSTALL)
        requirements = _install(runner, workspace, request)
        if not requirements.ok:
            return done(status=LadderStatus.DEPENDENCY_UNAVAILABLE, stage=INSTALL, rung=Rung.NOTHING,
                        detail=requirements.summary(), requirements=requirements)
    on_stage("visible simulation")
    real_folder(workspace, SCRATCH_DIR)  # a real folder again, whatever sandboxed code left in its place
    _fresh(workspace, VISIBLE_OUTPUT)
    visible = runner.simulate("visible_simulate", request.visible_config, VISIBLE_OUTPUT, request.visible_budget)
    if not visible.ok:
        return done(stage=SIMULATE, rung=Rung.INSTALLED, requirements=requirements, **failure_of(visible))
    request.results_dir.mkdir(parents=True, exist_ok=True)
    keep_output(workspace, VISIBLE_OUTPUT, request.results_dir / "visible.json")
    visible_result, visible_error = read_kept(request.results_dir / "visible.json")
    truth = read_truth(request.truth_csv, TRUTH_COLUMNS)
    on_stage("hidden simulations")
    stop: dict[str, Any] | None = None  # a wall-clock timeout or out-of-memory: the hidden runs end there
    first_failure: dict[str, Any] | None = None
    graded = []
    for name, wait in truth.items():
        kept = request.results_dir / f"{name}.json"
        kept.unlink(missing_ok=True)
        if stop is None:
            _fresh(workspace, HIDDEN_OUTPUT)
            result = runner.simulate(f"hidden_simulate:{name}", f"{request.hidden_dir}/{name}.json", HIDDEN_OUTPUT,
                                     request.hidden_budgets.get(name, request.visible_budget))
            if result.ok:
                keep_output(workspace, HIDDEN_OUTPUT, kept)
            else:
                failed = failure_of(result)
                first_failure = first_failure or failed
                stop = failed if (result.timed_out or result.oom_killed) else None
        graded.append(grade_one(name, wait, kept, RESULT_KEYS))
    on_stage(SCORE)
    started = time.monotonic()
    score = score_experiments(graded, request.level, relative=True, point=RESULT_KEYS[0])
    found = score_groups(score, bands) if bands else {}
    by_band = {band: found[band] for band in (*BAND_NAMES, *sorted(found)) if band in found}  # light, medium, heavy
    seconds = {"sandbox": runner.sandbox_s, "score": time.monotonic() - started}
    outcome = SimOutcome(status=LadderStatus.SCORED, stage=SCORE, rung=Rung.SCORED, visible_result=visible_result,
                         visible_error=visible_error, score=score, bands=by_band, requirements=requirements,
                         steps=tuple(runner.steps), seconds=seconds)
    failure = stop or first_failure
    if failure is not None:
        return dataclasses.replace(outcome, stage=SIMULATE, rung=Rung.VISIBLE_STEP_RAN, **failure)
    if score.failed:
        errors = ", ".join(f"{name} x{count}" for name, count in sorted(score.errors.items()))
        return dataclasses.replace(outcome, status=LadderStatus.BAD_OUTPUT, rung=Rung.HIDDEN_STEP_RAN,
                                   detail=f"unusable results: {errors}")
    return outcome
