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


def test_the_control_variate_estimate_is_the_intercept_and_drops_a_control_that_does_not_vary():
    from generators.simulation.reference import controlled_mean

    rng = np.random.default_rng(0)
    control = rng.normal(0.0, 1.0, 4000)
    values = 3.0 + 2.0 * control + rng.normal(0.0, 0.5, 4000)
    wait, standard_error, ratio = controlled_mean(values, [control, np.zeros(4000)])
    assert abs(wait - 3.0) < 4 * standard_error and standard_error == pytest.approx(0.5 / math.sqrt(4000), rel=0.05)
    assert ratio == pytest.approx((4.0 + 0.25) / 0.25, rel=0.1)  # what the control explained
    plain = controlled_mean(values, [])
    assert plain[0] == pytest.approx(values.mean()) and plain[2] == pytest.approx(1.0)
    assert plain[1] == pytest.approx(values.std(ddof=1) / math.sqrt(4000))


def test_the_controls_halve_the_references_variance_on_a_loaded_line_and_its_stated_error_stays_honest():
    """Independent small references of an M/M/1 line at load 0.8 against Erlang C: the controls buy a variance
    ratio near the heavy-traffic 2 (none would give 1), and the stated standard error matches the spread of
    the errors (an understated one would give z-scores far wider than 1)."""
    line = Line(1, exponential(1.0), exponential(0.8))
    exact = erlang_c_wait(line.arrival_rate, line.service.mean, 1)
    runs = [simulate_wait(line, 2_000_000, np.random.default_rng(seed), replications=256) for seed in range(24)]
    assert min(r.variance_ratio for r in runs) > 1.4, [round(r.variance_ratio, 2) for r in runs]
    z = np.array([(r.wait - exact) / r.standard_error for r in runs])
    assert 0.6 < float(np.sqrt(np.mean(z**2))) < 1.5, z
    assert abs(float(z.mean())) < 3 / math.sqrt(len(z)) * 1.5, z  # no bias beyond chance


def test_a_lines_reference_orders_are_sized_by_its_stations_and_the_truth_uses_them(monkeypatch):
    from generators.simulation import writer
    from generators.simulation.reference import sized_orders

    one, two, four = (Line(c, lognormal(1.0, 1.0), lognormal(0.5 * c, 1.0)) for c in (1, 2, 4))
    assert sized_orders(one, 1000) == 1500 and sized_orders(two, 1000) == 1150 and sized_orders(four, 1000) == 850
    asked = []
    monkeypatch.setattr(writer, "simulate_wait", lambda line, orders, rng: asked.append(orders) or simulate_wait(
        line, 300_000, rng))
    config = {"name": "cfg_x", "stations": 1, "interarrival": dict(one.interarrival.spec),
              "service": dict(one.service.spec)}
    writer.truth_row(config, 2_000_000, np.random.SeedSequence(1))
    assert asked == [3_000_000]
