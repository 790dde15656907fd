"""The calibration's statistics and the queueing chain, each pinned against a computation made here, apart from
the code under test (issue 35): Wilson's interval against published values and its defining equation, the paired
margins against a row bootstrap written in this file, the chain's non-Poisson arrivals against GI/M/1's closed form.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from generators.common.paired import Z95, paired_f1_margin, paired_mean_margin, wilson_interval
from generators.simulation.distributions import erlang, exponential, hyperexponential
from generators.simulation.queueing import CTMC, Line, ctmc_wait, mean_wait

# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (Wilson's
# score interval without continuity correction), to the four places the paper prints.
NEWCOMBE_WILSON = [((81, 263), (0.2553, 0.3662)), ((15, 148), (0.0624, 0.1605)), ((0, 20), (0.0, 0.1611)),
                   ((1, 29), (0.0061, 0.1718))]


@pytest.mark.parametrize("counts, published", NEWCOMBE_WILSON)
def test_wilson_interval_gives_the_published_values(counts, published):
    low, high = wilson_interval(*counts)
    assert (round(low, 4), round(high, 4)) == published


@pytest.mark.parametrize("successes, trials", [(0, 1), (1, 2), (8, 10), (37, 40), (50, 100), (999, 1000), (3, 7)])
def test_wilson_interval_is_where_the_score_statistic_is_z(successes, trials):
    """By definition the interval is every p with |p_hat - p| <= z sqrt(p (1 - p) / n): the roots, in p, of
    (n + z^2) p^2 - (2 x + z^2) p + x^2 / n = 0, solved here with the quadratic formula."""
    z, n, x = Z95, trials, successes
    a, b, c = n + z * z, -(2 * x + z * z), x * x / n
    root = math.sqrt(b * b - 4 * a * c)
    low, high = wilson_interval(successes, trials)
    assert low == pytest.approx((-b - root) / (2 * a), abs=1e-12)
    assert high == pytest.approx((-b + root) / (2 * a), abs=1e-12)
    p_hat = x / n
    for p in (low, high):
        if 0 < p < 1:
            assert abs(p_hat - p) / math.sqrt(p * (1 - p) / n) == pytest.approx(z, rel=1e-9)


def _percentile(values: np.ndarray, percent: float) -> float:
    """The percent-th percentile, linear between order statistics (numpy's default rule, written out)."""
    ordered = np.sort(values)
    rank = percent / 100 * (len(ordered) - 1)
    below = int(math.floor(rank))
    above = min(below + 1, len(ordered) - 1)
    return float(ordered[below] + (rank - below) * (ordered[above] - ordered[below]))


def _row_bootstrap(statistic, rows: int, resamples: int = 20_000, seed: int = 20261206) -> tuple[float, float]:
    """The 95% percentile interval of statistic(row indices), rows drawn with replacement: another generator
    (Mersenne Twister) and another draw (row indices, not cell counts) than the code under test."""
    generator = np.random.Generator(np.random.MT19937(seed))
    draws = np.concatenate([statistic(generator.integers(0, rows, (2_000, rows))) for _ in range(resamples // 2_000)])
    return _percentile(draws, 2.5), _percentile(draws, 97.5)


def _close(interval, expected: tuple[float, float]) -> None:
    """Two bootstraps of 4,000 and 20,000 resamples: their endpoints agree within 5% of the interval's width
    (about four Monte Carlo standard errors); a 90% interval, or one of the wrong margin, is far outside."""
    width = expected[1] - expected[0]
    assert interval.low == pytest.approx(expected[0], abs=0.05 * width)
    assert interval.high == pytest.approx(expected[1], abs=0.05 * width)


@pytest.mark.parametrize("lower_is_better", [True, False])
def test_paired_mean_margin_agrees_with_a_row_bootstrap_written_here(lower_is_better):
    scores = np.random.Generator(np.random.MT19937(3))
    careful = scores.gamma(2.0, 0.5, 40)
    other = careful + scores.normal(0.3, 0.4, 40)
    margin = (other - careful) if lower_is_better else (careful - other)
    interval = paired_mean_margin(careful.tolist(), other.tolist(), lower_is_better)
    assert interval.estimate == pytest.approx(float(np.mean(margin)), rel=1e-12)
    _close(interval, _row_bootstrap(lambda picks: margin[picks].mean(axis=1), len(margin)))
    assert interval.over == "experiments" and interval.careful_better == (interval.low > 0)


def _f1(truth: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """F1 of class 1, row-wise over the last axis, from its definition 2 tp / (2 tp + fp + fn)."""
    tp = np.sum((truth == 1) & (predicted == 1), axis=-1)
    wrong = np.sum(truth != predicted, axis=-1)
    denominator = 2 * tp + wrong
    return np.where(denominator > 0, 2 * tp / np.maximum(denominator, 1), 0.0)


def test_paired_f1_margin_agrees_with_a_row_bootstrap_written_here():
    rows = np.random.Generator(np.random.MT19937(11))
    truth = (rows.random(600) < 0.2).astype(int)
    careful = np.where(rows.random(600) < 0.9, truth, 1 - truth)  # right on 90% of the rows
    other = np.where(rows.random(600) < 0.8, truth, 1 - truth)  # right on 80%
    interval = paired_f1_margin(truth, careful, other)
    assert interval.estimate == pytest.approx(float(_f1(truth, careful) - _f1(truth, other)), rel=1e-12)
    _close(interval, _row_bootstrap(lambda picks: _f1(truth[picks], careful[picks]) - _f1(truth[picks], other[picks]),
                                    len(truth)))
    assert interval.over == "holdout rows" and interval.careful_better


def _gim1_wait(transform, mean_service: float) -> float:
    """Wq of GI/M/1 in closed form: sigma / (mu (1 - sigma)), sigma the root in (0, 1) of sigma = A*(mu (1 - sigma)),
    A* the interarrival time's Laplace-Stieltjes transform; the root found by bisection (f > 0 below it)."""
    mu = 1.0 / mean_service
    low, high = 0.0, 1.0 - 1e-12
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if transform(mu * (1 - middle)) > middle else (low, middle)
    sigma = (low + high) / 2
    return sigma / (mu * (1 - sigma))


def _erlang_transform(mean: float, shape: int):
    rate = shape / mean
    return lambda s: (rate / (rate + s)) ** shape


def _hyperexponential_transform(branches):
    return lambda s: sum(float(b["probability"]) / (1 + float(b["mean"]) * s) for b in branches)


@pytest.mark.parametrize("mean_service", [0.3, 0.7, 0.9])
@pytest.mark.parametrize("arrivals", ["erlang2", "erlang3", "hyperexponential"])
def test_the_chain_gives_gim1_its_closed_form(arrivals, mean_service):
    """One station, exponential service, non-Poisson arrivals of mean 1: the only non-Poisson case with a closed
    form, so the chain (the one computation of every other non-Poisson truth) is checked where it can be."""
    if arrivals == "hyperexponential":
        interarrival = hyperexponential(1.0, 4.0)
        transform = _hyperexponential_transform(interarrival.spec["branches"])
    else:
        shape = int(arrivals[-1])
        interarrival, transform = erlang(1.0, shape), _erlang_transform(1.0, shape)
    line = Line(1, interarrival, exponential(mean_service))
    exact = ctmc_wait(line)
    assert exact.method == CTMC and exact.wait == pytest.approx(_gim1_wait(transform, mean_service), rel=1e-9)
    config = {"stations": 1, "interarrival": dict(interarrival.spec), "service": dict(exponential(mean_service).spec)}
    assert mean_wait(config).wait == exact.wait  # the truth a corpus writes is this chain's answer
