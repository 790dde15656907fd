"""What the spam report reads of its corpus's own files, typed: the manifest's measured holdout spam rate and the
calibration's reference rows (generators.spam_classifier writes both; `bakeoff calibrate` the second).

A corpus comes with its batch, made by a generator of any age, so these reads are lenient as the manifest's head
is (bakeoff.records.manifest): a file, or a part of it, that is not of this shape reads as absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bakeoff.records.codec import decode_or_none


@dataclass(frozen=True)
class Measured:
    """The manifest's `measured` part: what the generator measured of the corpus it wrote."""

    holdout_spam_rate: float | None = None


@dataclass(frozen=True)
class SpamManifest:
    measured: Measured | None = None


@dataclass(frozen=True)
class ReferenceRow:
    """One reference of calibration.json (generators.spam_classifier.calibration.runner.ReferenceResult)."""

    variant: str = "?"
    local_f1: float | None = None  # what its train.py reported on its own split
    holdout_f1: float | None = None
    predicted_positive_rate: float | None = None


@dataclass(frozen=True)
class SpamCalibration:
    references: tuple[ReferenceRow, ...] = ()


def holdout_spam_rate(manifest: Mapping[str, Any] | None) -> float | None:
    """The holdout's true spam rate as the generator measured it (None where the manifest has none)."""
    found = decode_or_none(SpamManifest, manifest)
    return found.measured.holdout_spam_rate if found is not None and found.measured is not None else None


def references(calibration: Mapping[str, Any] | None) -> tuple[ReferenceRow, ...]:
    """The calibration's reference rows (none without a calibration, or with one of another shape)."""
    found = decode_or_none(SpamCalibration, calibration)
    return found.references if found is not None else ()
