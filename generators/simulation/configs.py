"""Drawing the packing lines: the visible examples (from the seed) and the hidden configurations (from the
seed and the secret), spread over load bands, station counts and time distributions.

A configuration is what simulate.py reads: stations, an interarrival and a service distribution
(generators.simulation.distributions), a seed for the submission's random numbers and its CPU-time budget.
Families say which distributions a line has; the bands and the families are dealt in turn, so that light,
medium and heavy loads all mix regular, exponential and bursty arrivals, lognormal and constant-plus-noise
service, one station and several; most lines have no cheap exact method (version 2, issue 34).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from generators.simulation.distributions import (
    TimeDistribution,
    deterministic_plus_noise,
    erlang,
    exponential,
    hyperexponential,
    lognormal,
)

# (name, lowest utilisation, highest): a configuration's band is where its utilisation lies.
BANDS = (("light", 0.50, 0.70), ("medium", 0.70, 0.85), ("heavy", 0.85, 0.97))
TIME_UNIT = "minutes"


@dataclass(frozen=True)
class Family:
    name: str
    arrival: str  # poisson, erlang (regular), bursty (hyperexponential) or lognormal
    service: str  # exponential, erlang, hyperexponential, lognormal or deterministic_plus_noise
    stations: tuple[int, ...]


# Version 2 (issue 34): seven of ten families have no exact method that is cheap: a lognormal or a constant
# plus noise (not phase-type) with several stations or non-Poisson arrivals; their truth is a long reference
# simulation (generators.simulation.reference). Three keep an exact answer (Erlang C, Pollaczek-Khinchine, the
# phase-type chain), a minority, so knowing a formula helps on a few lines but cannot carry the headline.
FAMILIES = (
    Family("M/M/c", "poisson", "exponential", (1, 2, 3, 4)),
    Family("M/H2/1", "poisson", "hyperexponential", (1,)),
    Family("E2/H2/c", "erlang", "hyperexponential", (1, 2)),
    Family("M/LN/c", "poisson", "lognormal", (2, 3, 4)),
    Family("M/D+G/c", "poisson", "deterministic_plus_noise", (2, 3, 4)),
    Family("E2/LN/c", "erlang", "lognormal", (1, 2, 3)),
    Family("H2/D+G/c", "bursty", "deterministic_plus_noise", (1, 2, 3)),
    Family("LN/LN/c", "lognormal", "lognormal", (1, 2)),
    Family("H2/LN/c", "bursty", "lognormal", (2, 3, 4)),
    Family("E2/D+G/c", "erlang", "deterministic_plus_noise", (1, 2, 4)),
)
# The visible examples: (family, band, stations); example_1 is the one the visible step runs.
EXAMPLES = (("M/M/c", "heavy", 1), ("M/LN/c", "medium", 2), ("H2/D+G/c", "light", 1), ("E2/LN/c", "heavy", 2))


def band_of(utilisation: float) -> str:
    """The band a utilisation lies in (below the first band counts as light, above the last as heavy)."""
    for name, _, high in BANDS[:-1]:
        if utilisation < high:
            return name
    return BANDS[-1][0]


def _service(family: Family, mean: float, rng: np.random.Generator) -> TimeDistribution:
    if family.service == "exponential":
        return exponential(mean)
    if family.service == "erlang":
        return erlang(mean, 2)
    if family.service == "hyperexponential":
        return hyperexponential(mean, round(float(rng.uniform(2.0, 4.0)), 2))
    if family.service == "deterministic_plus_noise":
        # a fixed handling share of the mean and gamma noise (shape < 1: rare long delays); squared CV 0.03-1.2
        constant = round(mean * float(rng.uniform(0.4, 0.8)), 4)
        return deterministic_plus_noise(constant, round(mean - constant, 4), round(float(rng.uniform(0.3, 1.5)), 2))
    cv = round(float(rng.uniform(1.2, 1.8)), 2)  # at cv 1 its mean wait would be near the exponential's
    return lognormal(mean, round(cv * mean, 3))


def _interarrival(family: Family, mean: float, rng: np.random.Generator) -> TimeDistribution:
    if family.arrival == "poisson":
        return exponential(mean)
    if family.arrival == "erlang":
        return erlang(mean, 2)
    if family.arrival == "lognormal":
        return lognormal(mean, round(float(rng.uniform(0.5, 1.5)) * mean, 4))
    return hyperexponential(mean, round(float(rng.uniform(1.5, 2.5)), 2))


def draw_line(name: str, family: Family, band: tuple[str, float, float], stations: int, cpu_seconds: int,
              rng: np.random.Generator) -> dict[str, Any]:
    """One configuration of `family` whose utilisation lies in `band` (after the file's rounding)."""
    _, low, high = band
    target = float(rng.uniform(low, high))
    service = _service(family, round(float(rng.uniform(0.5, 3.0)), 2), rng)
    mean_gap = round(service.mean / (stations * target), 4)
    while service.mean / (stations * mean_gap) > high:
        mean_gap = round(mean_gap + 0.0001, 4)  # rounding pushed the load over the band's top
    interarrival = _interarrival(family, mean_gap, rng)
    return {
        "name": name,
        "stations": stations,
        "interarrival": dict(interarrival.spec),
        "service": dict(service.spec),
        "time_unit": TIME_UNIT,
        "seed": int(rng.integers(0, 2**31 - 1)),
        "cpu_seconds": cpu_seconds,
    }


def hidden_lines(count: int, cpu_seconds: int, seeds: np.random.SeedSequence) -> list[dict[str, Any]]:
    """`count` configurations: band i % 3, family i % 10 (every pair once in 30), names in a shuffled order."""
    rng = np.random.default_rng(seeds)
    plan = [(BANDS[i % len(BANDS)], FAMILIES[i % len(FAMILIES)]) for i in range(count)]
    order = rng.permutation(count)
    lines: list[dict[str, Any]] = [{} for _ in range(count)]
    for slot, (band, family) in zip(order, plan, strict=True):
        stations = int(rng.choice(family.stations))
        lines[int(slot)] = draw_line(configuration_name(int(slot)), family, band, stations, cpu_seconds, rng)
    return lines


def example_lines(cpu_seconds: int, seeds: np.random.SeedSequence,
                  examples: Sequence[tuple[str, str, int]] = EXAMPLES) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seeds)
    families = {f.name: f for f in FAMILIES}
    bands = {b[0]: b for b in BANDS}
    return [draw_line(example_name(i), families[family], bands[band], stations, cpu_seconds, rng)
            for i, (family, band, stations) in enumerate(examples)]


def configuration_name(index: int) -> str:
    return f"cfg_{index:03d}"


def example_name(index: int) -> str:
    return f"example_{index + 1}"
