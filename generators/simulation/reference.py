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
    """`shape` independent draws of one time distribution.

    The standard draws scaled here are bit for bit what numpy's scaled methods return (`exponential(m)` is
    `m * standard_exponential()`, `gamma(k, s)` is `s * standard_gamma(k)`: the same stream, the same product),
    without their per-draw parameter handling; every truth ever made stays what it was."""
    s = time.spec
    if time.kind == EXPONENTIAL:
        return rng.standard_exponential(shape) * float(s["mean"])
    if time.kind == ERLANG:
        k = int(s["shape"])
        return rng.standard_gamma(k, shape) * (float(s["mean"]) / k)
    if time.kind == HYPEREXPONENTIAL:
        probabilities = np.array([float(b["probability"]) for b in s["branches"]])
        means = np.array([float(b["mean"]) for b in s["branches"]])
        cumulative = np.cumsum(probabilities / probabilities.sum())
        branch = _branch(rng.random(shape), cumulative)  # drawn before the exponentials: the stream's order
        return rng.standard_exponential(shape) * means[branch]
    if time.kind == DETERMINISTIC_PLUS_NOISE:
        noise_shape = float(s["noise_shape"])
        return float(s["constant"]) + rng.standard_gamma(noise_shape, shape) * (float(s["noise_mean"]) / noise_shape)
    return rng.lognormal(float(s["log_mu"]), float(s["log_sigma"]), shape)


def _branch(uniform: np.ndarray, cumulative: np.ndarray) -> np.ndarray:
    """The branch each uniform draw picks: how many cumulative probabilities lie below it, the last one left out
    (a draw above it, where rounding left the sum under 1, picks the last branch). The very indices a
    `searchsorted` clamped to the last branch gives, at a third of its cost."""
    branch = np.zeros(uniform.shape, dtype=np.intp)
    for edge in cumulative[:-1]:
        branch += uniform > edge
    return branch


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
        _advance(work, sums, service, gaps, max(0, warmup - start))
    means = sums / (per_replication - warmup)
    return SimulatedWait(float(means.mean()), float(means.std(ddof=1) / math.sqrt(replications)),
                         per_replication * replications, warmup)


def _advance(work: np.ndarray, sums: np.ndarray, service: np.ndarray, gaps: np.ndarray, unsummed: int) -> None:
    """One chunk of orders through the Kiefer-Wolfowitz recursion, in place: order i waits for the least
    remaining work (row 0; added to `sums` from order `unsummed` on) and brings its service there; the rows are
    put back in order; the gap to the next order runs every station down (not below zero).

    Written for speed (generation spends a third of its time here, the draws the rest): each row a view bound
    once, every ufunc writing in place, and the reordering done as an insertion. With x the grown row 0 and
    r_1 <= ... <= r_c-1 the others, the j-th of the sorted rows is min(max(x, r_j), r_j+1) (min(x, r_1) first,
    max(x, r_c-1) last): two ufuncs a row where a pass of compare-and-swap takes three. A minimum or maximum
    returns one of its operands, so the rows hold the very same numbers as before, bit for bit."""
    rows = list(work)
    first = rows[0]
    add, subtract, minimum, maximum = np.add, np.subtract, np.minimum, np.maximum
    grown, between = np.empty_like(first), np.empty_like(first)
    middle = list(zip(rows[1:-1], rows[2:], strict=True))  # (r_j, r_j+1) for the rows between the first and last
    for i in range(len(service)):
        if i >= unsummed:
            add(sums, first, out=sums)
        if len(rows) == 1:
            add(first, service[i], out=first)
        else:
            add(first, service[i], out=grown)
            minimum(grown, rows[1], out=first)
            for row, above in middle:  # bottom up: r_j is overwritten only after its own use
                maximum(grown, row, out=between)
                minimum(between, above, out=row)
            maximum(grown, rows[-1], out=rows[-1])
        subtract(work, gaps[i], out=work)
        maximum(work, 0.0, out=work)
