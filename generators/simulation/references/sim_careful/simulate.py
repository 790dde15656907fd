"""Reference `careful` of the packing-line take-home: independent replications, each with a warm-up deleted
that grows with the load, the run length set by the CPU budget, a t interval over the replication means.

64 replications run side by side (one numpy row each) from an empty line; each order's wait is the least
remaining work over the stations when it arrives (Kiefer-Wolfowitz), first come, first served. The first
orders of every replication (several relaxation times of the queue, estimated from the load and the
variability of the times) are dropped; the replication means are independent, so their spread gives an
honest interval however strongly consecutive waits are correlated.
"""

import argparse
import json
import math
import time

import numpy as np

REPLICATIONS = 64
CHUNK = 2048
# The run goes on until STOP_SHARE of the CPU budget is spent (measured, whatever this machine's speed: a careful
# candidate uses what it is given, keeping a margin for writing the result and for the cap's rounding). The
# warm-up is bounded by a deliberately slow guess of the speed, so it always ends well before the stop.
STOP_SHARE = 0.8
WARMUP_SHARE = 0.25  # of the budget, at the slow guess below, at most spent on the warm-up
STEP_SECONDS = {1: 10e-6, "more": 20e-6}  # one step advances every replication by one order (a slow guess)
STARTUP_SECONDS = 0.3  # what starting Python and numpy may take of the budget (a fixed guess)
MAX_STEPS = 10**9


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
    if kind == "lognormal":
        return rng.lognormal(spec["log_mu"], spec["log_sigma"], size)
    if kind == "deterministic_plus_noise":
        return spec["constant"] + rng.gamma(spec["noise_shape"], spec["noise_mean"] / spec["noise_shape"], size)
    raise ValueError(f"unknown distribution {kind!r}")


def mean_and_scv(spec):
    kind = spec["distribution"]
    if kind == "exponential":
        return spec["mean"], 1.0
    if kind == "erlang":
        return spec["mean"], 1.0 / spec["shape"]
    if kind == "hyperexponential":
        mean = sum(b["probability"] * b["mean"] for b in spec["branches"])
        second = sum(2 * b["probability"] * b["mean"] ** 2 for b in spec["branches"])
        return mean, second / mean**2 - 1
    if kind == "deterministic_plus_noise":
        mean = spec["constant"] + spec["noise_mean"]
        return mean, spec["noise_mean"] ** 2 / spec["noise_shape"] / mean**2
    mean = math.exp(spec["log_mu"] + spec["log_sigma"] ** 2 / 2)
    return mean, math.exp(spec["log_sigma"] ** 2) - 1


def plan(config):
    """(most steps, warm-up steps): the run stops on the budget, the warm-up several relaxation times."""
    stations = config["stations"]
    mean_gap, arrival_scv = mean_and_scv(config["interarrival"])
    mean_service, service_scv = mean_and_scv(config["service"])
    rho = mean_service / (stations * mean_gap)
    # Relaxation of the queue, in orders: rho / (1 - sqrt(rho))^2 for M/M/1, stretched by the variability.
    relaxation = (arrival_scv + service_scv) / 2 * rho / (1 - math.sqrt(rho)) ** 2
    seconds = max(0.05, WARMUP_SHARE * config["cpu_seconds"] - STARTUP_SECONDS)
    slow_steps = max(4000, int(seconds / STEP_SECONDS[1 if stations == 1 else "more"]))
    warmup = int(min(max(1000, 6 * relaxation), slow_steps))
    return MAX_STEPS, warmup


def replication_means(config, rng, steps, warmup):
    stations = config["stations"]
    work = np.zeros((REPLICATIONS, stations))  # remaining work at each station, least first
    sums = np.zeros(REPLICATIONS)
    counted = 0
    deadline = STOP_SHARE * config["cpu_seconds"]
    before = time.process_time()
    for start in range(0, steps, CHUNK):
        size = min(CHUNK, steps - start)
        service = draw(config["service"], rng, (size, REPLICATIONS))
        gaps = draw(config["interarrival"], rng, (size, REPLICATIONS))
        waits = np.empty((size, REPLICATIONS))
        for i in range(size):
            waits[i] = work[:, 0]
            work[:, 0] += service[i]
            work -= gaps[i][:, None]
            np.maximum(work, 0.0, out=work)
            if stations > 1:
                work.sort(axis=1)
        kept = waits[max(0, warmup - start):]
        sums += kept.sum(axis=0)
        counted += len(kept)
        now = time.process_time()
        # Stop before the chunk that would pass the deadline (a chunk costs more CPU on a loaded machine).
        if start + size > warmup and now + (now - before) > deadline:
            break
        before = now
    return sums / counted, counted


def t_quantile_975(df):
    """The 97.5% point of Student's t (Cornish-Fisher in 1/df; exact to 1e-4 for df >= 10)."""
    z = 1.959963984540054
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def closed_form(config):
    """The exact mean wait where a textbook formula gives it (Poisson arrivals with exponential times: Erlang C;
    Poisson arrivals at one station: Pollaczek-Khinchine), else None: a careful analyst uses what is known."""
    if config["interarrival"]["distribution"] != "exponential":
        return None
    rate = 1.0 / config["interarrival"]["mean"]
    stations = config["stations"]
    mean, scv = mean_and_scv(config["service"])
    rho = rate * mean / stations
    if rho >= 1:
        return None
    if config["service"]["distribution"] == "exponential":
        offered, blocking = rate * mean, 1.0
        for k in range(1, stations + 1):
            blocking = offered * blocking / (k + offered * blocking)
        return blocking / (1 - rho * (1 - blocking)) / (stations / mean - rate)
    if stations == 1:
        return rate * mean**2 * (1 + scv) / (2 * (1 - rho))
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    with open(args.config) as handle:
        config = json.load(handle)
    exact = closed_form(config)
    if exact is not None:
        with open(args.output, "w") as handle:
            json.dump({"estimate": exact, "ci_low": exact, "ci_high": exact}, handle)
        print(f"closed form: ESTIMATE: {exact:.4f} [{exact:.4f}, {exact:.4f}]")
        return
    rng = np.random.default_rng(config["seed"])
    steps, warmup = plan(config)
    means, per_replication = replication_means(config, rng, steps, warmup)
    estimate = float(means.mean())
    half = t_quantile_975(REPLICATIONS - 1) * float(means.std(ddof=1)) / math.sqrt(REPLICATIONS)
    result = {"estimate": estimate, "ci_low": estimate - half, "ci_high": estimate + half}
    with open(args.output, "w") as handle:
        json.dump(result, handle)
    print(f"{REPLICATIONS} replications of {per_replication} orders after a warm-up of {warmup}")
    print(f"ESTIMATE: {estimate:.4f} [{result['ci_low']:.4f}, {result['ci_high']:.4f}]")


if __name__ == "__main__":
    main()
