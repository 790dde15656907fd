"""The claim-review section: one row per review result found in the batch folder.

A result folder is what `bakeoff review --out DIR` writes (docs/review.md); the report
reads its review.json and shows the headline cuts, and each flaw family's recall.
Fields it lacks show as blanks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bakeoff.report.tables import Column, Table

REVIEW_FIELDS = (
    ("accuracy", "pct"),
    ("problem_recall", "pct"),
    ("ok_specificity", "pct"),
    ("youden_j", "f3"),
    ("pair_accuracy", "pct"),
    ("localization", "pct"),
    ("brier", "f3"),
    ("captured", "int"),
    ("uncaptured", "int"),
    ("unusable", "int"),
)


def _model_of(source: str, metrics: Mapping[str, Any]) -> str:
    model = metrics.get("model")
    if isinstance(model, Mapping):
        model = model.get("label") or model.get("spec")
    return str(model) if model else source


def _numbers(metrics: Mapping[str, Any]) -> Mapping[str, Any]:
    """The headline numbers, at the top level or under a "metrics" key."""
    inner = metrics.get("metrics")
    return inner if isinstance(inner, Mapping) else metrics


def review_tables(reviews: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Table]:
    if not reviews:
        return []
    columns = (Column("model"), Column("source"), *(Column(name, kind) for name, kind in REVIEW_FIELDS))
    rows = []
    baselines: dict[Any, tuple[str, Mapping[str, Any]]] = {}
    for source, metrics in reviews:
        rows.append((_model_of(source, metrics), source, *_values(_numbers(metrics))))
        baseline = metrics.get("baseline_cues")
        if isinstance(baseline, Mapping) and isinstance(baseline.get("metrics"), Mapping):
            # One floor row per item set: reviews of the same items share it.
            baselines.setdefault(metrics.get("items_sha256") or source, (source, baseline["metrics"]))
    for source, numbers in baselines.values():
        rows.append((BASELINE_LABEL, source, *_values(numbers)))
    return [Table("claim_review", "Claim-versus-code review", columns, tuple(rows)), _families(reviews)]


BASELINE_LABEL = "baseline:cues (reading without understanding)"


def _values(numbers: Mapping[str, Any]) -> tuple:
    return tuple(numbers.get(name) if isinstance(numbers.get(name), (int, float)) else None for name, _ in REVIEW_FIELDS)


def _families(reviews: Sequence[tuple[str, Mapping[str, Any]]]) -> Table:
    columns = (Column("model"), Column("family"), Column("answers", "int"), Column("recall", "pct"),
               Column("specificity", "pct"), Column("youden_j", "f3"), Column("localization", "pct"))
    rows = []
    for source, metrics in reviews:
        families = _numbers(metrics).get("per_family") or {}
        for family, entry in sorted(families.items()) if isinstance(families, Mapping) else ():
            rows.append((_model_of(source, metrics), family, entry.get("answers"), entry.get("recall"),
                         entry.get("specificity"), entry.get("youden_j"), entry.get("localization")))
    return Table("claim_review_families", "Claim review: PROBLEM recall per flaw family", columns, tuple(rows))
