"""The truth of a line no exact method computes cheaply: a long reference simulation at generation time,
seeded from the secret, whose own standard error is written beside the wait.

A line whose interarrival or service time is not phase-type (a lognormal, a constant plus noise) with several
stations or non-Poisson arrivals has no closed form and no finite Markov chain. Its long-run mean wait is
estimated by `REPLICATIONS` independent replications run side by side (one numpy column each: the
Kiefer-Wolfowitz recursion over the stations' remaining work, first come, first served), each started empty,
its first `WARMUP_RELAXATIONS` relaxation times deleted (many more than a careful submission deletes: the
bias left is far below the sampling error), the replication means averaged. With `orders` orders in all
(`SimParams.reference_millions`) the standard error is about `sd(replication mean) / sqrt(REPLICATIONS)`;
the calibration checks it against a tenth of careful's half-width.

Why this is fair: the reference spends about 30 ns an order (a thousand replications a numpy step), far more
orders than a submission's budget allows, so its error is small next to any submission's interval; the seed
comes from the secret, so nothing public reproduces the reference's own noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from generators.simulation.distributions import (
    DETERMINISTIC_PLUS_NOISE,
    ERLANG,
    EXPONENTIAL,
    HYPEREXPONENTIAL,
    TimeDistribution,
)
from generators.simulation.queueing import Line

REPLICATIONS = 1024
CHUNK = 256  # orders drawn at once per replication
WARMUP_RELAXATIONS = 12
MIN_WARMUP = 2000


@dataclass(frozen=True)
class SimulatedWait:
    wait: float  # long-run mean wait in queue estimated by the reference simulation
    standard_error: float  # of `wait`, from the spread of the replication means
    orders: int  # simulated in all, warm-up included
    warmup: int  # orders deleted from the start of each replication


def draw(time: TimeDistribution, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """`shape` independent draws of one time distribution."""
    s = time.spec
    if time.kind == EXPONENTIAL:
        return rng.exponential(float(s["mean"]), shape)
    if time.kind == ERLANG:
        k = int(s["shape"])
        return rng.gamma(k, float(s["mean"]) / k, shape)
    if time.kind == HYPEREXPONENTIAL:
        probabilities = np.array([float(b["probability"]) for b in s["branches"]])
        means = np.array([float(b["mean"]) for b in s["branches"]])
        cumulative = np.cumsum(probabilities / probabilities.sum())
        branch = np.minimum(np.searchsorted(cumulative, rng.random(shape)), len(means) - 1)
        return rng.exponential(1.0, shape) * means[branch]
    if time.kind == DETERMINISTIC_PLUS_NOISE:
        noise_shape = float(s["noise_shape"])
        return float(s["constant"]) + rng.gamma(noise_shape, float(s["noise_mean"]) / noise_shape, shape)
    return rng.lognormal(float(s["log_mu"]), float(s["log_sigma"]), shape)


def relaxation_orders(line: Line) -> float:
    """The queue's relaxation time in orders: rho / (1 - sqrt(rho))^2 (M/M/1's), stretched by variability."""
    rho = line.utilisation
    return (line.interarrival.scv + line.service.scv) / 2 * rho / (1 - math.sqrt(rho)) ** 2


def simulate_wait(line: Line, orders: int, rng: np.random.Generator, replications: int = REPLICATIONS) -> SimulatedWait:
    """The reference estimate of a line's mean wait in queue from `orders` simulated orders."""
    per_replication = max(CHUNK, orders // replications)
    warmup = int(min(max(MIN_WARMUP, WARMUP_RELAXATIONS * relaxation_orders(line)), per_replication // 2))
    work = np.zeros((line.stations, replications))  # remaining work per station, least first (row 0)
    sums = np.zeros(replications)
    for start in range(0, per_replication, CHUNK):
        size = min(CHUNK, per_replication - start)
        service = draw(line.service, rng, (size, replications))
        gaps = draw(line.interarrival, rng, (size, replications))
        for i in range(size):
            if start + i >= warmup:
                sums += work[0]
            work[0] += service[i]
            for j in range(line.stations - 1):  # only row 0 grew: one pass puts it back in order
                low = np.minimum(work[j], work[j + 1])
                np.maximum(work[j], work[j + 1], out=work[j + 1])
                work[j] = low
            work -= gaps[i]
            np.maximum(work, 0.0, out=work)
    means = sums / (per_replication - warmup)
    return SimulatedWait(float(means.mean()), float(means.std(ddof=1) / math.sqrt(replications)),
                         per_replication * replications, warmup)
