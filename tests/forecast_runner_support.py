"""Shared pieces of the demand_forecast batch tests: a tiny data folder and scripted answers for both scaffolds.

The forecasts are the calibration references' own forecast.py (careful: only what is known at the close, a
rolling-origin backtest; careless: after-close columns at lag 0, a centred window, random k-fold), so what the
probe should find is known; the careless one runs with one OpenMP thread (one_openmp_thread); the crashing
one imports a package that does not exist.
"""

from __future__ import annotations

from pathlib import Path

from agent_support import call
from interval_runner_support import implementation_answer, stage_answers
from runner_support import fenced

TINY = {"seed": 4, "series": 12, "days": 160}
TINY_SECRET_HEX = "fc" * 32  # the tests' fixed secret (a real corpus draws its own)


def make_tiny_forecast_data(folder: Path) -> Path:
    from generators.demand_forecast import ForecastParams, generate_forecast_data
    from generators.secret import Secret

    generate_forecast_data(ForecastParams(**TINY), folder, secret=Secret.from_hex(TINY_SECRET_HEX))
    return folder


EXPLORE = fenced("explore.py", """
import pandas as pd
sales = pd.read_csv("data/history/sales.csv")
print(sales.shape, sales["series"].nunique())
print(sales.groupby("promotion")["units"].mean())
""")


def design_doc(validation: str, features: str) -> str:
    return f"""# Design
Each series is forecast 28 days ahead from the close of the last day.
VALIDATION: {validation}
FEATURES: {features}
EXPECTED_MASE: 0.8
"""


CAREFUL_DESIGN = design_doc("rolling-origin backtest, 28 days ahead from three earlier closes",
                            "weekday profile, recent level, promotion discount, holidays; end_of_day_stock only to drop "
                            "empty-shelf days from the past, never as a feature")
CARELESS_DESIGN = design_doc("random 5-fold cross-validation over the rows",
                             "weekday, promotion, price, end_of_day_stock, units_returned, a centred 7-day mean, lag 1")


def forecast(reference: str) -> str:
    return (Path(__file__).resolve().parents[1] / "generators" / "demand_forecast" / "references" / reference
            / "forecast.py").read_text(encoding="utf-8")


def one_openmp_thread(code: str) -> str:
    """The code with OpenMP held to one thread before scikit-learn loads it. Gradient boosting's OpenMP threads
    spin for a core the other test worker (or a container's `cpus = 1.0`) holds: on the loaded 2-core machine the
    careless reference took 93 s that way and 9 s with one thread. What it forecasts is the same."""
    return 'import os\nos.environ["OMP_NUM_THREADS"] = "1"  # one thread: see the test support\n' + code


CAREFUL, CARELESS = forecast("fc_careful"), one_openmp_thread(forecast("fc_careless"))
CRASHING = "import demand_oracle_toolkit  # no such package\n" + CAREFUL
README = "# Four weeks of demand\nA weekly profile, a recent level and promotion lifts.\nEXPECTED_MASE: 0.8\n"
RUN = ("python forecast.py --history data/backtest/history --horizon-calendar data/backtest/horizon_calendar.csv "
       "--output /tmp/f.csv && head -n 3 /tmp/f.csv")


def implementation(code: str) -> str:
    return implementation_answer("forecast", "forecast.py", code, "pandas\nnumpy\nscikit-learn")


def staged(implement: str, repair: str | None = None, design: str = CAREFUL_DESIGN) -> list[dict]:
    return stage_answers(EXPLORE, "My design.\n\n" + fenced("DESIGN.md", design, language="markdown"), implement,
                         repair, fenced("README.md", README, language="markdown"))


def agent(code: str, design: str = CAREFUL_DESIGN, fix: str | None = None) -> list[dict]:
    """An agent that writes its files, runs the backtest (fixing the code when `fix` is given) and submits."""
    lines = [call("run", "The history.", command="head -n 3 data/history/sales.csv"),
             call("write_file", path="DESIGN.md", content=design),
             call("write_file", path="forecast.py", content=code),
             call("write_file", path="requirements.txt", content="pandas\nnumpy\nscikit-learn\n"),
             call("run", command=RUN)]
    if fix is not None:
        lines += [call("write_file", "No such package: pandas is enough.", path="forecast.py", content=fix),
                  call("run", command=RUN)]
    lines += [call("write_file", path="README.md", content=README), call("submit")]
    return [{"key": f"agent#{i}", **line} for i, line in enumerate(lines, 1)]
