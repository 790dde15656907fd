"""calibration.json: what `bakeoff calibrate` and the benches write of any task's calibration, in its corpus folder."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import durable

CALIBRATION_FILE = "calibration.json"


class CalibrationRecord(Protocol):
    """What calibration.json is written from: any task's calibration."""

    def to_dict(self) -> dict[str, object]: ...


def write_calibration(calibration: CalibrationRecord, folder: Path) -> Path:
    """Write calibration.json into `folder` atomically (durable; private to its owner, as before)."""
    target = Path(folder) / CALIBRATION_FILE
    durable.write_json(target, calibration.to_dict(), mode=durable.PRIVATE)
    return target
