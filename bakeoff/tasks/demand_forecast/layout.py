"""The demand-forecasting take-home's data folder and what a run's sandbox sees of it: the history, the
horizon calendar and the backtest cut under data/; the horizon's truth (future_truth.csv) and the secret that
keyed it (secret.hex) never. Nothing is a hidden input: what is hidden is what has not happened yet."""

from __future__ import annotations

from bakeoff.taskapi.corpus import CorpusLayout
from bakeoff.taskapi.workspace import DATA_DIR
from generators.demand_forecast.writer import BACKTEST, BACKTEST_TRUTH, CALENDAR, HISTORY, TRUTH
from generators.secret import SECRET_FILE

HISTORY_IN_SANDBOX = f"{DATA_DIR}/{HISTORY}"
CALENDAR_IN_SANDBOX = f"{DATA_DIR}/{CALENDAR}"
BACKTEST_IN_SANDBOX = f"{DATA_DIR}/{BACKTEST}"

LAYOUT = CorpusLayout(
    required=(HISTORY, CALENDAR, BACKTEST, BACKTEST_TRUTH, TRUTH),
    mounts=((HISTORY, HISTORY_IN_SANDBOX), (CALENDAR, CALENDAR_IN_SANDBOX), (BACKTEST, BACKTEST_IN_SANDBOX),
            (BACKTEST_TRUTH, f"{DATA_DIR}/{BACKTEST_TRUTH}")),
    truth=(TRUTH, SECRET_FILE),
    excerpt_of=f"{HISTORY_IN_SANDBOX}/sales.csv",
    hint="make one with `bakeoff generate --task demand_forecast`",
)
