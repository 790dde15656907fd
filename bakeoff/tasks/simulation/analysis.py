"""Running a simulation submission in an open sandbox: install, simulate.py on the visible example, then on
every hidden configuration, each under its CPU-time budget; the intervals graded on the host
(scorer.intervals, relative to the true mean waits, and by load band).

The one code path of the run's ladder check (bakeoff.tasks.simulation.check) and of `bakeoff score --task
simulation`; the work is the interval tasks' (bakeoff.tasks.intervals.running). Every way the submission fails
is an outcome; only the grader's own failures raise. A hidden run that passes the wall-clock limit (the CPU
cap's, which leaves out the machine's other load, or the sandbox's outer one) or runs out of memory ends the
hidden runs (the rest count as missing); one that crashes, or is stopped by its CPU
budget (which costs no more than the budget), does not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bakeoff.records import LadderStatus
from bakeoff.taskapi.grading import command_failure
from bakeoff.tasks.intervals.running import VISIBLE_OUTPUT, IntervalOutcome, Script, grade_in_sandbox
from bakeoff.tasks.simulation.cpu_cap import (
    SIMULATE_SCRIPT,
    budget_of,
    capped_argv,
    outer_timeout,
    over_budget,
    over_wall,
    wall_timeout,
    without_cpu_line,
)
from generators.simulation.configs import BANDS
from sandbox.base import ExecResult, Sandbox

__all__ = ["RESULT_KEYS", "SCRIPT", "SIMULATE", "VISIBLE_OUTPUT", "SimRequest", "failure_of", "hidden_budgets",
           "simulate_in_sandbox"]

SIMULATE = "simulate"
RESULT_KEYS = ("estimate", "ci_low", "ci_high")
TRUTH_COLUMNS = ("configuration", "wait")
BAND_NAMES = tuple(name for name, _, _ in BANDS)


def failure_of(result: ExecResult) -> dict[str, Any]:
    """How a failed run ends the ladder: out of memory, a timeout (the wall clock's or the CPU budget's), a crash."""
    if over_budget(result):
        return {"status": LadderStatus.TIMEOUT, "crash_class": None, "detail": "simulate.py used its CPU-time budget",
                "traceback_tail": command_failure(result)["traceback_tail"]}
    if over_wall(result):
        return {"status": LadderStatus.TIMEOUT, "crash_class": None,
                "detail": "simulate.py passed its wall-clock limit (the machine's other load not counted)",
                "traceback_tail": command_failure(result)["traceback_tail"]}
    return command_failure(result)


def ends_runs(result: ExecResult) -> bool:
    """A wall-clock stop (the sandbox's or the cap's) or out of memory ends the hidden runs."""
    return result.timed_out or result.oom_killed or over_wall(result)


SCRIPT = Script(SIMULATE_SCRIPT, SIMULATE, "visible simulation", "hidden simulations", RESULT_KEYS, TRUTH_COLUMNS,
                relative=True, failure=failure_of, ends_runs=ends_runs, own_output=without_cpu_line)


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

    def command(self, item: str | None, output: str) -> tuple[list[str], float]:
        config = self.visible_config if item is None else f"{self.hidden_dir}/{item}.json"
        budget = self.visible_budget if item is None else self.hidden_budgets.get(item, self.visible_budget)
        wall = wall_timeout(budget, self.simulate_timeout_s)
        return capped_argv(config, output, budget, wall), outer_timeout(wall)


def hidden_budgets(holdout: Path) -> dict[str, int]:
    """configuration -> cpu_seconds, from the host's copies of the hidden configurations."""
    return {p.stem: budget_of(p.read_text(encoding="utf-8")) for p in sorted(Path(holdout).glob("*.json"))
            if p.is_file() and not p.is_symlink()}


def simulate_in_sandbox(sandbox: Sandbox, workspace: Path, request: SimRequest, *, install: bool = True,
                        bands: Mapping[str, str] | None = None,
                        on_stage: Callable[[str], None] = lambda _: None,
                        hidden: Callable[[], AbstractContextManager[None]] = nullcontext) -> IntervalOutcome:
    """Install, the visible run, the hidden runs (`hidden`: the gate opened around them), the grade (by band
    where `bands` names them: light, medium, heavy first)."""
    return grade_in_sandbox(SCRIPT, sandbox, workspace, request, install=install, groups=bands, group_order=BAND_NAMES,
                            on_stage=on_stage, hidden=hidden)
