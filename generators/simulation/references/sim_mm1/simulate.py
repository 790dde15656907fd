"""Degenerate baseline of the packing-line take-home: the formula of the wrong model.

The line as one station doing the work of all of them (mean service time over the stations), with
exponential interarrival and service times: M/M/1's Wq = rho / (1 - rho) * mean service, whatever the
distributions and the number of stations. A formula has no sampling error: the interval has no width.
Exact only for a one-station line with exponential times.
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    with open(args.config) as handle:
        config = json.load(handle)
    service = mean_of(config["service"]) / config["stations"]
    rho = service / mean_of(config["interarrival"])
    wait = rho / (1 - rho) * service
    with open(args.output, "w") as handle:
        json.dump({"estimate": wait, "ci_low": wait, "ci_high": wait}, handle)
    print(f"ESTIMATE: {wait:.4f} [{wait:.4f}, {wait:.4f}]")


if __name__ == "__main__":
    main()
