"""The time distributions of the packing-line take-home: how a configuration file writes them, their
moments, and each as a phase-type distribution (where it is one) for the exact queue computation.

A configuration names an interarrival and a service distribution as a JSON object with a `distribution`
key. Four kinds exist:

- `exponential`: `mean`;
- `erlang`: `mean` and `shape` k, the sum of k exponential stages of mean `mean / k` (less variable);
- `hyperexponential`: `branches`, each `{"probability", "mean"}`: with that probability the time is
  exponential with that mean (more variable than an exponential, a heavier tail);
- `lognormal`: `log_mu` and `log_sigma`, the mean and standard deviation of the time's logarithm
  (`mean` and `sd` of the time itself are written beside them for reading);
- `deterministic_plus_noise`: `constant` plus a gamma-distributed `noise` of mean `noise_mean` and shape
  `noise_shape` (a fixed handling time and a variable part; `mean` and `sd` written beside them).

Every kind but the last two is phase-type: a continuous-time Markov chain over a few phases, which is what
makes the queue's long-run behaviour exactly computable (generators.simulation.queueing).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from generators.errors import InvalidParameter

EXPONENTIAL, ERLANG, HYPEREXPONENTIAL, LOGNORMAL = "exponential", "erlang", "hyperexponential", "lognormal"
DETERMINISTIC_PLUS_NOISE = "deterministic_plus_noise"
KINDS = (EXPONENTIAL, ERLANG, HYPEREXPONENTIAL, LOGNORMAL, DETERMINISTIC_PLUS_NOISE)


@dataclass(frozen=True)
class PhaseType:
    """A phase-type distribution: start in phase i with probability alpha[i]; T the sub-generator."""

    alpha: np.ndarray
    rates: np.ndarray  # T (phases x phases): off-diagonal moves, diagonal minus the total rate out

    @property
    def exits(self) -> np.ndarray:
        """The rate of finishing from each phase."""
        return -self.rates.sum(axis=1)

    @property
    def phases(self) -> int:
        return len(self.alpha)


@dataclass(frozen=True)
class TimeDistribution:
    """One distribution as a configuration file writes it (`spec`), with its mean and second moment."""

    spec: Mapping[str, Any]

    @property
    def kind(self) -> str:
        return str(self.spec["distribution"])

    @property
    def mean(self) -> float:
        s = self.spec
        if self.kind in (EXPONENTIAL, ERLANG):
            return float(s["mean"])
        if self.kind == HYPEREXPONENTIAL:
            return sum(float(b["probability"]) * float(b["mean"]) for b in s["branches"])
        if self.kind == DETERMINISTIC_PLUS_NOISE:
            return float(s["constant"]) + float(s["noise_mean"])
        return math.exp(float(s["log_mu"]) + float(s["log_sigma"]) ** 2 / 2)

    @property
    def second_moment(self) -> float:
        s = self.spec
        if self.kind == EXPONENTIAL:
            return 2 * float(s["mean"]) ** 2
        if self.kind == ERLANG:
            k = int(s["shape"])
            return float(s["mean"]) ** 2 * (k + 1) / k
        if self.kind == HYPEREXPONENTIAL:
            return sum(2 * float(b["probability"]) * float(b["mean"]) ** 2 for b in s["branches"])
        if self.kind == DETERMINISTIC_PLUS_NOISE:
            noise_var = float(s["noise_mean"]) ** 2 / float(s["noise_shape"])
            return self.mean**2 + noise_var
        return math.exp(2 * float(s["log_mu"]) + 2 * float(s["log_sigma"]) ** 2)

    @property
    def scv(self) -> float:
        """Squared coefficient of variation: variance over mean squared (1 for the exponential)."""
        return self.second_moment / self.mean**2 - 1

    def phase_type(self) -> PhaseType | None:
        """The distribution as a phase-type one; None for the lognormal and a constant plus noise (not phase-type)."""
        s = self.spec
        if self.kind == EXPONENTIAL:
            return PhaseType(np.array([1.0]), np.array([[-1.0 / float(s["mean"])]]))
        if self.kind == ERLANG:
            k = int(s["shape"])
            rate = k / float(s["mean"])
            rates = np.diag(np.full(k, -rate)) + np.diag(np.full(k - 1, rate), 1)
            return PhaseType(np.eye(k)[0], rates)
        if self.kind == HYPEREXPONENTIAL:
            branches = s["branches"]
            alpha = np.array([float(b["probability"]) for b in branches])
            return PhaseType(alpha, np.diag([-1.0 / float(b["mean"]) for b in branches]))
        return None


def exponential(mean: float) -> TimeDistribution:
    return TimeDistribution({"distribution": EXPONENTIAL, "mean": mean})


def erlang(mean: float, shape: int) -> TimeDistribution:
    if shape < 2:
        raise InvalidParameter(f"an Erlang distribution needs shape >= 2, got {shape}")
    return TimeDistribution({"distribution": ERLANG, "mean": mean, "shape": shape})


def hyperexponential(mean: float, scv: float) -> TimeDistribution:
    """Two exponential branches with balanced means (p1 m1 = p2 m2), rounded to what the file holds."""
    if scv <= 1:
        raise InvalidParameter(f"a hyperexponential distribution needs a squared CV above 1, got {scv}")
    p = 0.5 * (1 + math.sqrt((scv - 1) / (scv + 1)))
    p = round(p, 4)
    branches = [{"probability": p, "mean": round(mean / (2 * p), 4)},
                {"probability": round(1 - p, 4), "mean": round(mean / (2 * (1 - p)), 4)}]
    spec = {"distribution": HYPEREXPONENTIAL, "branches": branches}
    return TimeDistribution({**spec, "mean": round(TimeDistribution(spec).mean, 6)})


def lognormal(mean: float, sd: float) -> TimeDistribution:
    """Written with the log's parameters (what defines it) and the mean and sd they give (for reading)."""
    sigma2 = math.log(1 + (sd / mean) ** 2)
    log_mu, log_sigma = math.log(mean) - sigma2 / 2, math.sqrt(sigma2)
    return TimeDistribution({"distribution": LOGNORMAL, "log_mu": log_mu, "log_sigma": log_sigma,
                             "mean": mean, "sd": sd})


def deterministic_plus_noise(constant: float, noise_mean: float, noise_shape: float) -> TimeDistribution:
    """A fixed time plus gamma noise (shape below 1: a few long delays; above: a milder spread)."""
    if constant <= 0 or noise_mean <= 0 or noise_shape <= 0:
        raise InvalidParameter("a deterministic-plus-noise time needs a positive constant, noise mean and shape")
    spec = {"distribution": DETERMINISTIC_PLUS_NOISE, "constant": constant, "noise_mean": noise_mean,
            "noise_shape": noise_shape}
    time = TimeDistribution(spec)
    return TimeDistribution({**spec, "mean": round(time.mean, 6), "sd": round(math.sqrt(time.scv) * time.mean, 6)})


def read_distribution(spec: Mapping[str, Any]) -> TimeDistribution:
    """A distribution read back from a configuration file (its kind checked)."""
    kind = spec.get("distribution") if isinstance(spec, Mapping) else None
    if kind not in KINDS:
        raise InvalidParameter(f"unknown distribution {kind!r}; known: {', '.join(KINDS)}")
    return TimeDistribution(dict(spec))
