"""Simulation v2's truth (issue 34): lines with no cheap exact method get a secret-seeded reference simulation
whose standard error is written beside the wait; the reference agrees with the exact methods where they apply."""

from __future__ import annotations

import math

import numpy as np
import pytest

from generators.simulation.distributions import deterministic_plus_noise, exponential, lognormal
from generators.simulation.queueing import Line, erlang_c_wait, exactly_computable, pollaczek_khinchine_wait
from generators.simulation.reference import draw, simulate_wait


def test_a_constant_plus_noise_has_the_moments_it_states():
    time = deterministic_plus_noise(0.6, 0.4, 0.5)
    sample = draw(time, np.random.default_rng(0), (400_000, 1))
    assert sample.min() >= 0.6
    assert time.mean == pytest.approx(1.0) and sample.mean() == pytest.approx(1.0, rel=0.01)
    assert time.scv == pytest.approx(0.4**2 / 0.5) and sample.var() == pytest.approx(0.4**2 / 0.5, rel=0.03)
    assert time.phase_type() is None and time.spec["mean"] == 1.0


def test_lines_without_a_phase_type_time_and_several_stations_have_no_exact_method():
    assert not exactly_computable(Line(2, exponential(1.0), lognormal(1.5, 2.0)))
    assert not exactly_computable(Line(1, lognormal(1.0, 1.0), deterministic_plus_noise(0.4, 0.3, 0.5)))
    assert exactly_computable(Line(1, exponential(1.0), deterministic_plus_noise(0.4, 0.3, 0.5)))  # M/G/1: P-K


@pytest.mark.parametrize("line", [Line(2, exponential(1.0), exponential(1.7)),
                                  Line(1, exponential(1.0), deterministic_plus_noise(0.5, 0.3, 0.7))],
                         ids=["M/M/2", "M/D+G/1"])
def test_the_reference_simulation_agrees_with_the_exact_wait_within_its_stated_error(line):
    exact = (erlang_c_wait(line.arrival_rate, line.service.mean, line.stations) if line.service.kind == "exponential"
             else pollaczek_khinchine_wait(line.arrival_rate, line.service))
    simulated = simulate_wait(line, 20_000_000, np.random.default_rng(5))
    assert simulated.standard_error > 0 and simulated.warmup >= 2000
    assert abs(simulated.wait - exact) < 4.5 * simulated.standard_error, (simulated, exact)
    assert simulated.standard_error / exact < 0.01
    assert math.isfinite(simulated.wait)
