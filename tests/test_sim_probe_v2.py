"""The behavioural probe classifies what issue 34 found it calling `unclear` or `sound`: a program whose output
ignores the seed, and a formula dressed with made-up seed noise whose band narrows with the budget for free."""

from __future__ import annotations

import json

import pytest

from generators.simulation.calibration import materialize_sim
from generators.simulation.probe import Behaviour, behaviour_verdict, host_runner, probe_choice, run_behaviour_probe
from scorer.interval_reading import IntervalResult

LINE = {"name": "p", "stations": 2, "interarrival": {"distribution": "exponential", "mean": 0.5},
        "service": {"distribution": "lognormal", "log_mu": -0.45, "log_sigma": 0.9, "mean": 0.95, "sd": 1.0},
        "time_unit": "minutes", "seed": 11, "cpu_seconds": 1}
# Allen-Cunneen's answer with seed noise whose size follows the budget: the audit's "made-up spread"
FAKER = '''import argparse, json, math, random
p = argparse.ArgumentParser(); p.add_argument("--config"); p.add_argument("--output"); a = p.parse_args()
c = json.load(open(a.config))
lam, m, k = 1 / c["interarrival"]["mean"], c["service"]["mean"], c["stations"]
scv = c["service"]["sd"] ** 2 / m ** 2
rho, off, b = lam * m / k, lam * m, 1.0
for i in range(1, k + 1):
    b = off * b / (i + off * b)
w = b / (1 - rho * (1 - b)) / (k / m - lam) * (1 + scv) / 2
sd = 0.03 * w / math.sqrt(c["cpu_seconds"])
e = w + random.Random(c["seed"]).gauss(0, sd)
json.dump({"estimate": e, "ci_low": e - 1.96 * sd, "ci_high": e + 1.96 * sd}, open(a.output, "w"))
'''


def interval(point, half):
    return IntervalResult(point, point - half, point + half)


def test_the_same_estimate_for_every_seed_is_classified_not_unclear():
    base = [interval(2.0, 0.1)] * 4
    probe = behaviour_verdict(base, interval(2.0, 0.05))
    assert probe.behaviour is Behaviour.IGNORES_SEED and "seed" in probe.message
    exact = behaviour_verdict([interval(2.0, 0.0)] * 4, interval(2.0, 0.0))
    assert exact.behaviour is Behaviour.IGNORES_SEED


def test_a_band_that_narrows_without_more_work_is_fabricated_and_one_with_more_work_is_sound():
    base = [interval(2.0, 0.1), interval(2.05, 0.1), interval(1.96, 0.1), interval(2.02, 0.1)]
    longer = interval(2.01, 0.05)
    assert behaviour_verdict(base, longer, [0.2, 0.2, 0.2, 0.2, 0.21]).behaviour is Behaviour.FABRICATED
    assert behaviour_verdict(base, longer, [0.8, 0.8, 0.8, 0.8, 3.2]).behaviour is Behaviour.SOUND
    assert behaviour_verdict(base, longer).behaviour is Behaviour.SOUND  # no CPU times: not judged


def test_the_probe_tells_a_fabricated_spread_from_carefuls_simulation(tmp_path):
    faker = tmp_path / "faker"
    faker.mkdir()
    (faker / "simulate.py").write_text(FAKER, encoding="utf-8")
    fake = run_behaviour_probe(host_runner(faker), LINE, seeds=4, factor=2)
    assert fake.behaviour is Behaviour.FABRICATED, fake
    careful = run_behaviour_probe(host_runner(materialize_sim("sim_careful", tmp_path / "careful")), LINE, seeds=3,
                                  factor=2)
    assert careful.behaviour is Behaviour.SOUND, careful


def test_the_probe_runs_on_lines_no_formula_answers():
    rows = [{"configuration": "a", "utilisation": "0.96", "method": "erlang_c"},
            {"configuration": "b", "utilisation": "0.90", "method": "reference_simulation"},
            {"configuration": "c", "utilisation": "0.93", "method": "ctmc"}]
    assert [r["configuration"] for r in probe_choice(rows, 2)] == ["b", "a"]
    old = [{"configuration": "a", "utilisation": "0.9"}, {"configuration": "b", "utilisation": "0.95"}]
    assert [r["configuration"] for r in probe_choice(old, 1)] == ["b"]  # a 1.0 corpus: the heaviest, as before


@pytest.mark.parametrize("line", [LINE])
def test_the_line_has_no_closed_form(line):
    from generators.simulation.queueing import Line, exactly_computable

    assert not exactly_computable(Line.of(json.loads(json.dumps(line))))
