"""A negative-control corpus (`bakeoff generate --control`): the task's data as usual, then the hidden answers made
unrelated to the inputs, so that no analysis can beat chance on it and a run that does is a signal.

A task declares what to permute in one line (ControlTruth: the truth file and its column); the permutation is the
same for every task: the column's values moved across the hidden units (rows) by a permutation keyed by the
corpus's own secret, with no unit keeping its own value. The manifest says so (`control`), with the secret's id
only, so the permutation stays as hidden as the truth it scrambles.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import durable
from bakeoff.errors import BakeoffError

CONTROL_KEY = "control"  # the manifest's mark of a negative-control corpus
PERMUTATION_PURPOSE = "negative control: the hidden truth permuted across hidden units"
MAX_TRUTH_BYTES = 256 * 1024 * 1024


class ControlNotAvailable(BakeoffError):
    """`--control` for a task that declares no truth to permute, or a truth file that cannot be permuted."""


@dataclass(frozen=True)
class ControlTruth:
    """What a task's negative control permutes: `column` of the CSV `file` (relative to the corpus folder), whose
    rows are the hidden units."""

    file: str
    column: str


def derangement(units: int, seed_material: object) -> list[int]:
    """A permutation of range(units) with no fixed point (uniform among those), drawn from `seed_material` (a
    numpy SeedSequence or an int); the identity of one unit where no other exists."""
    import numpy as np

    rng = np.random.default_rng(seed_material)  # type: ignore[arg-type]
    if units < 2:
        return list(range(units))
    while True:  # about e tries on average
        order = [int(i) for i in rng.permutation(units)]
        if all(i != j for i, j in enumerate(order)):
            return order


def permute_column(text: str, column: str, order: list[int]) -> str:
    """The CSV `text` with `column`'s values moved: row i takes the value of row order[i]."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or column not in rows[0]:
        raise ControlNotAvailable(f"the truth file has no column {column!r}")
    at, body = rows[0].index(column), rows[1:]
    if len(order) != len(body):
        raise ControlNotAvailable(f"the permutation has {len(order)} units, the truth file {len(body)} rows")
    values = [row[at] for row in body]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(rows[0])
    for row, source in zip(body, order, strict=True):
        writer.writerow([*row[:at], values[source], *row[at + 1:]])
    return out.getvalue()


def make_control(folder: Path, truth: ControlTruth, manifest: str) -> int:
    """Permute `truth` in the corpus `folder` and mark its manifest; the number of hidden units permuted."""
    from generators.secret import Secret, corpus_secret

    path = Path(folder) / truth.file
    if not path.is_file() or path.stat().st_size > MAX_TRUTH_BYTES:
        raise ControlNotAvailable(f"{path} is not a truth file this control can permute")
    secret = corpus_secret(folder) or Secret.fresh()  # a corpus without its secret: a key nobody keeps
    text = path.read_text(encoding="utf-8")
    units = max(0, sum(1 for _ in csv.reader(io.StringIO(text))) - 1)
    order = derangement(units, secret.seed_sequence(0, PERMUTATION_PURPOSE))
    durable.write_text(path, permute_column(text, truth.column, order), mode=path.stat().st_mode & 0o777)
    mark_manifest(Path(folder) / manifest, truth, units, secret.identity)
    return units


def mark_manifest(path: Path, truth: ControlTruth, units: int, secret_id: str) -> None:
    found = durable.read_json(path)
    if not isinstance(found, dict):
        raise ControlNotAvailable(f"{path} is not a manifest (not a JSON object)")
    found[CONTROL_KEY] = {"permuted": f"{truth.file}:{truth.column}", "units": units, "keyed_by": secret_id}
    durable.write_json(path, found, mode=path.stat().st_mode & 0o777)


def is_control(manifest: object) -> bool:
    """Whether a corpus's manifest (as read) marks a negative control."""
    return isinstance(manifest, Mapping) and CONTROL_KEY in manifest and isinstance(manifest[CONTROL_KEY], Mapping)
