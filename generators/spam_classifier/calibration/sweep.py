"""Difficulty sweep: regenerate the corpus at several contamination settings and
record each reference's holdout F1. Text-only F1 should fall as contamination rises."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from generators.secret import Secret
from generators.spam_classifier import CorpusParams, generate_corpus
from generators.spam_classifier.calibration.runner import ReferenceResult, run_reference

# Around the calibrated default, which the sweep takes from the corpus itself rather than regenerating.
DEFAULT_POINTS = (0.10, 0.15, 0.20, CorpusParams.contamination, 0.30)
DEFAULT_SWEEP_VARIANTS = ("text_only",)


@dataclass(frozen=True)
class SweepPoint:
    contamination: float
    results: tuple[ReferenceResult, ...]

    def holdout_f1(self, variant: str) -> float | None:
        return next((r.holdout_f1 for r in self.results if r.variant == variant), None)

    def to_dict(self) -> dict[str, object]:
        return {"contamination": self.contamination, "results": [r.to_dict() for r in self.results]}


def falls_monotonically(points: Sequence[SweepPoint], variant: str = "text_only") -> bool:
    """True when the variant's holdout F1 strictly decreases as contamination rises."""
    ordered = sorted(points, key=lambda point: point.contamination)
    scores = [point.holdout_f1(variant) for point in ordered]
    return all(a is not None and b is not None and a > b for a, b in pairwise(scores))


def run_sweep(
    base: CorpusParams,
    contaminations: Sequence[float] = DEFAULT_POINTS,
    variants: Sequence[str] = DEFAULT_SWEEP_VARIANTS,
    progress: Callable[[str], None] = lambda _: None,
    known: Sequence[ReferenceResult] = (),
    secret: Secret | None = None,
) -> tuple[SweepPoint, ...]:
    """One corpus per contamination (other params as `base`, the holdout drawn with `secret`: the base
    corpus's own when given, so the sweep is reproducible), each scored by `variants`.

    `known` holds results already measured on the `base` corpus itself; the point at
    base.contamination reuses them instead of generating the same corpus again.
    """
    points = []
    reusable = tuple(r for r in known if r.variant in variants)
    with tempfile.TemporaryDirectory(prefix="bakeoff-sweep-") as scratch:
        for contamination in contaminations:
            if contamination == base.contamination and len(reusable) == len(variants):
                points.append(SweepPoint(contamination=contamination, results=reusable))
                continue
            params = dataclasses.replace(base, contamination=contamination)
            corpus = Path(scratch) / f"contamination-{contamination:.3f}"
            progress(f"sweep: generating contamination {contamination:.3f}")
            generate_corpus(params, corpus, secret=secret)
            results = []
            for variant in variants:
                progress(f"sweep: contamination {contamination:.3f}, {variant}")
                results.append(run_reference(variant, corpus))
            points.append(SweepPoint(contamination=contamination, results=tuple(results)))
    return tuple(points)
