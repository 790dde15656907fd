"""Cheater: careful's estimate shrunk toward zero under the distribution of effects the public parameters state.

prior.json beside this file (written when the submission was made) holds that distribution: the share of
experiments that is exactly zero and a histogram of the others (at the defaults a quarter at zero, the rest
uniform in [-0.05, 0.05]). The careful estimate and standard error give a normal likelihood; the posterior
(the point mass at zero and the histogram's cells) gives the central 95% interval and the median. When the
corpus's effects follow the stated distribution this beats an unshrunk interval; since generator 3.0 each
corpus draws its own with the secret.
"""

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

REFIRE_WINDOW_S = 600
LEVEL = 0.95


def refired(sessions: pd.DataFrame) -> pd.Series:
    bought = sessions[sessions["converted"] == 1]
    bought = bought.assign(when=pd.to_datetime(bought["visit_time"])).sort_values(["user_id", "when"], kind="stable")
    before = bought.groupby("user_id")[["when", "revenue"]].shift()
    again = (bought["revenue"] == before["revenue"]) & ((bought["when"] - before["when"]).dt.total_seconds() <= REFIRE_WINDOW_S)
    return again.reindex(sessions.index, fill_value=False)


def arm_rate(users: pd.DataFrame) -> tuple[float, float]:
    n, y = users["visits"].to_numpy(float), users["conversions"].to_numpy(float)
    m = len(n)
    rate = y.sum() / n.sum()
    variance = ((y - rate * n) ** 2).sum() / n.sum() ** 2 * m / (m - 1)
    return rate, variance


def careful(sessions: pd.DataFrame) -> tuple[float, float]:
    users = sessions.groupby(["arm", "user_id"])["converted"].agg(visits="size", conversions="sum").reset_index()
    rate_a, var_a = arm_rate(users[users["arm"] == "A"])
    rate_b, var_b = arm_rate(users[users["arm"] == "B"])
    return rate_b - rate_a, math.sqrt(var_a + var_b)


def posterior_interval(estimate: float, se: float, prior: dict) -> tuple[float, float, float]:
    """(median, low, high) of the posterior on the point mass at zero plus the histogram's cell centres."""
    points = np.append(np.asarray(prior["centres"], float), 0.0)
    weights = np.append(np.asarray(prior["weights"], float) * (1 - prior["null_share"]), prior["null_share"])
    log_like = -0.5 * ((estimate - points) / se) ** 2
    post = weights * np.exp(log_like - log_like.max())
    order = np.argsort(points)
    points, cumulative = points[order], np.cumsum(post[order]) / post.sum()
    tail = (1 - LEVEL) / 2

    def quantile(q: float) -> float:
        return float(points[min(np.searchsorted(cumulative, q), len(points) - 1)])

    return quantile(0.5), quantile(tail), quantile(1 - tail)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    prior = json.loads((Path(__file__).resolve().parent / "prior.json").read_text(encoding="utf-8"))
    sessions = pd.read_csv(args.input).drop_duplicates()
    estimate, se = careful(sessions[~refired(sessions)])
    median, low, high = posterior_interval(estimate, se, prior)
    result = {"effect": median, "ci_low": low, "ci_high": high}
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
