"""Calibration: run the three reference pipelines and the cheaters on a corpus and check the targets.

`calibrate(corpus_dir, sweep=False) -> Calibration`; generators.common.calibration_file saves
calibration.json atomically in the corpus folder. Every row other than careful gets
careful's paired margin on the holdout F1 (generators.common.paired).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from generators.common.paired import paired_f1_margin
from generators.secret import corpus_secret
from generators.spam_classifier import CorpusParams, read_manifest
from generators.spam_classifier.calibration.checks import CalibrationChecks, evaluate
from generators.spam_classifier.calibration.runner import (
    ReferenceResult,
    ReferenceRun,
    check_corpus,
    run_reference_predictions,
)
from generators.spam_classifier.calibration.sweep import (
    DEFAULT_POINTS,
    DEFAULT_SWEEP_VARIANTS,
    SweepPoint,
    falls_monotonically,
    run_sweep,
)
from generators.spam_classifier.references import CHEATERS, VARIANTS


@dataclass(frozen=True)
class Calibration:
    corpus: str
    params: CorpusParams
    references: tuple[ReferenceResult, ...]
    checks: CalibrationChecks
    sweep: tuple[SweepPoint, ...] = ()
    cheaters: tuple[ReferenceResult, ...] = ()
    secret_id: str | None = None  # the secret the holdout was drawn with (the manifest's)
    spread_secret_ids: tuple[str, ...] = ()  # the secrets of the spread corpora, in each row's spread order

    @property
    def sweep_falls_monotonically(self) -> bool | None:
        return falls_monotonically(self.sweep) if self.sweep else None

    @property
    def rows(self) -> tuple[ReferenceResult, ...]:
        return self.references + self.cheaters

    def to_dict(self) -> dict[str, object]:
        return {
            "corpus": self.corpus,
            "params": self.params.to_dict(),
            "secret_id": self.secret_id,
            "references": [result.to_dict() for result in self.references],
            "cheaters": [result.to_dict() for result in self.cheaters],
            "checks": self.checks.to_dict(),
            "sweep": [point.to_dict() for point in self.sweep],
            "sweep_text_only_falls_monotonically": self.sweep_falls_monotonically,
            "spread_secret_ids": list(self.spread_secret_ids),
        }


def corpus_params(corpus: Path) -> CorpusParams:
    return CorpusParams(**read_manifest(corpus)["params"])


def with_margins(runs: Sequence[ReferenceRun]) -> list[ReferenceResult]:
    """Each row's result with careful's paired F1 margin over it (bootstrap over the holdout rows)."""
    careful = next(run for run in runs if run.result.variant == "careful")
    return [run.result if run is careful else replace(
        run.result, margin=paired_f1_margin(careful.truth, careful.predictions, run.predictions),
        spread_margins=tuple(paired_f1_margin(truth, mine, theirs)
                             for (truth, mine), (_, theirs) in zip(careful.spread, run.spread, strict=True)))
        for run in runs]


def run_rows(corpus: Path, variants: Sequence[str], spread: Sequence[Path] = (),
             progress: Callable[[str], None] = lambda _: None) -> list[ReferenceRun]:
    """Each of `variants` (references or cheaters) trained on `corpus` and predicting its holdout (and spread's)."""
    runs = []
    for variant in variants:
        progress(f"running {variant}")
        runs.append(run_reference_predictions(variant, Path(corpus).absolute(), spread=spread))
    return runs


def calibrate(
    corpus: Path,
    sweep: bool = False,
    sweep_points: Sequence[float] = DEFAULT_POINTS,
    sweep_variants: Sequence[str] = DEFAULT_SWEEP_VARIANTS,
    progress: Callable[[str], None] = lambda _: None,
    spread: Sequence[Path] = (),
) -> Calibration:
    """Run careless, text_only, careful and the cheaters on `corpus`; with `sweep`, also the difficulty sweep.

    `spread` names corpora with the same seed and parameters drawn with other secrets: each row, trained
    once, also predicts their holdouts, and keeps those F1 scores as its `spread`."""
    corpus = Path(corpus).absolute()
    check_corpus(corpus)
    params = corpus_params(corpus)
    rows = with_margins(run_rows(corpus, VARIANTS + CHEATERS, spread, progress))
    results = [row for row in rows if row.variant in VARIANTS]
    points: tuple[SweepPoint, ...] = ()
    if sweep:
        points = run_sweep(params, sweep_points, sweep_variants, progress, known=results, secret=corpus_secret(corpus))
    return Calibration(
        str(corpus), params, tuple(results), evaluate(rows), points,
        cheaters=tuple(row for row in rows if row.variant in CHEATERS),
        secret_id=read_manifest(corpus).get("secret_id"),
        spread_secret_ids=tuple(str(read_manifest(Path(folder)).get("secret_id")) for folder in spread),
    )


__all__ = ["Calibration", "CalibrationChecks", "ReferenceResult", "ReferenceRun", "SweepPoint", "calibrate", "run_rows",
           "with_margins"]
