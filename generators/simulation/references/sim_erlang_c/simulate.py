"""Degenerate baseline of the packing-line take-home: the formula of the wrong model.

Erlang's C formula for the right number of stations, as if interarrival and service times were exponential
(M/M/c), whatever their distributions. A formula has no sampling error: the interval has no width. Exact for
the exponential lines, wrong for every other.
"""

import argparse
import json
import math


def mean_of(spec):
    if spec["distribution"] == "hyperexponential":
        return sum(b["probability"] * b["mean"] for b in spec["branches"])
    if spec["distribution"] == "lognormal":
        return math.exp(spec["log_mu"] + spec["log_sigma"] ** 2 / 2)
    return spec["mean"]


def erlang_c_wait(arrival_rate, mean_service, stations):
    offered = arrival_rate * mean_service
    rho = offered / stations
    blocking = 1.0
    for k in range(1, stations + 1):
        blocking = offered * blocking / (k + offered * blocking)
    waiting = blocking / (1 - rho * (1 - blocking))
    return waiting / (stations / mean_service - arrival_rate)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    with open(args.config) as handle:
        config = json.load(handle)
    wait = erlang_c_wait(1 / mean_of(config["interarrival"]), mean_of(config["service"]), config["stations"])
    with open(args.output, "w") as handle:
        json.dump({"estimate": wait, "ci_low": wait, "ci_high": wait}, handle)
    print(f"ESTIMATE: {wait:.4f} [{wait:.4f}, {wait:.4f}]")


if __name__ == "__main__":
    main()
