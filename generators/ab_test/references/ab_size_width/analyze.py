"""Cheater: the careful estimate with a width that depends only on the number of users.

The half-width is K / sqrt(users), K fitted once on the visible experiment (careful's half-width there times
the square root of its users) and written into width.json beside this file when it was made. When every
experiment shares one population the per-user variance is a constant and this matches careful; when the
population differs from experiment to experiment, the width is wrong wherever the variance is not the
visible one's.
"""

import argparse
import json
import math
from pathlib import Path

import pandas as pd

REFIRE_WINDOW_S = 600


def refired(sessions: pd.DataFrame) -> pd.Series:
    bought = sessions[sessions["converted"] == 1]
    bought = bought.assign(when=pd.to_datetime(bought["visit_time"])).sort_values(["user_id", "when"], kind="stable")
    before = bought.groupby("user_id")[["when", "revenue"]].shift()
    again = (bought["revenue"] == before["revenue"]) & ((bought["when"] - before["when"]).dt.total_seconds() <= REFIRE_WINDOW_S)
    return again.reindex(sessions.index, fill_value=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    fitted = json.loads((Path(__file__).resolve().parent / "width.json").read_text(encoding="utf-8"))
    sessions = pd.read_csv(args.input).drop_duplicates()
    sessions = sessions[~refired(sessions)]
    rates = sessions.groupby("arm")["converted"].mean()
    effect = float(rates["B"] - rates["A"])
    half = fitted["half_width_times_sqrt_users"] / math.sqrt(sessions["user_id"].nunique())
    result = {"effect": effect, "ci_low": effect - half, "ci_high": effect + half}
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
