"""Reference A/B analysis, half careful: the user is the unit, but the logging fault is missed.

Users were assigned an arm once, so a user's visits are one cluster. The conversion rate
(converted visits over visits) is a ratio of per-user sums; its variance comes from the
spread of those sums across users (the delta method), not from the visit count. The log is
taken as it is: rows written twice by a logging fault stay in and bias the estimate.
"""

import argparse
import json
import math

import pandas as pd

Z95 = 1.959963984540054


def arm_rate(users: pd.DataFrame) -> tuple[float, float]:
    """Ratio estimate and its delta-method variance from per-user (visits, conversions)."""
    n, y = users["visits"].to_numpy(float), users["conversions"].to_numpy(float)
    m = len(n)
    rate = y.sum() / n.sum()
    residual = y - rate * n
    variance = (residual ** 2).sum() / n.sum() ** 2 * m / (m - 1)
    return rate, variance


def per_user(sessions: pd.DataFrame) -> pd.DataFrame:
    return sessions.groupby(["arm", "user_id"])["converted"].agg(visits="size", conversions="sum").reset_index()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    sessions = pd.read_csv(args.input)
    users = per_user(sessions)  # every row taken as logged
    print("users per arm:", users.groupby("arm").size().to_dict())
    rate_a, var_a = arm_rate(users[users["arm"] == "A"])
    rate_b, var_b = arm_rate(users[users["arm"] == "B"])
    effect = rate_b - rate_a
    se = math.sqrt(var_a + var_b)
    result = {"effect": float(effect), "ci_low": float(effect - Z95 * se), "ci_high": float(effect + Z95 * se)}
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
