"""Cheater: a visit-level interval inflated by a fixed design effect.

The fault's rows are removed and the effect is the difference of the arms' converted visits over visits, as
careful does; the standard error is the two-proportion one over visits, times the square root of a design
effect measured once on the visible experiment ((careful's standard error / the visit-level one) squared,
written into inflation.json beside this file when it was made). Right wherever the design effect is the
visible experiment's; wrong where users cluster their visits and purchases more or less than there.
"""

import argparse
import json
import math
from pathlib import Path

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
    design_effect = json.loads((Path(__file__).resolve().parent / "inflation.json").read_text(encoding="utf-8"))["design_effect"]
    sessions = pd.read_csv(args.input).drop_duplicates()
    sessions = sessions[~refired(sessions)]
    rates = sessions.groupby("arm")["converted"].agg(["mean", "size"])
    p_a, n_a = rates.loc["A", "mean"], rates.loc["A", "size"]
    p_b, n_b = rates.loc["B", "mean"], rates.loc["B", "size"]
    effect = float(p_b - p_a)
    se = math.sqrt(design_effect * (p_a * (1 - p_a) / n_a + p_b * (1 - p_b) / n_b))
    result = {"effect": effect, "ci_low": effect - Z95 * se, "ci_high": effect + Z95 * se}
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
