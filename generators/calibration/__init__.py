"""Calibration: run the three reference pipelines on a corpus and check the targets.

`calibrate(corpus_dir, sweep=False) -> Calibration`; `write_calibration` saves
calibration.json atomically in the corpus folder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import durable
from generators.calibration.checks import CalibrationChecks, evaluate
from generators.calibration.runner import ReferenceResult, check_corpus, run_reference
from generators.calibration.sweep import (
    DEFAULT_POINTS,
    DEFAULT_SWEEP_VARIANTS,
    SweepPoint,
    falls_monotonically,
    run_sweep,
)
from generators.references import VARIANTS
from generators.spam import CorpusParams, read_manifest

CALIBRATION_FILE = "calibration.json"


@dataclass(frozen=True)
class Calibration:
    corpus: str
    params: CorpusParams
    references: tuple[ReferenceResult, ...]
    checks: CalibrationChecks
    sweep: tuple[SweepPoint, ...] = ()

    @property
    def sweep_falls_monotonically(self) -> bool | None:
        return falls_monotonically(self.sweep) if self.sweep else None

    def to_dict(self) -> dict[str, object]:
        return {
            "corpus": self.corpus,
            "params": self.params.to_dict(),
            "references": [result.to_dict() for result in self.references],
            "checks": self.checks.to_dict(),
            "sweep": [point.to_dict() for point in self.sweep],
            "sweep_text_only_falls_monotonically": self.sweep_falls_monotonically,
        }


def corpus_params(corpus: Path) -> CorpusParams:
    return CorpusParams(**read_manifest(corpus)["params"])


def calibrate(
    corpus: Path,
    sweep: bool = False,
    sweep_points: Sequence[float] = DEFAULT_POINTS,
    sweep_variants: Sequence[str] = DEFAULT_SWEEP_VARIANTS,
    progress: Callable[[str], None] = lambda _: None,
) -> Calibration:
    """Run careless, text_only and careful on `corpus`; with `sweep`, also the difficulty sweep."""
    corpus = Path(corpus).absolute()
    check_corpus(corpus)
    params = corpus_params(corpus)
    results = []
    for variant in VARIANTS:
        progress(f"running reference {variant}")
        results.append(run_reference(variant, corpus))
    points: tuple[SweepPoint, ...] = ()
    if sweep:
        points = run_sweep(params, sweep_points, sweep_variants, progress, known=results)
    return Calibration(str(corpus), params, tuple(results), evaluate(results), points)


def write_calibration(calibration: Calibration, folder: Path) -> Path:
    """Write calibration.json into `folder` atomically (durable; private to its owner, as before)."""
    target = Path(folder) / CALIBRATION_FILE
    durable.write_json(target, calibration.to_dict(), mode=durable.PRIVATE)
    return target


__all__ = ["Calibration", "CalibrationChecks", "ReferenceResult", "SweepPoint", "calibrate", "write_calibration"]
