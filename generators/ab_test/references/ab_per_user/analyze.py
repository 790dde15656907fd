"""Degenerate baseline: the mean of per-user conversion rates, with a Welch interval over users.

The unit is right (users were randomized, so users are the independent units) and the fault is removed,
but the estimand is not the one asked for: the statement's conversion rate is converted visits over
visits, which weights a user by their visits; the mean of per-user rates weights every user alike. When
users who visit often also buy more often per visit, or the new page moves them differently from people
who come once, the two effects differ.
"""

import argparse
import json
import math

import pandas as pd

Z95 = 1.959963984540054
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
    rates = sessions.groupby(["arm", "user_id"])["converted"].mean()
    a, b = rates["A"], rates["B"]
    effect = float(b.mean() - a.mean())
    se = math.sqrt(a.var() / len(a) + b.var() / len(b))
    result = {"effect": effect, "ci_low": effect - Z95 * se, "ci_high": effect + Z95 * se}
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
