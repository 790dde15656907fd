"""Reference `careless` of the packing-line take-home: one run of 20,000 orders from an empty line, the mean
of every wait, and the textbook interval as if the waits were independent.

It ignores the CPU budget and the load: at heavy load 20,000 orders are not long enough for the line to
forget that it started empty (the estimate is biased low), and the interval is far too narrow.
"""

import argparse
import heapq
import json
import math

import numpy as np

ORDERS = 20_000


def draw(spec, rng, size):
    kind = spec["distribution"]
    if kind == "exponential":
        return rng.exponential(spec["mean"], size)
    if kind == "erlang":
        return rng.gamma(spec["shape"], spec["mean"] / spec["shape"], size)
    if kind == "hyperexponential":
        probabilities = np.array([b["probability"] for b in spec["branches"]], dtype=float)
        means = np.array([b["mean"] for b in spec["branches"]], dtype=float)
        branch = rng.choice(len(means), p=probabilities / probabilities.sum(), size=size)
        return rng.exponential(1.0, size) * means[branch]
    if kind == "deterministic_plus_noise":
        return spec["constant"] + rng.gamma(spec["noise_shape"], spec["noise_mean"] / spec["noise_shape"], size)
    return rng.lognormal(spec["log_mu"], spec["log_sigma"], size)


def waits(config, rng):
    arrivals = np.cumsum(draw(config["interarrival"], rng, ORDERS))
    service = draw(config["service"], rng, ORDERS)
    free_at = [0.0] * config["stations"]  # when each station is next free
    found = []
    for arrival, work in zip(arrivals.tolist(), service.tolist()):
        earliest = heapq.heappop(free_at)
        start = max(arrival, earliest)
        found.append(start - arrival)
        heapq.heappush(free_at, start + work)
    return np.array(found)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    with open(args.config) as handle:
        config = json.load(handle)
    w = waits(config, np.random.default_rng(config["seed"]))
    estimate = float(w.mean())
    half = 1.96 * float(w.std(ddof=1)) / math.sqrt(len(w))
    with open(args.output, "w") as handle:
        json.dump({"estimate": estimate, "ci_low": estimate - half, "ci_high": estimate + half}, handle)
    print(f"simulated {len(w)} orders")
    print(f"ESTIMATE: {estimate:.4f} [{estimate - half:.4f}, {estimate + half:.4f}]")


if __name__ == "__main__":
    main()
