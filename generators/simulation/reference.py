"""The truth of a line no exact method computes cheaply: a long reference simulation at generation time,
seeded from the secret, whose own standard error is written beside the wait.

A line whose interarrival or service time is not phase-type (a lognormal, a constant plus noise) with several
stations or non-Poisson arrivals has no closed form and no finite Markov chain. Its long-run mean wait is
estimated by `REPLICATIONS` independent replications run side by side (one numpy column each: the
Kiefer-Wolfowitz recursion over the stations' remaining work, first come, first served), each started empty,
its first `WARMUP_RELAXATIONS` relaxation times deleted (many more than a careful submission deletes: the
bias left is far below the sampling error). The replication means are combined with two control variates
(since simulation-2.1): each replication's mean service time and mean gap over the same orders, whose true
means the configuration states. A replication that drew long services and short gaps waited longer for that
reason alone; regressing the replication means on those two deviations and taking the intercept (the
estimate at zero deviation: Lavenberg and Welch's control-variate estimator) removes that part of the noise.
In heavy traffic the wait is a reflected random walk and its drift explains half the variance of a long
run's mean, so the gain tends to 2; measured on the 33 simulated lines of the public corpus, 1.45 to 2.08, median 1.81 (the same orders worth
that many times as many; bench/sim_control_variates.py). The standard error is the intercept's, from the residuals
(REPLICATIONS - 3 degrees of freedom); the calibration checks it against a tenth of careful's half-width.

Why this is fair: the reference spends about 30 to 45 ns an order (a thousand replications a numpy step), far more
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
ESTIMATOR = "control variates: mean service, mean gap"  # part of every kept line's key
# A line's orders, as a share of the corpus's `reference_millions`, by its number of stations (more stations: the
# last share). The truth's error must stay under a tenth of careful's half-width on every line, and a
# submission's speed falls with the stations faster than the reference's (careful sorts its stations every
# order), so one-station lines are where careful is narrowest. Measured on the public corpus at 5,000 million
# orders each, with the controls (bench/sim_control_variates.py, docs/tasks.md): the ratio's largest was 0.106
# at one station, 0.094 at two, 0.078 at three or four; these shares even them out near 0.087 for about 1.13
# times the orders of one share each.
ORDERS_BY_STATIONS = ((1, 1.5), (2, 1.15))
OTHER_STATIONS_SHARE = 0.85


@dataclass(frozen=True)
class SimulatedWait:
    wait: float  # long-run mean wait in queue estimated by the reference simulation (control variates applied)
    standard_error: float  # of `wait`, from the residuals of the replication means on the controls
    orders: int  # simulated in all, warm-up included
    warmup: int  # orders deleted from the start of each replication
    variance_ratio: float  # the replication means' variance over the residuals': what the controls gained


@dataclass(frozen=True)
class Replications:
    """Each replication's mean wait, and its mean service time and mean gap over the same orders."""

    waits: np.ndarray
    services: np.ndarray
    gaps: np.ndarray
    orders: int
    warmup: int

    def controls(self, line: Line) -> list[np.ndarray]:
        """Each replication's mean service time and mean gap less their true means: deviations of mean zero."""
        return [self.services - line.service.mean, self.gaps - line.interarrival.mean]


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


def sized_orders(line: Line, orders: int) -> int:
    """The orders a line's reference simulates out of a corpus's `orders` a line (ORDERS_BY_STATIONS)."""
    share = dict(ORDERS_BY_STATIONS).get(line.stations, OTHER_STATIONS_SHARE)
    return max(1, round(orders * share))


def simulate_wait(line: Line, orders: int, rng: np.random.Generator, replications: int = REPLICATIONS) -> SimulatedWait:
    """The reference estimate of a line's mean wait in queue from `orders` simulated orders."""
    run = replicate(line, orders, rng, replications)
    wait, standard_error, variance_ratio = controlled_mean(run.waits, run.controls(line))
    return SimulatedWait(wait, standard_error, run.orders, run.warmup, variance_ratio)


def replicate(line: Line, orders: int, rng: np.random.Generator, replications: int = REPLICATIONS) -> Replications:
    """`replications` independent runs of the line from empty, about `orders` orders in all, each one's means
    over the orders after its warm-up."""
    per_replication = max(CHUNK, orders // replications)
    warmup = int(min(max(MIN_WARMUP, WARMUP_RELAXATIONS * relaxation_orders(line)), per_replication // 2))
    work = np.zeros((line.stations, replications))  # remaining work per station, least first (row 0)
    sums, service_sums, gap_sums = np.zeros(replications), np.zeros(replications), np.zeros(replications)
    for start in range(0, per_replication, CHUNK):
        size = min(CHUNK, per_replication - start)
        service = draw(line.service, rng, (size, replications))
        gaps = draw(line.interarrival, rng, (size, replications))
        unsummed = max(0, warmup - start)
        _advance(work, sums, service, gaps, unsummed)
        if unsummed < size:  # the controls over the very orders whose waits are summed
            service_sums += service[unsummed:].sum(axis=0)
            gap_sums += gaps[unsummed:].sum(axis=0)
    kept = per_replication - warmup
    return Replications(sums / kept, service_sums / kept, gap_sums / kept, per_replication * replications, warmup)


def controlled_mean(values: np.ndarray, controls: list[np.ndarray]) -> tuple[float, float, float]:
    """The control-variate estimate of the mean of `values` (one per independent replication), its standard
    error and the variance ratio it gained: the intercept of the least-squares fit of `values` on `controls`,
    each a deviation whose true mean is zero. A control that does not vary is left out (it explains nothing)."""
    varying = [c for c in controls if np.ptp(c) > 0]
    design = np.column_stack([np.ones(len(values)), *varying])
    coefficients, *_ = np.linalg.lstsq(design, values, rcond=None)
    residuals = values - design @ coefficients
    dof = len(values) - design.shape[1]
    residual_variance = float(residuals @ residuals) / dof
    standard_error = math.sqrt(residual_variance * float(np.linalg.inv(design.T @ design)[0, 0]))
    plain_variance = float(values.var(ddof=1))
    ratio = plain_variance / residual_variance if residual_variance > 0 else 1.0
    return float(coefficients[0]), standard_error, ratio


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
