"""Running a forecast.py on the host (our own references, as plain subprocesses) and grading what it wrote:
on the real horizon (future_truth.csv) or on the backtest cut (backtest_truth.csv), as the task's grader does."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from generators.common.child import child_env
from generators.demand_forecast.mase import ForecastScore, read_forecast, read_truth, score
from generators.demand_forecast.writer import BACKTEST, BACKTEST_TRUTH, BLIND, CALENDAR, HISTORY, SALES, TRUTH
from generators.errors import ReferenceFailed

REFERENCES = Path(__file__).resolve().parent / "references"
SCRIPT = "forecast.py"
_CLAIM = re.compile(r"EXPECTED_MASE:\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


def parse_claim(text: str) -> float | None:
    """The last `EXPECTED_MASE: X` line's number, or None."""
    found = _CLAIM.findall(text or "")
    return float(found[-1]) if found else None


@dataclass(frozen=True)
class Cut:
    """One place a forecast is made from: its history folder, horizon calendar, and truth with its scale."""

    history: str
    calendar: str
    truth: str
    scale_history: str


REAL = Cut(HISTORY, CALENDAR, TRUTH, HISTORY)
BACKTEST_CUT = Cut(f"{BACKTEST}/{HISTORY}", f"{BACKTEST}/{CALENDAR}", BACKTEST_TRUTH, f"{BACKTEST}/{HISTORY}")
BLIND_CUT = Cut(BLIND, f"{BACKTEST}/{CALENDAR}", BACKTEST_TRUTH, f"{BACKTEST}/{HISTORY}")


@dataclass(frozen=True)
class Forecasted:
    score: ForecastScore
    claimed: float | None
    output: Path


def run_forecast(folder: Path, corpus: Path, cut: Cut, output: Path, python: str = sys.executable) -> Forecasted:
    """forecast.py of `folder` on `cut` of `corpus`, graded; ReferenceFailed when it fails."""
    argv = [python, SCRIPT, "--history", str(corpus / cut.history), "--horizon-calendar", str(corpus / cut.calendar),
            "--output", str(output)]
    env = {**child_env(), "OMP_NUM_THREADS": "1"}  # one thread each: calibration runs references side by side
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise ReferenceFailed(f"{folder.name} {SCRIPT} exited with {done.returncode}:\n{(done.stdout + done.stderr)[-2000:]}")
    return Forecasted(grade_cut(corpus, cut, output), parse_claim(done.stdout), output)


def grade_cut(corpus: Path, cut: Cut, output: Path) -> ForecastScore:
    truth = read_truth(corpus / cut.truth, corpus / cut.scale_history / SALES)
    return score(truth, read_forecast(output, truth.units))
