"""Running an interval submission in an open sandbox: install, its script on the visible input, then on every
hidden item; the intervals graded on the host (scorer.intervals).

The one code path of an interval task's ladder check and of its `bakeoff score`. Every way the submission
fails is an outcome; only the grader's own failures raise. A hidden run that passes its wall-clock timeout or
runs out of memory ends the hidden runs (the rest count as missing): a submission that hangs must not cost its
time limit once per hidden item. One that crashes does not.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

import durable
from bakeoff.records import CrashClass, LadderStatus, Rung
from bakeoff.taskapi.grading import Ending, command_failure
from bakeoff.taskapi.workspace import SCRATCH_DIR, keep_output, real_folder
from sandbox.base import ExecResult, Sandbox
from sandbox.requirements import RequirementsReport, install_requirements
from scorer.interval_reading import MAX_BYTES as MAX_RESULT_BYTES

REQUIREMENTS_FILE = "requirements.txt"
VISIBLE_OUTPUT = f"{SCRATCH_DIR}/visible_result.json"
HIDDEN_OUTPUT = f"{SCRATCH_DIR}/hidden_result.json"
INSTALL, SCORE = "install", "score"


@dataclass(frozen=True)
class Script:
    """One interval task's submission script: its file, how its runs are named and how its results are read."""

    file: str  # analyze.py
    verb: str  # the ladder stage of its runs (analyze), and their purposes: visible_analyze, hidden_analyze:<item>
    visible_label: str  # what on_stage says before the visible run ("visible analysis")
    hidden_label: str  # and before the hidden ones ("hidden analyses")
    keys: tuple[str, str, str]  # the result file's point and interval keys (scorer.interval_reading)
    truth_columns: tuple[str, str]  # the truth file's item and true value columns
    relative: bool = False  # graded relative to the truth too (scale-free scores)
    failure: Callable[[ExecResult], dict[str, Any]] = command_failure
    ends_runs: Callable[[ExecResult], bool] = lambda result: result.timed_out or result.oom_killed  # stop the hidden runs
    # The result without the lines a harness wrapper around the script added to its output (simulation's CPU cap
    # says the CPU it counted): they are not the submission's, and they differ from run to run.
    own_output: Callable[[ExecResult], ExecResult] = lambda result: result

    @property
    def visible_purpose(self) -> str:
        return f"visible_{self.verb}"

    @property
    def hidden_purpose(self) -> str:
        return f"hidden_{self.verb}"


class IntervalRequest(Protocol):
    """What to run: a task's request names its truth, where results go, its limits and its script's command."""

    @property
    def truth_csv(self) -> Path: ...  # host path: item, true value (never shown to the sandbox)

    @property
    def results_dir(self) -> Path: ...  # host folder the results are moved into (one <item>.json each)

    @property
    def wheelhouse(self) -> Path | None: ...

    @property
    def install_timeout_s(self) -> float: ...

    @property
    def env(self) -> Mapping[str, str]: ...

    @property
    def level(self) -> float: ...

    def command(self, item: str | None, output: str) -> tuple[list[str], float]:
        """argv and wall-clock limit of the script on hidden item `item` (None: the visible input) writing `output`."""


@dataclass(frozen=True)
class Step:
    purpose: str  # visible_<verb>, hidden_<verb>:<item>
    result: ExecResult


@dataclass(frozen=True, kw_only=True)
class IntervalOutcome(Ending):
    """How grading ended (stage: install, the script's verb, score; rung 2: the visible run ran, 3: every hidden
    one did) and what it found."""

    visible_error: str | None = None  # why the visible result is unusable (None: it is fine)
    visible_result: Mapping[str, float] | None = None
    score: Any = None  # scorer.intervals.IntervalScore, once the hidden runs ran
    groups: Mapping[str, Any] = field(default_factory=dict)  # group -> IntervalScore of its items (where asked)
    requirements: RequirementsReport | None = None
    steps: tuple[Step, ...] = ()
    sandbox_s: float = 0.0  # in the sandbox, every step
    score_s: float | None = None  # scoring on the host (None: it never scored)

    def timings(self) -> dict[str, float]:
        """The seconds as `bakeoff score --json` writes them: sandbox, and score once it scored."""
        return {"sandbox": self.sandbox_s, **({"score": self.score_s} if self.score_s is not None else {})}

    @property
    def visible_step(self) -> Step | None:
        return next((s for s in self.steps if s.purpose.startswith("visible_")), None)


class _Runner:
    def __init__(self, sandbox: Sandbox, request: IntervalRequest, own_output: Callable[[ExecResult], ExecResult]) -> None:
        self.sandbox, self.request, self.own_output = sandbox, request, own_output
        self.steps: list[Step] = []
        self.sandbox_s = 0.0

    def run(self, purpose: str, item: str | None, output: str) -> ExecResult:
        argv, timeout_s = self.request.command(item, output)
        started = time.monotonic()
        try:
            result = self.own_output(self.sandbox.exec(argv, timeout_s=timeout_s, env=dict(self.request.env)))
        finally:
            self.sandbox_s += time.monotonic() - started
        self.steps.append(Step(purpose, result))
        return result

    def install(self, workspace: Path) -> RequirementsReport:
        from sandbox.wheelhouse import default_wheelhouse

        started = time.monotonic()
        report = install_requirements(self.sandbox, workspace / REQUIREMENTS_FILE,
                                      self.request.wheelhouse or default_wheelhouse(),
                                      timeout_s=self.request.install_timeout_s)
        self.sandbox_s += time.monotonic() - started
        return report


def fresh(workspace: Path, relative: str) -> None:
    """No stale result is ever graded as new. Sandboxed code ran before: the folder of `relative` is made real
    again (a link it left in its place, or on the way, is removed and never followed) and whatever is at
    `relative` is removed, through durable.TrustedRoot."""
    root = durable.TrustedRoot(workspace)
    root.ensure_folder(PurePosixPath(relative).parent)
    root.remove_tree(relative)


def read_kept(path: Path, keys: tuple[str, str, str]) -> tuple[Mapping[str, float] | None, str | None]:
    """A kept result as {point, ci_low, ci_high} under `keys`, or why it is unusable."""
    from scorer.interval_reading import ResultFileError, read_result

    try:
        result = read_result(path, keys)
    except ResultFileError as exc:
        return None, f"{exc.name}: {exc}".replace(str(path), path.name)
    return {keys[0]: result.effect, keys[1]: result.ci_low, keys[2]: result.ci_high}, None


def grade_in_sandbox(script: Script, sandbox: Sandbox, workspace: Path, request: IntervalRequest, *,
                     install: bool = True, groups: Mapping[str, str] | None = None, group_order: Sequence[str] = (),
                     on_stage: Callable[[str], None] = lambda _: None,
                     hidden: Callable[[], AbstractContextManager[None]] = nullcontext) -> IntervalOutcome:
    """Install, the visible run, the hidden runs, the grade (also by group where `groups` maps items to groups,
    the groups in `group_order` first). `workspace` is the host folder the sandbox runs in; `hidden` opens the
    hidden-input gate (GradeJob.hidden_step) around the hidden runs alone, after the visible one."""
    from scorer.intervals import grade_one, read_truth, score_experiments, score_groups

    runner = _Runner(sandbox, request, script.own_output)
    done = lambda **fields: IntervalOutcome(steps=tuple(runner.steps), sandbox_s=runner.sandbox_s, **fields)  # noqa: E731
    if not (workspace / script.file).is_file():
        return done(status=LadderStatus.CRASHED, stage=script.verb, rung=Rung.NOTHING,
                    crash_class=CrashClass.FILE_NOT_FOUND, detail=f"{script.file} is missing")
    requirements = None
    if install:
        on_stage(INSTALL)
        requirements = runner.install(workspace)
        if not requirements.ok:
            return done(status=LadderStatus.DEPENDENCY_UNAVAILABLE, stage=INSTALL, rung=Rung.NOTHING,
                        detail=requirements.summary(), requirements=requirements)
    on_stage(script.visible_label)
    real_folder(workspace, SCRATCH_DIR)  # a real folder again, whatever sandboxed code left in its place
    fresh(workspace, VISIBLE_OUTPUT)
    visible = runner.run(script.visible_purpose, None, VISIBLE_OUTPUT)
    if not visible.ok:
        return done(stage=script.verb, rung=Rung.INSTALLED, requirements=requirements, **script.failure(visible))
    request.results_dir.mkdir(parents=True, exist_ok=True)
    keep_output(workspace, VISIBLE_OUTPUT, request.results_dir / "visible.json", limit=MAX_RESULT_BYTES)
    visible_result, visible_error = read_kept(request.results_dir / "visible.json", script.keys)
    truth = read_truth(request.truth_csv, script.truth_columns)
    on_stage(script.hidden_label)
    stop: dict[str, Any] | None = None  # a wall-clock timeout or out-of-memory: the hidden runs end there
    first_failure: dict[str, Any] | None = None
    graded = []
    with hidden():  # the gate, open for the hidden runs alone; each result is kept (host side) before it closes
        for name, value in truth.items():
            kept = request.results_dir / f"{name}.json"
            kept.unlink(missing_ok=True)
            if stop is None:
                fresh(workspace, HIDDEN_OUTPUT)
                result = runner.run(f"{script.hidden_purpose}:{name}", name, HIDDEN_OUTPUT)
                if result.ok:
                    keep_output(workspace, HIDDEN_OUTPUT, kept, limit=MAX_RESULT_BYTES)
                else:
                    failed = script.failure(result)
                    first_failure = first_failure or failed
                    stop = failed if script.ends_runs(result) else None
            graded.append(grade_one(name, value, kept, script.keys))
    on_stage(SCORE)
    started = time.monotonic()
    score = score_experiments(graded, request.level, relative=script.relative, point=script.keys[0])
    found = score_groups(score, groups) if groups else {}
    ordered = {group: found[group] for group in (*group_order, *sorted(found)) if group in found}
    score_s = time.monotonic() - started
    outcome = IntervalOutcome(status=LadderStatus.SCORED, stage=SCORE, rung=Rung.SCORED, visible_result=visible_result,
                              visible_error=visible_error, score=score, groups=ordered, requirements=requirements,
                              steps=tuple(runner.steps), sandbox_s=runner.sandbox_s, score_s=score_s)
    failure = stop or first_failure
    if failure is not None:
        return dataclasses.replace(outcome, stage=script.verb, rung=Rung.VISIBLE_STEP_RAN, **failure)
    if score.failed:
        errors = ", ".join(f"{name} x{count}" for name, count in sorted(score.errors.items()))
        return dataclasses.replace(outcome, status=LadderStatus.BAD_OUTPUT, rung=Rung.HIDDEN_STEP_RAN,
                                   detail=f"unusable results: {errors}")
    return outcome
