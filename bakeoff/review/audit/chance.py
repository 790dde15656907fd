"""What chance allows a reader on one family's pairs: the exact null of Youden's J at the family's pair count.

On a family of n pairs answered S times each, a reader's J is the sum over the pairs of t_p, divided by n * S,
where t_p counts the samples that called the flawed twin PROBLEM less those that called its sound twin PROBLEM.
A reader that cannot tell which twin is flawed (it never learned from this pair, and what it learned says
nothing about it) would have given the same verdicts had the other twin been the flawed one, and then t_p
would have been -t_p; under that null each pair's sign is a fair coin. J's null distribution is therefore the
sum of +-|t_p| over the 2^n sign choices, exact and conditional on the reader's own verdicts. For a contrastive
reader (one twin of every pair PROBLEM, |t_p| = S) it is 2k/n - 1 with k ~ Binomial(n, 1/2); a reader that
calls both twins alike in a pair has t_p = 0 there, and that pair moves nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from bakeoff.review.items import ReviewItem, group_pairs


def pair_terms(items: Sequence[ReviewItem], runs: Sequence[dict[str, bool]], family: str) -> list[int]:
    """t_p for every pair of `family` in `items`: PROBLEM verdicts on the flawed twin less those on the sound one,
    over the runs (run k is sample k; every run answers every item)."""
    terms = []
    for ok, bad in group_pairs(items).values():
        if bad.family == family:
            terms.append(sum(int(run[bad.id]) - int(run[ok.id]) for run in runs))
    return terms


def chance_at_least(terms: Sequence[int]) -> float:
    """The probability that a reader blind to which twin is flawed reaches a J at least as high as these terms
    give: the share of the 2^n sign choices whose sum is at least sum(terms). 1.0 for no pairs."""
    counts = {0: 1}  # sum of the signed terms so far -> number of sign choices giving it
    for term in terms:
        step: dict[int, int] = {}
        for total, ways in counts.items():
            for signed in (abs(term), -abs(term)):
                step[total + signed] = step.get(total + signed, 0) + ways
        counts = step
    observed = sum(terms)
    return sum(ways for total, ways in counts.items() if total >= observed) / 2 ** len(terms)
