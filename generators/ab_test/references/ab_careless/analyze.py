"""Reference A/B analysis, careless: every row is an independent trial.

Takes the log at face value (duplicated rows included) and computes a two-proportion
interval over visits. Users were randomized, not visits, so the interval is far too narrow.
"""

import argparse
import json
import math

import pandas as pd

Z95 = 1.959963984540054


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    sessions = pd.read_csv(args.input)
    rates = sessions.groupby("arm")["converted"].agg(["mean", "size"])
    p_a, n_a = rates.loc["A", "mean"], rates.loc["A", "size"]
    p_b, n_b = rates.loc["B", "mean"], rates.loc["B", "size"]
    effect = p_b - p_a
    se = math.sqrt(p_a * (1 - p_a) / n_a + p_b * (1 - p_b) / n_b)
    result = {"effect": float(effect), "ci_low": float(effect - Z95 * se), "ci_high": float(effect + Z95 * se)}
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
