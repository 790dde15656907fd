"""A full-size simulation corpus is built over several sessions (issue 34): each line's truth is kept in the output
folder as it is done, a stopped build resumes with the secret it kept and ends with the same corpus as one that
never stopped, a kept line whose key no longer holds is simulated again, a partial folder never reads as a corpus,
and the reference's faster recursion gives the very numbers the plain one gave."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from generators.common.verdict import report
from generators.errors import CorpusNotFound
from generators.secret import SECRET_FILE
from generators.simulation import Secret, SimParams, bench, checkpoint, generate_sim_data, writer
from generators.simulation.calibration import check_sim_corpus
from generators.simulation.distributions import (
    deterministic_plus_noise,
    erlang,
    exponential,
    hyperexponential,
    lognormal,
)
from generators.simulation.queueing import Line
from generators.simulation.reference import relaxation_orders, replicate

TINY = SimParams(configurations=4, cpu_seconds=1, reference_millions=1)
CORPUS_FILES = ("holdout_truth.csv", "truth.json", "manifest.json", SECRET_FILE)
TRUTH_ROW = writer.truth_row  # the real one, whatever a test patched in its place


class Stopped(Exception):
    """Stands for a kill: raised by the n-th truth a build computes."""


def counting_truth_rows(monkeypatch, stop_after: int | None = None) -> list[str]:
    """writer.truth_row counted (the names it computed), raising Stopped once `stop_after` were computed."""
    computed: list[str] = []

    def counted(config, orders, seeds):
        if stop_after is not None and len(computed) == stop_after:
            raise Stopped(config["name"])
        computed.append(config["name"])
        return TRUTH_ROW(config, orders, seeds)

    monkeypatch.setattr(writer, "truth_row", counted)
    return computed


def test_a_stopped_build_resumes_with_its_kept_secret_and_ends_as_an_unstopped_one(tmp_path, monkeypatch):
    stopped = tmp_path / "stopped"
    computed = counting_truth_rows(monkeypatch, stop_after=6)  # the 4 examples and 2 of the 4 hidden lines
    with pytest.raises(Stopped):
        generate_sim_data(TINY, stopped)  # a fresh secret, kept in the folder
    assert checkpoint.is_partial(stopped) and not (stopped / writer.MANIFEST_FILE).exists()
    with pytest.raises(CorpusNotFound):
        check_sim_corpus(stopped)  # a partial corpus never reads as a complete one
    kept_secret = Secret.read(stopped / SECRET_FILE)

    computed = counting_truth_rows(monkeypatch)
    words: list[str] = []
    generate_sim_data(TINY, stopped, progress=words.append)  # no --force: resuming is not replacing
    assert len(computed) == 2, computed  # only the lines not kept
    assert any("resuming" in w for w in words)
    assert Secret.read(stopped / SECRET_FILE) == kept_secret
    manifest = (stopped / writer.MANIFEST_FILE).read_text(encoding="utf-8")
    assert (stopped / checkpoint.PROGRESS_DIR).is_dir() and checkpoint.PROGRESS_DIR not in manifest  # kept beside it

    whole = tmp_path / "whole"
    generate_sim_data(TINY, whole, secret=kept_secret)
    for name in CORPUS_FILES:
        assert (stopped / name).read_bytes() == (whole / name).read_bytes(), name


def test_a_build_killed_mid_line_resumes_to_the_corpus_an_unkilled_one_makes(tmp_path):
    """SIGKILL, not a polite stop: the lines kept before it are read back, the one in flight is simulated again.
    The public secret's 8 lines are simulated, exact, exact, simulated, exact, then three simulated: killed once
    two are kept, the build has four simulated lines (seconds) still to go."""
    params, secret = SimParams(configurations=8, cpu_seconds=1, reference_millions=10), Secret.public()
    killed = tmp_path / "killed"
    script = ("import sys; from pathlib import Path; from generators.simulation import Secret, SimParams, "
              "generate_sim_data as g; g(SimParams(configurations=8, cpu_seconds=1, reference_millions=10), "
              "Path(sys.argv[1]), secret=Secret.public())")
    root = Path(__file__).resolve().parents[1]
    child = subprocess.Popen([sys.executable, "-c", script, str(killed)], cwd=root,
                             env={**os.environ, "PYTHONPATH": str(root)})
    kept = killed / checkpoint.PROGRESS_DIR / writer.HOLDOUT_DIR
    deadline = time.monotonic() + 300
    while not (kept.is_dir() and len(list(kept.glob("cfg_*.json"))) >= 2):
        assert child.poll() is None and time.monotonic() < deadline, "the build ended before it could be killed"
        time.sleep(0.02)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert not (killed / writer.MANIFEST_FILE).exists()
    generate_sim_data(params, killed, secret=secret)
    whole = tmp_path / "whole"
    generate_sim_data(params, whole, secret=secret)
    for name in CORPUS_FILES:
        assert (killed / name).read_bytes() == (whole / name).read_bytes(), name


def test_lines_kept_by_a_serial_build_are_reused_by_a_parallel_one(tmp_path, monkeypatch):
    folder, secret = tmp_path / "corpus", Secret.fresh()
    counting_truth_rows(monkeypatch, stop_after=5)
    with pytest.raises(Stopped):
        generate_sim_data(TINY, folder, secret=secret)
    monkeypatch.undo()
    generate_sim_data(TINY, folder, secret=secret, jobs=2)  # the pool's workers read and keep lines too
    whole = tmp_path / "whole"
    generate_sim_data(TINY, whole, secret=secret)
    assert (folder / "holdout_truth.csv").read_bytes() == (whole / "holdout_truth.csv").read_bytes()


def test_a_kept_line_is_not_reused_once_its_order_count_or_secret_changed(tmp_path, monkeypatch):
    folder, secret = tmp_path / "corpus", Secret.fresh()

    def unpublished(*_):
        raise Stopped("before the truth file")

    monkeypatch.setattr(writer, "_write_truth_csv", unpublished)  # every line kept, the corpus never published
    with pytest.raises(Stopped):
        generate_sim_data(SimParams(configurations=4, cpu_seconds=1, reference_millions=2), folder, secret=secret)
    computed = counting_truth_rows(monkeypatch)
    with pytest.raises(Stopped):
        generate_sim_data(TINY, folder, secret=secret)  # another order count: every line again
    assert len(computed) == 8
    monkeypatch.undo()
    computed = counting_truth_rows(monkeypatch)
    generate_sim_data(TINY, folder, secret=Secret.fresh())  # another secret: the hidden lines again
    assert len(computed) == 4 and all(name.startswith("cfg_") for name in computed)


def test_the_key_names_everything_a_truth_depends_on_and_a_tampered_row_is_not_read(tmp_path):
    config = {"name": "cfg_000", "stations": 2, "interarrival": dict(exponential(1.0).spec),
              "service": dict(lognormal(1.5, 1.0).spec)}
    seeds = Secret.public().seed_sequence(0, "reference cfg_000")
    key = checkpoint.line_key(config, 1_000_000, seeds)
    assert key != checkpoint.line_key(config, 2_000_000, seeds)
    assert key != checkpoint.line_key({**config, "stations": 3}, 1_000_000, seeds)
    assert key != checkpoint.line_key(config, 1_000_000, Secret.fresh().seed_sequence(0, "reference cfg_000"))
    assert key != checkpoint.line_key(config, 1_000_000, Secret.public().seed_sequence(1, "reference cfg_000"))
    assert Secret.public().hex() not in key
    path = tmp_path / "cfg_000.json"
    checkpoint.keep_row(path, key, {"wait": "1.5"})
    assert checkpoint.kept_row(path, key) == {"wait": "1.5"}
    assert checkpoint.kept_row(path, "0" * 64) is None
    path.write_text("{not json", encoding="utf-8")
    assert checkpoint.kept_row(path, key) is None


def test_a_kept_calibration_result_is_copied_not_run_again(tmp_path):
    runs: list[int] = []
    output, kept = tmp_path / "out.json", tmp_path / "keep" / "sim_careful" / "cfg_000.abc.json"

    def run() -> None:
        runs.append(1)
        output.write_text('{"estimate": 1.0}', encoding="utf-8")

    checkpoint.kept_run(run, output, kept)
    output.unlink()
    checkpoint.kept_run(run, output, kept)
    assert len(runs) == 1 and output.read_text(encoding="utf-8") == '{"estimate": 1.0}'


def test_the_bench_keeps_a_fresh_secret_and_knows_a_complete_corpus(tmp_path):
    out = tmp_path / "data"
    secret, kept = bench.chosen_secret(out, fresh=True)
    assert not kept and secret != Secret.public()
    generate_sim_data(TINY, out, secret=secret)
    assert bench.chosen_secret(out, fresh=True) == (secret, True)
    assert bench.chosen_secret(out, fresh=False) == (Secret.public(), False)
    assert bench.is_complete(out, TINY, secret)
    assert not bench.is_complete(out, SimParams(configurations=5, cpu_seconds=1, reference_millions=1), secret)
    assert not bench.is_complete(out, TINY, Secret.public())


def test_the_benchs_verdict_names_each_failed_check_and_each_row_careful_did_not_beat(capsys):
    from generators.simulation.calibration import PairedMargin, SimCalibration, SimChecks

    held = SimChecks(True, True, True, True, True, True, True)
    beaten = (PairedMargin("sim_half", 0.05, 0.02, 0.09), PairedMargin("cheat_kingman", 0.5, 0.4, 0.7))
    passed = SimCalibration("corpus", TINY, (), (), beaten, held)
    assert bench.verdict_lines(passed, "sha256:ab") == []
    assert report(bench.verdict_lines(passed, "sha256:ab")) == 0
    close = PairedMargin("cheat_short_wide", 0.01, -0.002, 0.02)  # careful better on average, not by the interval
    failed = SimCalibration("corpus", TINY, (), (), (*beaten, close),
                            SimChecks(True, True, True, True, False, True, False))
    lines = bench.verdict_lines(failed, "sha256:ab")
    assert lines == ["target not met: careful_beats_every_cheater", "target not met: truth_error_within_a_tenth",
                     f"careful does not beat cheat_short_wide on secret sha256:ab: {close}"]
    capsys.readouterr()
    assert report(lines) == 1 and "verdict: FAILED" in capsys.readouterr().out


def plain_reference(line: Line, orders: int, rng: np.random.Generator,
                    replications: int = 1024) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reference as first written (numpy's scaled draws, a compare-and-swap pass): what the faster one must equal."""
    def draw(time, shape):
        s = time.spec
        if time.kind == "exponential":
            return rng.exponential(float(s["mean"]), shape)
        if time.kind == "erlang":
            return rng.gamma(int(s["shape"]), float(s["mean"]) / int(s["shape"]), shape)
        if time.kind == "hyperexponential":
            p = np.array([float(b["probability"]) for b in s["branches"]])
            means = np.array([float(b["mean"]) for b in s["branches"]])
            branch = np.minimum(np.searchsorted(np.cumsum(p / p.sum()), rng.random(shape)), len(means) - 1)
            return rng.exponential(1.0, shape) * means[branch]
        if time.kind == "deterministic_plus_noise":
            k = float(s["noise_shape"])
            return float(s["constant"]) + rng.gamma(k, float(s["noise_mean"]) / k, shape)
        return rng.lognormal(float(s["log_mu"]), float(s["log_sigma"]), shape)

    per = max(256, orders // replications)
    warmup = int(min(max(2000, 12 * relaxation_orders(line)), per // 2))
    work, sums = np.zeros((line.stations, replications)), np.zeros(replications)
    services, gaps_summed = np.zeros(replications), np.zeros(replications)
    for start in range(0, per, 256):
        size = min(256, per - start)
        service, gaps = draw(line.service, (size, replications)), draw(line.interarrival, (size, replications))
        for i in range(size):
            if start + i >= warmup:  # the order's wait, and its own service and gap as the controls
                sums += work[0]
                services += service[i]
                gaps_summed += gaps[i]
            work[0] += service[i]
            for j in range(line.stations - 1):
                low = np.minimum(work[j], work[j + 1])
                np.maximum(work[j], work[j + 1], out=work[j + 1])
                work[j] = low
            work -= gaps[i]
            np.maximum(work, 0.0, out=work)
    kept = per - warmup
    return sums / kept, services / kept, gaps_summed / kept  # each replication's means


@pytest.mark.parametrize("line", [
    Line(1, lognormal(1.0, 1.2), lognormal(0.9, 0.8)),
    Line(2, erlang(0.6, 2), hyperexponential(1.1, 3.0)),
    Line(3, exponential(0.45), deterministic_plus_noise(0.8, 0.5, 0.6)),
    Line(4, hyperexponential(0.3, 2.5), lognormal(1.05, 1.5)),
], ids=["LN/LN/1", "E2/H2/2", "M/D+G/3", "H2/LN/4"])
def test_the_faster_reference_gives_the_plain_ones_numbers_bit_for_bit_and_its_controls_the_same_orders(line):
    orders = 700_000  # its warm-up spans two chunks of 256 orders a replication
    fast = replicate(line, orders, np.random.default_rng(11))
    waits, services, gaps = plain_reference(line, orders, np.random.default_rng(11))
    assert np.array_equal(fast.waits, waits)
    # The controls over the very orders whose waits are averaged (summed in another order: equal to rounding; an
    # order more or fewer would move them by about a thousandth)
    assert np.allclose(fast.services, services, rtol=1e-12, atol=0) and np.allclose(fast.gaps, gaps, rtol=1e-12, atol=0)


def test_the_branch_of_a_hyperexponential_draw_is_the_clamped_searchsorted_one():
    from generators.simulation.reference import _branch

    for cumulative in (np.array([0.3, 0.9999999]), np.array([0.2, 0.2, 0.7, 1.0]), np.array([1.0])):
        uniform = np.concatenate([np.random.default_rng(3).random(10_000), cumulative, [0.0, 0.99999995]])
        expected = np.minimum(np.searchsorted(cumulative, uniform), len(cumulative) - 1)
        assert np.array_equal(_branch(uniform, cumulative), expected)


def test_a_calibration_rerun_grades_the_kept_results_without_running_them_again(tmp_path, monkeypatch):
    from generators.simulation import calibration

    corpus = tmp_path / "corpus"
    generate_sim_data(TINY, corpus, secret=Secret.fresh())
    keep = corpus / checkpoint.RESULTS_DIR
    first = calibration.run_sim_reference("sim_mm1", corpus, jobs=1, keep=keep)

    def not_again(*_):
        raise AssertionError("a kept result was run again")

    monkeypatch.setattr(calibration, "run_simulate", not_again)
    again = calibration.run_sim_reference("sim_mm1", corpus, jobs=1, keep=keep)
    assert again.per_configuration == first.per_configuration
    with pytest.raises(AssertionError, match="run again"):  # another configuration file: another key, run
        (corpus / writer.HOLDOUT_DIR / "cfg_000.json").write_text('{"cpu_seconds": 1}', encoding="utf-8")
        calibration.run_sim_reference("sim_mm1", corpus, jobs=1, keep=keep)


def test_the_key_of_a_kept_full_size_line_stays_what_it_was():
    """Pinned: the public secret's cfg_000 at the default size, as the full-size runs of simulation-2.1 keep it. A change
    to the key's material throws away every kept line of every unfinished run (hours of CPU): make it on purpose."""
    from generators.simulation.configs import hidden_lines

    secret = Secret.public()
    config = hidden_lines(48, 5, secret.seed_sequence(0, "hidden configurations"))[0]
    assert config["name"] == "cfg_000"
    key = checkpoint.line_key(config, SimParams().reference_millions * 1_000_000, secret.seed_sequence(0, "reference cfg_000"))
    assert key == "cdc11f0fee2352672698cc5996d1ce47e8fbbc0b4b58aed9096d9895f0fb1bae"


def test_more_reference_batches_keep_the_batch_a_corpus_has_and_pool_the_new_ones(tmp_path, monkeypatch):
    folder, one, secret = tmp_path / "corpus", tmp_path / "one", Secret.fresh()
    generate_sim_data(TINY, folder, secret=secret)
    generate_sim_data(TINY, one, secret=secret)
    computed = counting_truth_rows(monkeypatch)
    two = SimParams(configurations=4, cpu_seconds=1, reference_millions=1, reference_batches=2)
    generate_sim_data(two, folder, force=True, secret=secret)  # the published corpus, given a second batch
    first = {row["configuration"]: row for row in writer.read_truth_rows(one)}
    pooled = {row["configuration"]: row for row in writer.read_truth_rows(folder)}
    simulated = [name for name, row in first.items() if row["method"] == writer.SIMULATION]
    assert simulated and sorted(computed) == sorted(simulated)  # one new batch a simulated line, nothing else
    configs = {c["name"]: c for c in writer.hidden_lines(4, 1, secret.seed_sequence(0, "hidden configurations"))}
    for name, row in pooled.items():
        if name not in simulated:
            assert row == first[name]
            continue
        extra = writer.truth_row(configs[name], 1_000_000, secret.seed_sequence(0, writer.batch_purpose(name, 1)))
        assert float(row["wait"]) == (float(first[name]["wait"]) + float(extra["wait"])) / 2
        assert float(row["truth_se"]) < float(first[name]["truth_se"])
    assert "2 such batches pooled" in (folder / writer.MANIFEST_FILE).read_text(encoding="utf-8")
    computed.clear()
    generate_sim_data(TINY, folder, force=True, secret=Secret.fresh())  # another secret: nothing kept is read
    assert len(computed) == 8  # the 4 examples and the 4 hidden lines
