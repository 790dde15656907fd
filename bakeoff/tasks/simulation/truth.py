"""The hidden configurations' truth table (the generator's holdout_truth.csv), read once into typed rows: what the
check's metrics keep beside each configuration's score (band, load, stations, family) and what the probe chooses
its configurations by. The generator writes every cell as text; a number is read as one, an empty cell as absent.
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from bakeoff.errors import BakeoffError
from bakeoff.tasks.simulation.layout import TRUTH_PART


class DamagedTruthTable(BakeoffError):
    """A row of the corpus's truth table is not what the generator writes (a number that is not one, no name)."""


@dataclass(frozen=True)
class TruthRow:
    configuration: str
    band: str | None = None  # light, medium, heavy
    utilisation: float | None = None
    stations: int | None = None
    family: str | None = None
    method: str | None = None  # how the truth was found (an exact formula or simulation)
    cells: Mapping[str, str] = field(default_factory=dict)  # the row as written (the probe's rule reads it so)

    @classmethod
    def of(cls, cells: Mapping[str, str]) -> TruthRow:
        """A CSV row as a TruthRow: its text cells converted to the declared types."""
        given = {name: text for name, text in cells.items() if text not in (None, "") and name != "cells"}
        try:
            row = msgspec.convert(given, cls, strict=False)
        except msgspec.ValidationError as exc:
            raise DamagedTruthTable(f"the truth table's row {dict(cells)}: {exc}") from None
        return dataclasses.replace(row, cells=dict(cells))


def truth_table(corpus: Any) -> list[TruthRow]:
    """The hidden configurations' truth rows of a task's CorpusFiles, read on the host."""
    with open(corpus.path(TRUTH_PART), encoding="utf-8", newline="") as handle:
        return [TruthRow.of(row) for row in csv.DictReader(handle)]
