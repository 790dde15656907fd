"""The long-run mean wait in queue of a packing line, computed exactly: what the hidden truth is.

A line has `stations` identical stations fed from one first-come-first-served queue; orders arrive as a
renewal process. The mean time an order waits before a station starts on it (the long-run average over
orders, "Wq") is computed three ways:

- `erlang_c_wait`: exponential interarrival and service times (M/M/c), Erlang's C formula;
- `pollaczek_khinchine_wait`: Poisson arrivals and one station, any service time (M/G/1);
- `ctmc_wait`: phase-type interarrival and service times and any number of stations (no closed form):
  the queue as a continuous-time Markov chain over (orders present, arrival phase, how many busy stations
  are in each service phase), truncated at a level whose probability is negligible, its stationary
  distribution solved as a sparse linear system; Wq = (mean orders waiting) / (arrival rate) by Little's law.
  The truncation is raised until the answer moves by less than `CTMC_TOLERANCE` (relative) and the last
  levels hold less than `TAIL_MASS` of the probability: its error is far below any simulation's.

`mean_wait(config)` chooses: the closed forms where they apply, the chain otherwise.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from generators.errors import GeneratorError
from generators.simulation.distributions import EXPONENTIAL, PhaseType, TimeDistribution, read_distribution

ERLANG_C, POLLACZEK_KHINCHINE, CTMC = "erlang_c", "pollaczek_khinchine", "ctmc"
CTMC_TOLERANCE = 1e-9
TAIL_MASS = 1e-13
MAX_STATES = 2_000_000


class NotComputable(GeneratorError):
    """A configuration whose mean wait this module cannot compute exactly (unstable, or not phase-type)."""


@dataclass(frozen=True)
class Line:
    stations: int
    interarrival: TimeDistribution
    service: TimeDistribution

    @property
    def arrival_rate(self) -> float:
        return 1.0 / self.interarrival.mean

    @property
    def utilisation(self) -> float:
        return self.arrival_rate * self.service.mean / self.stations

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> Line:
        return cls(int(config["stations"]), read_distribution(config["interarrival"]), read_distribution(config["service"]))


@dataclass(frozen=True)
class ExactWait:
    wait: float  # long-run mean wait in queue, in the configuration's time unit
    method: str  # erlang_c, pollaczek_khinchine or ctmc
    levels: int | None = None  # the chain's truncation (orders present), for ctmc
    tail_mass: float | None = None  # probability of its last levels


def erlang_c_wait(arrival_rate: float, mean_service: float, stations: int) -> float:
    """Wq of M/M/c: P(wait) / (c mu - lambda), P(wait) by Erlang's C formula (in a stable recurrence)."""
    offered = arrival_rate * mean_service
    rho = offered / stations
    if rho >= 1:
        raise NotComputable(f"utilisation {rho:.4f} >= 1: the queue grows without bound")
    blocking = 1.0  # Erlang B by its recurrence: B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1))
    for k in range(1, stations + 1):
        blocking = offered * blocking / (k + offered * blocking)
    waiting = blocking / (1 - rho * (1 - blocking))
    return waiting / (stations / mean_service - arrival_rate)


def pollaczek_khinchine_wait(arrival_rate: float, service: TimeDistribution) -> float:
    """Wq of M/G/1: lambda E[S^2] / (2 (1 - rho))."""
    rho = arrival_rate * service.mean
    if rho >= 1:
        raise NotComputable(f"utilisation {rho:.4f} >= 1: the queue grows without bound")
    return arrival_rate * service.second_moment / (2 * (1 - rho))


def _combos(busy: int, phases: int) -> list[tuple[int, ...]]:
    """How `busy` stations can be spread over the service phases (counts per phase)."""
    return [c for c in itertools.product(range(busy + 1), repeat=phases) if sum(c) == busy]


class _Chain:
    """The truncated chain's generator, built level by level."""

    def __init__(self, line: Line, arrival: PhaseType, service: PhaseType) -> None:
        self.c, self.arrival, self.service = line.stations, arrival, service
        self.level_combos = [_combos(min(n, self.c), service.phases) for n in range(self.c + 1)]
        self.level_size = [arrival.phases * len(combos) for combos in self.level_combos]

    def size(self, n: int) -> int:
        return self.level_size[min(n, self.c)]

    def index(self, n: int, a: int, combo: tuple[int, ...]) -> int:
        combos = self.level_combos[min(n, self.c)]
        return a * len(combos) + combos.index(combo)

    def moves(self, n: int, top: int) -> list[tuple[int, int, int, float]]:
        """(from within level n, to level, to within it, rate) for every move out of level n."""
        found: list[tuple[int, int, int, float]] = []
        for a in range(self.arrival.phases):
            for combo in self.level_combos[min(n, self.c)]:
                here = self.index(n, a, combo)
                found.extend((here, *move) for move in self._arrival_moves(n, top, a, combo))
                found.extend((here, *move) for move in self._service_moves(n, a, combo))
        return found

    def _arrival_moves(self, n: int, top: int, a: int, combo: tuple[int, ...]) -> list[tuple[int, int, float]]:
        """The arrival process moving on a phase, or an order arriving (none at the truncation level)."""
        arrival, service = self.arrival, self.service
        found = [(n, self.index(n, b, combo), arrival.rates[a, b])
                 for b in range(arrival.phases) if b != a and arrival.rates[a, b] > 0]
        if n >= top or arrival.exits[a] <= 0:
            return found
        for b in (b for b in range(arrival.phases) if arrival.alpha[b] > 0):
            rate = arrival.exits[a] * arrival.alpha[b]
            if n < self.c:  # a station is free: it starts on the order at once
                found.extend((n + 1, self.index(n + 1, b, _bump(combo, j, 1)), rate * service.alpha[j])
                             for j in range(service.phases) if service.alpha[j] > 0)
            else:
                found.append((n + 1, self.index(n + 1, b, combo), rate))
        return found

    def _service_moves(self, n: int, a: int, combo: tuple[int, ...]) -> list[tuple[int, int, float]]:
        """A busy station's order moving to another service phase, or a station finishing its order."""
        service = self.service
        found: list[tuple[int, int, float]] = []
        for i, busy in enumerate(combo):
            if not busy:
                continue
            found.extend((n, self.index(n, a, _bump(_bump(combo, i, -1), j, 1)), busy * service.rates[i, j])
                         for j in range(service.phases) if j != i and service.rates[i, j] > 0)
            if service.exits[i] <= 0:
                continue
            rate, left = busy * service.exits[i], _bump(combo, i, -1)
            if n > self.c:  # an order was waiting: it starts at the station that came free
                found.extend((n - 1, self.index(n - 1, a, _bump(left, j, 1)), rate * service.alpha[j])
                             for j in range(service.phases) if service.alpha[j] > 0)
            else:
                found.append((n - 1, self.index(n - 1, a, left), rate))
        return found

    def stationary_levels(self, top: int) -> np.ndarray:
        """P(n orders present) for n = 0..top, the chain truncated at `top` (arrivals there are lost)."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.linalg import spsolve

        sizes = [self.size(n) for n in range(top + 1)]
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        total = int(offsets[-1])
        if total > MAX_STATES:
            raise NotComputable(f"the chain needs more than {MAX_STATES} states")
        parts = [self._level_entries(n, top, offsets) for n in range(min(top, self.c + 1) + 1)]
        if top > self.c + 2:  # levels c+2 .. top-1 move as level c+1 does: its entries shifted, not rebuilt
            base = self._moves_array(self.c + 1, top)
            levels = np.arange(self.c + 2, top)
            shift = (offsets[levels] - offsets[self.c + 1])[:, None]
            parts.append((
                (base[0][None, :] + offsets[self.c + 1] + shift).ravel(),
                (base[1][None, :] + offsets[self.c + 1] + shift).ravel(),
                np.broadcast_to(base[2], (len(levels), len(base[2]))).ravel(),
            ))
        if top > self.c + 1:
            parts.append(self._level_entries(top, top, offsets))
        rows = np.concatenate([p[0] for p in parts])
        cols = np.concatenate([p[1] for p in parts])
        vals = np.concatenate([p[2] for p in parts])
        out = np.bincount(rows, weights=vals, minlength=total)
        # Balance: pi Q = 0, i.e. Q^T pi = 0. One equation is redundant: replaced by pi[0] = 1 (a sparse row; a
        # dense normalisation row would fill the whole factorisation), normalised afterwards.
        keep = cols != 0
        t_rows = np.concatenate([cols[keep], np.arange(1, total), [0]])
        t_cols = np.concatenate([rows[keep], np.arange(1, total), [0]])
        t_vals = np.concatenate([vals[keep], -out[1:], [1.0]])
        system = coo_matrix((t_vals, (t_rows, t_cols)), shape=(total, total)).tocsc()
        rhs = np.zeros(total)
        rhs[0] = 1.0
        pi = spsolve(system, rhs)
        pi = pi / pi.sum()
        return np.add.reduceat(pi, offsets[:-1])

    def _moves_array(self, n: int, top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Level n's moves relative to level n's start: (from, to, rate), `to` counted from level n's start."""
        moves = self.moves(n, top)
        here = np.array([i for i, _, _, _ in moves], dtype=np.int64)
        delta = {n - 1: -self.size(n - 1) if n > 0 else 0, n: 0, n + 1: self.size(n)}
        there = np.array([delta[to] + j for _, to, j, _ in moves], dtype=np.int64)
        return here, there, np.array([r for _, _, _, r in moves], dtype=float)

    def _level_entries(self, n: int, top: int, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        moves = self.moves(n, top)
        return (np.array([offsets[n] + i for i, _, _, _ in moves], dtype=np.int64),
                np.array([offsets[to] + j for _, to, j, _ in moves], dtype=np.int64),
                np.array([r for _, _, _, r in moves], dtype=float))


def _bump(combo: tuple[int, ...], phase: int, by: int) -> tuple[int, ...]:
    return tuple(count + by if k == phase else count for k, count in enumerate(combo))


def ctmc_wait(line: Line) -> ExactWait:
    """Wq of a line with phase-type times, from its truncated chain (raised until the answer settles)."""
    arrival, service = line.interarrival.phase_type(), line.service.phase_type()
    if arrival is None or service is None:
        raise NotComputable("the chain needs phase-type interarrival and service times")
    rho = line.utilisation
    if rho >= 1:
        raise NotComputable(f"utilisation {rho:.4f} >= 1: the queue grows without bound")
    chain = _Chain(line, arrival, service)
    # The number present decays about geometrically, at a rate set by the load and the variability.
    spread = max(0.2, (line.interarrival.scv + line.service.scv) / 2)
    decay = 1 - (1 - rho) / (spread * rho)
    top = line.stations + max(50, int(math.ceil(-math.log(TAIL_MASS) / -math.log(max(decay, 1e-9)))))
    previous = None
    while True:
        levels = chain.stationary_levels(top)
        waiting = float(np.dot(np.maximum(np.arange(top + 1) - line.stations, 0), levels))
        wait = waiting / line.arrival_rate
        tail = float(levels[-10:].sum())
        if previous is not None and abs(wait - previous) <= CTMC_TOLERANCE * wait and tail < TAIL_MASS:
            return ExactWait(wait, CTMC, top, tail)
        previous, top = wait, top * 2


def exactly_computable(line: Line) -> bool:
    """Whether `mean_wait` computes this line: a closed form applies, or both times are phase-type."""
    poisson = line.interarrival.kind == EXPONENTIAL
    if poisson and (line.service.kind == EXPONENTIAL or line.stations == 1):
        return True
    return line.interarrival.phase_type() is not None and line.service.phase_type() is not None


def mean_wait(config: Mapping[str, Any]) -> ExactWait:
    """The exact long-run mean wait in queue of a configuration (the closed form where one applies)."""
    line = Line.of(config)
    poisson = line.interarrival.kind == EXPONENTIAL
    if poisson and line.service.kind == EXPONENTIAL:
        return ExactWait(erlang_c_wait(line.arrival_rate, line.service.mean, line.stations), ERLANG_C)
    if poisson and line.stations == 1:
        return ExactWait(pollaczek_khinchine_wait(line.arrival_rate, line.service), POLLACZEK_KHINCHINE)
    return ctmc_wait(line)
