"""The headline numbers of a review result, Youden's J included.

J = PROBLEM recall + OK specificity - 1 (0 for a model that flags at random, 1 for a perfect
one). It is read from the review's metrics when they carry it (`youden_j`), else computed
from the two rates; null when either is null, as every review metric with nothing to compute.
"""

from __future__ import annotations

from bakeoff.review.records import ReviewNumbers

HEADLINE = ("accuracy", "problem_recall", "ok_specificity", "pair_accuracy", "youden_j")


def youden_j(metrics: ReviewNumbers) -> float | None:
    if metrics.youden_j is not None:
        return metrics.youden_j
    if metrics.problem_recall is not None and metrics.ok_specificity is not None:
        return metrics.problem_recall + metrics.ok_specificity - 1.0
    return None


def headline(metrics: ReviewNumbers) -> dict[str, float | None]:
    numbers = {name: getattr(metrics, name) for name in HEADLINE}
    numbers["youden_j"] = youden_j(metrics)
    return numbers
