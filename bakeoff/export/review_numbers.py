"""The headline numbers of a review result, Youden's J included.

J = PROBLEM recall + OK specificity - 1 (0 for a model that flags at random, 1 for a perfect
one). It is read from the review's metrics when they carry it (`youden_j`), else computed
from the two rates; null when either is null, as every review metric with nothing to compute.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

HEADLINE = ("accuracy", "problem_recall", "ok_specificity", "pair_accuracy", "youden_j")


def youden_j(metrics: Mapping[str, Any]) -> float | None:
    given = metrics.get("youden_j")
    if isinstance(given, (int, float)) and not isinstance(given, bool):
        return float(given)
    recall, specificity = metrics.get("problem_recall"), metrics.get("ok_specificity")
    if isinstance(recall, (int, float)) and isinstance(specificity, (int, float)):
        return float(recall) + float(specificity) - 1.0
    return None


def headline(metrics: Mapping[str, Any]) -> dict[str, float | None]:
    numbers = {name: metrics.get(name) if isinstance(metrics.get(name), (int, float)) else None for name in HEADLINE}
    numbers["youden_j"] = youden_j(metrics)
    return numbers
