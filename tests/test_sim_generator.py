"""The simulation take-home's data: exact waits that agree with the closed forms, examples from the seed alone,
hidden configurations keyed by a secret kept only beside the truth, loads spread over the bands."""

from __future__ import annotations

import json
import stat

import pytest

from generators.simulation import Secret, SimParams, generate_sim_data
from generators.simulation.distributions import erlang, exponential, hyperexponential, lognormal
from generators.simulation.queueing import (
    CTMC,
    Line,
    NotComputable,
    ctmc_wait,
    erlang_c_wait,
    mean_wait,
    pollaczek_khinchine_wait,
)
from generators.simulation.writer import read_truth_rows


def line(stations, interarrival, service):
    return {"stations": stations, "interarrival": dict(interarrival.spec), "service": dict(service.spec)}


@pytest.mark.parametrize("stations", [1, 2, 4])
@pytest.mark.parametrize("rho", [0.5, 0.9, 0.97])
def test_the_markov_chain_gives_erlang_c_for_exponential_lines(stations, rho):
    service = 1.3
    gap = service / (stations * rho)
    exact = ctmc_wait(Line.of(line(stations, exponential(gap), exponential(service))))
    assert exact.method == CTMC and exact.tail_mass < 1e-13
    assert exact.wait == pytest.approx(erlang_c_wait(1 / gap, service, stations), rel=1e-8)


@pytest.mark.parametrize("service", [hyperexponential(0.8, 3.0), erlang(0.8, 2)], ids=["H2", "E2"])
@pytest.mark.parametrize("rho", [0.6, 0.95])
def test_the_markov_chain_gives_pollaczek_khinchine_for_one_station(service, rho):
    gap = service.mean / rho
    exact = ctmc_wait(Line.of(line(1, exponential(gap), service)))
    assert exact.wait == pytest.approx(pollaczek_khinchine_wait(1 / gap, service), rel=1e-8)


def test_known_values_and_which_method_is_used():
    # M/M/1 at rho = 0.9 with mean service 1: Wq = rho / (1 - rho) = 9.
    assert mean_wait(line(1, exponential(1 / 0.9), exponential(1.0))).wait == pytest.approx(9.0, rel=1e-12)
    # M/D-like variability lowers the wait, M/G/1: lambda E[S^2] / (2 (1 - rho)).
    ln = lognormal(1.0, 1.5)
    assert ln.second_moment == pytest.approx(1.0 + 1.5**2)
    assert mean_wait(line(1, exponential(2.0), ln)).method == "pollaczek_khinchine"
    assert mean_wait(line(2, exponential(1.0), hyperexponential(1.5, 2.5))).method == CTMC
    assert mean_wait(line(2, erlang(1.0, 2), exponential(1.5))).method == CTMC
    with pytest.raises(NotComputable):
        mean_wait(line(2, exponential(1.0), lognormal(1.5, 1.0)))  # no exact answer for M/LN/2
    with pytest.raises(NotComputable):
        mean_wait(line(1, exponential(1.0), exponential(1.2)))  # unstable


def test_a_hyperexponential_has_the_mean_and_variability_it_was_asked_for():
    h2 = hyperexponential(2.0, 3.0)
    assert h2.mean == pytest.approx(2.0, rel=1e-3) and h2.scv == pytest.approx(3.0, rel=1e-2)
    probabilities = [b["probability"] for b in h2.spec["branches"]]
    assert sum(probabilities) == pytest.approx(1.0, abs=1e-12)


def test_examples_come_from_the_seed_alone_and_the_hidden_part_from_the_secret(tmp_path):
    params = SimParams(seed=4, configurations=6, cpu_seconds=2, reference_millions=1)
    one, same, other = Secret.from_hex("11" * 32), Secret.from_hex("11" * 32), Secret.fresh()
    generate_sim_data(params, tmp_path / "a", secret=one)
    generate_sim_data(params, tmp_path / "b", secret=same)
    generate_sim_data(params, tmp_path / "c", secret=other)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    examples = sorted((tmp_path / "a" / "examples").glob("*.json"))
    assert [p.name for p in examples] == ["example_1.json", "example_2.json", "example_3.json", "example_4.json"]
    for path in examples:  # the visible part is the same whatever the secret
        assert path.read_bytes() == (tmp_path / "c" / "examples" / path.name).read_bytes()
    assert (tmp_path / "a" / "excerpt.txt").read_bytes() == examples[0].read_bytes()
    hidden = lambda folder: [(folder / "holdout" / f"cfg_{i:03d}.json").read_bytes() for i in range(6)]  # noqa: E731
    assert all(x != y for x, y in zip(hidden(tmp_path / "a"), hidden(tmp_path / "c"), strict=True))


def test_the_secret_lives_only_in_its_file_and_the_manifest_names_it_by_hash(tmp_path):
    secret = Secret.fresh()
    manifest = generate_sim_data(SimParams(configurations=3, cpu_seconds=1, reference_millions=1), tmp_path / "d", secret=secret)
    folder = tmp_path / "d"
    assert Secret.read(folder / "secret.hex") == secret
    assert stat.S_IMODE((folder / "secret.hex").stat().st_mode) == 0o600
    data = json.loads((folder / "manifest.json").read_text())
    assert data["secret_id"] == secret.identity == manifest.secret_id
    assert "secret.hex" not in data["sha256"]
    for path in folder.rglob("*"):
        if path.is_file() and path.name != "secret.hex":
            assert secret.value.hex() not in path.read_text(encoding="utf-8"), path.name
    with pytest.raises(Exception, match="128 bits"):
        Secret(b"short")


def test_the_default_configurations_span_the_loads_stations_and_distributions(tmp_path):
    # the default drawing at its full count; the reference simulation kept short (its size changes no configuration)
    generate_sim_data(SimParams(reference_millions=1), tmp_path / "full", secret=Secret.from_hex("22" * 32))
    rows = read_truth_rows(tmp_path / "full")
    assert len(rows) == 48
    loads = [float(r["utilisation"]) for r in rows]
    assert 0.5 <= min(loads) < 0.6 and 0.94 < max(loads) <= 0.97
    assert {r["band"] for r in rows} == {"light", "medium", "heavy"}
    assert all(sum(r["band"] == b for r in rows) >= 14 for b in ("light", "medium", "heavy"))
    assert {r["method"] for r in rows} == {"erlang_c", "pollaczek_khinchine", "ctmc", "reference_simulation"}
    # no exact method is cheap on most lines: the closed forms and the phase-type chain are a minority
    assert sum(r["method"] == "reference_simulation" for r in rows) >= 30
    assert {int(r["stations"]) for r in rows} == {1, 2, 3, 4}
    services = {json.loads((tmp_path / "full" / "holdout" / f"{r['configuration']}.json").read_text())["service"]["distribution"]
                for r in rows}
    assert services == {"exponential", "hyperexponential", "lognormal", "deterministic_plus_noise"}
    for r in rows:  # each truth is what the configuration file, as written, implies
        config = json.loads((tmp_path / "full" / "holdout" / f"{r['configuration']}.json").read_text())
        assert config["cpu_seconds"] == 5 and config["name"] == r["configuration"]
        assert Line.of(config).utilisation == pytest.approx(float(r["utilisation"]), abs=1e-6)


# The ids the simulation's manifests gave these secrets before it used generators.secret (commit 17a7557):
# a data folder made then still names its secret the same.
SECRET_IDS_BEFORE = {
    "11" * 32: "sha256:d923e67ca7ed82d09f797573d5bb7d2d8a43153eea9c296ec48b4f682b62e6d8",
    "public": "sha256:ba6c60490826659a6765d89242d45c8e97bdbb2017022615312a04410f11f905",
}


def test_the_cli_secret_file_reproduces_the_hidden_part_and_the_ids_are_as_before(tmp_path):
    from click.testing import CliRunner

    from bakeoff.cli import main
    from generators.secret import Secret as CorpusSecret

    assert Secret.from_hex("11" * 32).identity == SECRET_IDS_BEFORE["11" * 32]
    assert Secret.public().identity == SECRET_IDS_BEFORE["public"]
    first, again = tmp_path / "first", tmp_path / "again"
    args = ["generate", "--task", "simulation", "--configurations", "3", "--cpu-seconds", "1", "--seed", "5",
            "--reference-millions", "1"]
    assert CliRunner().invoke(main, [*args, "--out", str(first)]).exit_code == 0
    result = CliRunner().invoke(main, [*args, "--out", str(again), "--secret-file", str(first / "secret.hex")])
    assert result.exit_code == 0, result.output
    for path in sorted(first.rglob("*")):
        if path.is_file():
            assert path.read_bytes() == (again / path.relative_to(first)).read_bytes(), path.name
    secret = CorpusSecret.read(first / "secret.hex")  # the one file format; the manifest keeps the simulation's id
    assert json.loads((first / "manifest.json").read_text())["secret_id"] == Secret(secret.value).identity
    generate_sim_data(SimParams(configurations=3, cpu_seconds=1, reference_millions=1), tmp_path / "given", secret=secret)
    assert json.loads((tmp_path / "given" / "manifest.json").read_text())["secret_id"] == Secret(secret.value).identity
