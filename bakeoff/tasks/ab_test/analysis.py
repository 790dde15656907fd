"""Running an ab_test submission in an open sandbox: install, analyze.py on the visible sessions, then on
every hidden experiment; the intervals graded on the host (scorer.intervals).

The one code path of the run's ladder check (bakeoff.tasks.ab_test.check) and of `bakeoff score --task ab_test`
(bakeoff.tasks.ab_test.score); the work is the interval tasks' (bakeoff.tasks.intervals.running). Every way the
submission fails is an outcome; only the grader's own failures raise. A hidden run that times out or runs out
of memory ends the hidden runs (the rest count as missing): a submission that hangs must not cost its time
limit once per experiment.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from bakeoff.tasks.intervals.running import VISIBLE_OUTPUT, IntervalOutcome, Script, grade_in_sandbox
from sandbox.base import Sandbox

__all__ = ["ANALYZE", "ANALYZE_SCRIPT", "SCRIPT", "VISIBLE_OUTPUT", "AbRequest", "analyse_in_sandbox"]

ANALYZE_SCRIPT = "analyze.py"
ANALYZE = "analyze"
SCRIPT = Script(ANALYZE_SCRIPT, ANALYZE, "visible analysis", "hidden analyses", keys=("effect", "ci_low", "ci_high"),
                truth_columns=("experiment", "effect"))


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

    def command(self, item: str | None, output: str) -> tuple[list[str], float]:
        source = self.visible_input if item is None else f"{self.hidden_dir}/{item}.csv"
        return ["python", ANALYZE_SCRIPT, "--input", source, "--output", output], self.analyze_timeout_s


def analyse_in_sandbox(sandbox: Sandbox, workspace: Path, request: AbRequest, *, install: bool = True,
                       on_stage: Callable[[str], None] = lambda _: None,
                       hidden: Callable[[], AbstractContextManager[None]] = nullcontext) -> IntervalOutcome:
    """Install, the visible run, the hidden runs (`hidden`: the gate opened around them), the grade.
    `workspace` is the host folder the sandbox runs in."""
    return grade_in_sandbox(SCRIPT, sandbox, workspace, request, install=install, on_stage=on_stage, hidden=hidden)
