"""Reference A/B analysis, careful: the user is the unit, and the logging fault is removed.

Users were assigned an arm once, so a user's visits are one cluster. The conversion rate
(converted visits over visits) is a ratio of per-user sums; its variance comes from the
spread of those sums across users (the delta method), not from the visit count. The log has
a fault with two faces, both dropped first: rows that repeat another row exactly (one user
cannot visit twice in the same second), and purchases that repeat the same user's previous
purchase, same amount, seconds later (the purchase event fired again, with a new timestamp).
Both show as a jump in one arm's sessions and purchases on a couple of days.
"""

import argparse
import json
import math

import pandas as pd

Z95 = 1.959963984540054
REFIRE_WINDOW_S = 600


def arm_rate(users: pd.DataFrame) -> tuple[float, float]:
    """Ratio estimate and its delta-method variance from per-user (visits, conversions)."""
    n, y = users["visits"].to_numpy(float), users["conversions"].to_numpy(float)
    m = len(n)
    rate = y.sum() / n.sum()
    residual = y - rate * n
    variance = (residual ** 2).sum() / n.sum() ** 2 * m / (m - 1)
    return rate, variance


def refired(sessions: pd.DataFrame) -> pd.Series:
    """True for a purchase with the same amount as its user's previous purchase, at most ten minutes before."""
    bought = sessions[sessions["converted"] == 1]
    bought = bought.assign(when=pd.to_datetime(bought["visit_time"])).sort_values(["user_id", "when"], kind="stable")
    before = bought.groupby("user_id")[["when", "revenue"]].shift()
    again = (bought["revenue"] == before["revenue"]) & ((bought["when"] - before["when"]).dt.total_seconds() <= REFIRE_WINDOW_S)
    return again.reindex(sessions.index, fill_value=False)


def per_user(sessions: pd.DataFrame) -> pd.DataFrame:
    return sessions.groupby(["arm", "user_id"])["converted"].agg(visits="size", conversions="sum").reset_index()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    sessions = pd.read_csv(args.input)
    deduplicated = sessions.drop_duplicates()
    print(f"dropped {len(sessions) - len(deduplicated)} exact duplicate rows")
    again = refired(deduplicated)
    deduplicated = deduplicated[~again]
    print(f"dropped {int(again.sum())} re-fired purchases")
    users = per_user(deduplicated)
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
