"""The simulation take-home's behavioural probe: verdicts from hand-made intervals, the references' verdicts
run as CPU-capped subprocesses, and the design's WARMUP and INTERVAL lines against what the probe measured."""

from __future__ import annotations

import json

import pytest

from bakeoff.tasks.simulation.design import (
    Divergence,
    StatedInterval,
    StatedWarmup,
    divergence_of,
    stated_interval,
    stated_warmup,
)
from bakeoff.tasks.simulation.probe import ConfigurationProbe, SimProbeRecord, overall, probe_choice
from generators.simulation.calibration import materialize_sim
from generators.simulation.probe import (
    INDEPENDENT_MAX_RATIO,
    Behaviour,
    BehaviourProbe,
    behaviour_verdict,
    host_runner,
    probe_configs,
    run_behaviour_probe,
)
from scorer.interval_reading import IntervalResult


def around(centre: float, half: float) -> IntervalResult:
    return IntervalResult(centre, centre - half, centre + half)


SPREAD_OF_ONE = [9.0, 10.0, 11.0, 10.0]  # standard deviation 0.816


def test_an_honest_interval_that_shrinks_with_more_budget_is_sound():
    base = [around(c, 1.96 * 0.816) for c in SPREAD_OF_ONE]
    probe = behaviour_verdict(base, around(10.3, 1.96 * 0.816 / 2))
    assert probe.behaviour is Behaviour.SOUND
    assert probe.spread_ratio == pytest.approx(1.0, abs=0.01) and probe.width_ratio == pytest.approx(0.5)


def test_an_interval_far_narrower_than_its_own_spread_assumes_independence():
    base = [around(c, 0.1) for c in SPREAD_OF_ONE]
    probe = behaviour_verdict(base, around(10.0, 0.05))
    assert probe.behaviour is Behaviour.INDEPENDENT and probe.spread_ratio < INDEPENDENT_MAX_RATIO


def test_an_honest_width_whose_centre_moves_with_the_budget_is_biased():
    base = [around(c, 1.96 * 0.816) for c in SPREAD_OF_ONE]
    probe = behaviour_verdict(base, around(14.0, 1.96 * 0.816 / 2))  # four units up: beyond, and far beyond noise
    assert probe.behaviour is Behaviour.BIASED and probe.shift > 1


def test_the_same_answer_for_every_seed_ignores_the_seed_and_no_shrinking_is_unclear():
    same = [around(10.0, 1.0)] * 4  # issue 34: classified (it ignores the seed), no longer unclear
    assert behaviour_verdict(same, around(10.0, 0.5)).behaviour is Behaviour.IGNORES_SEED
    base = [around(c, 1.96 * 0.816) for c in SPREAD_OF_ONE]
    assert behaviour_verdict(base, around(10.0, 1.96 * 0.816)).behaviour is Behaviour.UNCLEAR


def test_probe_runs_use_other_seeds_and_a_larger_budget():
    config = {"name": "cfg_000", "seed": 11, "cpu_seconds": 3, "stations": 1}
    runs = probe_configs(config, seeds=4, factor=4)
    assert [name for name, _ in runs] == ["seed_1", "seed_2", "seed_3", "seed_4", "longer"]
    assert len({c["seed"] for _, c in runs} | {11}) == 6
    assert [c["cpu_seconds"] for _, c in runs] == [3, 3, 3, 3, 12]


def test_a_record_reads_back_and_the_worst_behaviour_wins():
    sound = BehaviourProbe(Behaviour.SOUND, (around(1, 0.1),), around(1, 0.05), 1.0, 0.1, 0.5)
    independent = BehaviourProbe(Behaviour.INDEPENDENT, (around(1, 0.01),), around(1, 0.005), 0.05, 3.0, 0.5)
    probes = (ConfigurationProbe("cfg_001", 0.95, "heavy", sound), ConfigurationProbe("cfg_002", 0.9, "heavy", independent))
    record = SimProbeRecord(overall(probes), probes)
    assert record.behaviour is Behaviour.INDEPENDENT
    back = SimProbeRecord.from_dict(json.loads(json.dumps(record.to_dict())))
    assert back.behaviour is Behaviour.INDEPENDENT and back.configurations[0].probe.spread_ratio == 1.0
    assert overall(probes[:1]) is Behaviour.SOUND and overall(()) is Behaviour.FAILED


def test_the_probe_runs_on_the_heaviest_loads():
    rows = [{"configuration": "cfg_000", "utilisation": "0.61"}, {"configuration": "cfg_001", "utilisation": "0.95"},
            {"configuration": "cfg_002", "utilisation": "0.95"}, {"configuration": "cfg_003", "utilisation": "0.8"}]
    assert [r["configuration"] for r in probe_choice(rows, 2)] == ["cfg_001", "cfg_002"]


@pytest.mark.parametrize("design, warmup, interval", [
    ("WARMUP: first 20,000 orders\nINTERVAL: batch means (30 batches)", StatedWarmup.DELETED, StatedInterval.BATCH_MEANS),
    ("**Warm-up:** none\n- **Interval**: independent replications", StatedWarmup.NONE, StatedInterval.REPLICATIONS),
    ("> warmup = 0\nINTERVAL: normal interval treating each wait as independent", StatedWarmup.NONE,
     StatedInterval.INDEPENDENT),
    ("INTERVAL: spectral variance estimate", StatedWarmup.UNSTATED, StatedInterval.OTHER),
    ("WARMUP: none\nWARMUP: 10%\nno interval line", StatedWarmup.UNSTATED, StatedInterval.UNSTATED),
])
def test_the_design_lines_are_read(design, warmup, interval):
    assert stated_warmup(design) is warmup and stated_interval(design) is interval


def test_divergence_compares_the_design_with_the_measured_behaviour():
    d, i, w = Divergence, StatedInterval, StatedWarmup
    assert divergence_of(w.DELETED, i.BATCH_MEANS, Behaviour.INDEPENDENT) is d.CLAIMS_CORRELATION_ACTS_INDEPENDENT
    assert divergence_of(w.NONE, i.INDEPENDENT, Behaviour.INDEPENDENT) is d.CONSISTENT
    assert divergence_of(w.DELETED, i.BATCH_MEANS, Behaviour.BIASED) is d.CLAIMS_WARMUP_ACTS_BIASED
    assert divergence_of(w.DELETED, i.REPLICATIONS, Behaviour.SOUND) is d.CONSISTENT
    assert divergence_of(w.DELETED, i.INDEPENDENT, Behaviour.SOUND) is d.STATES_INDEPENDENT_ACTS_SOUND
    assert divergence_of(w.UNSTATED, i.UNSTATED, Behaviour.SOUND) is d.UNSTATED
    assert divergence_of(w.DELETED, i.BATCH_MEANS, Behaviour.UNCLEAR) is None


@pytest.fixture(scope="module")
def heaviest(tmp_path_factory):
    from sim_runner_support import make_tiny_sim_data

    from generators.simulation.writer import read_truth_rows

    folder = make_tiny_sim_data(tmp_path_factory.mktemp("sim-probe") / "data")
    (row,) = probe_choice(read_truth_rows(folder), 1)
    return json.loads((folder / "holdout" / f"{row['configuration']}.json").read_text())


@pytest.mark.parametrize("variant, behaviour", [("sim_careful", Behaviour.SOUND), ("sim_half", Behaviour.INDEPENDENT),
                                                ("sim_careless", Behaviour.INDEPENDENT)])
def test_the_references_behave_as_they_are_built(heaviest, tmp_path, variant, behaviour):
    probe = run_behaviour_probe(host_runner(materialize_sim(variant, tmp_path / variant)), heaviest)
    assert probe.behaviour is behaviour, probe
