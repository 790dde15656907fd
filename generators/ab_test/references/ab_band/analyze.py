"""Cheater: a sound estimate with a fixed band of +-0.01 around it, no variance at all.

The estimate is the careful one (the fault's rows dropped, the ratio of converted visits over visits
per arm); the interval ignores how much data there is and how noisy it is.
"""

import argparse
import json

import pandas as pd

BAND = 0.01
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
    sessions = pd.read_csv(args.input).drop_duplicates()
    sessions = sessions[~refired(sessions)]
    rates = sessions.groupby("arm")["converted"].mean()
    effect = float(rates["B"] - rates["A"])
    result = {"effect": effect, "ci_low": effect - BAND, "ci_high": effect + BAND}
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
