"""ab_test's rows with a prior: careful's own analysis shrunk under the public distribution of effects is reported
but not held to careful's margin (no headline that averages over experiments can beat a Bayes rule in
expectation), while a prior put on top of a cheap analysis stays a cheater that careful must beat."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test.calibration import AB_CHEATERS, AB_WITH_PRIOR, AbReferenceResult, evaluate_ab, materialize_ab
from generators.ab_test.cheaters import REFERENCES, SHRUNK_BASES, stated_prior
from generators.ab_test.writer import HOLDOUT_DIR
from generators.common.paired import RowKind, paired_mean_margin
from generators.secret import Secret

SMALL = AbParams(seed=5, users=1500, experiments=4, holdout_users=1200)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("abprior") / "data"
    generate_ab_data(SMALL, out, secret=Secret.public())
    return out


def _analyze(folder: Path, source: Path, out: Path) -> dict:
    subprocess.run([sys.executable, str(folder / "analyze.py"), "--input", str(source), "--output", str(out)],
                   check=True, capture_output=True)
    return json.loads(out.read_text(encoding="utf-8"))


def test_the_shrinkage_of_careful_is_a_row_with_a_prior_and_the_cheap_shrinkages_are_cheaters():
    assert AB_WITH_PRIOR == ("ab_shrink",)
    assert set(SHRUNK_BASES) <= set(AB_CHEATERS) and "ab_shrink" not in AB_CHEATERS


@pytest.mark.parametrize("variant", sorted(SHRUNK_BASES))
def test_a_shrunk_cheater_is_its_base_interval_under_the_stated_prior(corpus, tmp_path, variant):
    """The wrapper runs the base cheater's own script and shrinks its interval: the same numbers as applying ab_shrink's
    posterior by hand to the base's answer, on every hidden experiment."""
    base = materialize_ab(SHRUNK_BASES[variant], tmp_path / "base", corpus=corpus)
    shrunk = materialize_ab(variant, tmp_path / "shrunk", corpus=corpus)
    assert {p.name for p in shrunk.iterdir()} >= {"analyze.py", "base.py", "posterior.py", "prior.json"}
    posterior = runpy.run_path(str(REFERENCES / "ab_shrink" / "analyze.py"))["posterior_interval"]
    prior = stated_prior(SMALL)
    moved = 0
    for source in sorted((corpus / HOLDOUT_DIR).glob("*.csv")):
        plain = _analyze(base, source, tmp_path / "plain.json")
        got = _analyze(shrunk, source, tmp_path / "got.json")
        se = (plain["ci_high"] - plain["ci_low"]) / (2 * 1.959963984540054)
        median, low, high = posterior((plain["ci_low"] + plain["ci_high"]) / 2, se, prior)
        assert (got["effect"], got["ci_low"], got["ci_high"]) == (median, low, high), source.name
        moved += (got["ci_low"], got["ci_high"]) != pytest.approx((plain["ci_low"], plain["ci_high"]), abs=1e-6)
    assert moved, "the prior changed no interval: the wrapper did not shrink"


def _row(variant: str, winklers: tuple[float, ...], kind: RowKind = RowKind.REFERENCE) -> AbReferenceResult:
    mean = sum(winklers) / len(winklers)
    return AbReferenceResult(variant, len(winklers), 0, 0.95, 0.01, 0.02 if variant != "ab_careless" else 0.01,
                             mean, 0.0, kind, winklers=winklers)


def _rows(prior_kind: RowKind) -> list[AbReferenceResult]:
    careful = _row("ab_careful", (0.02, 0.03, 0.025, 0.02) * 4)
    rows = [_row("ab_careless", (0.3,) * 16), _row("ab_half", (0.1,) * 16), careful,
            _row("ab_band", (0.05, 0.06, 0.055, 0.05) * 4, RowKind.CHEATER),
            _row("ab_shrink", (0.019, 0.028, 0.024, 0.019) * 4, prior_kind)]
    return [r if r is careful else replace(r, margin=paired_mean_margin(careful.winklers, r.winklers, True))
            for r in rows]


def test_a_row_with_a_prior_that_beats_careful_fails_no_check_but_the_same_row_as_a_cheater_does():
    """Planted: the shrinkage scores below careful on every experiment. As a row with a prior the task stays valid;
    counted as a cheater, careful_best_winkler and careful_beats_every_cheater both fail."""
    checks = evaluate_ab(_rows(RowKind.WITH_PRIOR))
    assert checks.careful_best_winkler and checks.careful_beats_every_cheater, checks
    as_cheater = evaluate_ab(_rows(RowKind.CHEATER))
    assert not as_cheater.careful_best_winkler and not as_cheater.careful_beats_every_cheater, as_cheater
