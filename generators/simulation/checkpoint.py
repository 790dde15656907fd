"""What lets a full-size simulation corpus be built over several sessions: each line's truth, once computed,
kept in the output folder, and each calibration run's result likewise.

A full-size corpus costs about 100 CPU minutes of reference simulation (33 of 48 lines simulated, 5,000 million
orders a line before its share by stations); a
kill or a session's end must not throw away the lines already done. While a corpus is being built its output
folder holds only the secret it is keyed by (`secret.hex`, so a fresh secret survives to the next try) and
`reference_progress/`, one file a finished line. The folder has no manifest until the corpus is published whole
(durable.publishing replaces the folder), so a partial corpus never reads as a complete one. The published corpus
carries a copy of `reference_progress/`, so a corpus given more reference batches later (SimParams.reference_batches)
keeps the ones it has.

A kept line is reused only when its key matches: the hash of everything its truth depends on (the generator's
version, the reference method's constants, the configuration, the order count and the seed material, which
carries the secret). A changed configuration, order count or secret gives another key, and the line is
simulated again. The key is a one-way hash; the secret itself stays in `secret.hex`.

Calibration keeps each (submission, configuration) result under `calibration_progress/`, keyed by the
submission's code and the configuration file's bytes, so a re-run grades what was run and runs only the rest.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import durable
from generators.secret import SECRET_FILE, Secret
from generators.simulation import reference
from generators.simulation.params import GENERATOR_VERSION

PROGRESS_DIR = "reference_progress"  # one <part>/<line>.json a finished line's truth
RESULTS_DIR = "calibration_progress"  # one <submission>/<configuration>.<key>.json a finished run's result
_PARTIAL_ENTRIES = {PROGRESS_DIR, SECRET_FILE}


def line_key(config: Mapping[str, Any], orders: int, seeds: np.random.SeedSequence) -> str:
    """The hash of everything a line's truth depends on."""
    material = {
        "generator_version": GENERATOR_VERSION,
        "reference": [reference.REPLICATIONS, reference.CHUNK, reference.WARMUP_RELAXATIONS, reference.MIN_WARMUP,
                      reference.ESTIMATOR, [list(pair) for pair in reference.ORDERS_BY_STATIONS],
                      reference.OTHER_STATIONS_SHARE],
        "configuration": config,
        "orders": orders,
        "seed_material": [str(seeds.entropy), list(seeds.spawn_key)],
    }
    return hashlib.sha256(durable.dumps(material, sort_keys=True).encode("utf-8")).hexdigest()


def kept_row(path: Path, key: str) -> dict[str, Any] | None:
    """The truth row kept in `path` for `key`, or None (absent, unreadable, or another key: stale)."""
    try:
        kept = durable.read_json(path)
    except (OSError, durable.DurableError):
        return None
    if not (isinstance(kept, dict) and kept.keys() >= {"key", "row"} and kept["key"] == key
            and isinstance(kept["row"], dict)):
        return None
    return dict(kept["row"])


def keep_row(path: Path, key: str, row: Mapping[str, Any]) -> None:
    durable.write_json(path, {"key": key, "row": dict(row)}, mode=durable.PRIVATE)


def checkpointed(compute: Callable[[], dict[str, Any]], path: Path | None, key: str) -> dict[str, Any]:
    """The kept row for `key` in `path`, else `compute()` kept there first (no `path`: nothing kept)."""
    if path is None:
        return compute()
    found = kept_row(path, key)
    if found is None:
        found = compute()
        keep_row(path, key, found)
    return found


def is_partial(out_dir: Path) -> bool:
    """A folder holding only what an unfinished build left (its secret, its kept lines): safe to resume into."""
    out_dir = Path(out_dir)
    return out_dir.is_dir() and (out_dir / PROGRESS_DIR).is_dir() and all(
        entry.name in _PARTIAL_ENTRIES for entry in out_dir.iterdir())


def resumable_secret(out_dir: Path, secret_class: type[Secret]) -> Secret | None:
    """The secret a partial build in `out_dir` was keyed by, or None where there is no partial build."""
    path = Path(out_dir) / SECRET_FILE
    return secret_class.read(path) if is_partial(out_dir) and path.is_file() else None


def start_progress(out_dir: Path, secret: Secret) -> Path:
    """`out_dir` made a partial build keyed by `secret` (written once, readable by its owner only); the folder
    its lines are kept in."""
    out_dir = Path(out_dir)
    out_dir.mkdir(mode=0o700, exist_ok=True)
    progress = out_dir / PROGRESS_DIR  # first: a folder with it is resumable, with or without its secret yet
    progress.mkdir(mode=0o700, exist_ok=True)
    path = out_dir / SECRET_FILE
    if not path.is_file() or type(secret).read(path) != secret:
        durable.write_text(path, secret.hex() + "\n", mode=durable.PRIVATE)
    return progress


def reusable_progress(out_dir: Path, secret: Secret) -> Path | None:
    """The kept lines of a published corpus in `out_dir` made with `secret` (a corpus carries them, so that more
    reference batches can be added to it later), or None."""
    out_dir = Path(out_dir)
    progress, path = out_dir / PROGRESS_DIR, out_dir / SECRET_FILE
    return progress if progress.is_dir() and path.is_file() and type(secret).read(path) == secret else None


def result_key(submission: Path, config: Path) -> str:
    """The hash of a run's inputs: the submission's code and the configuration file."""
    digest = hashlib.sha256()
    for path in (Path(submission) / "simulate.py", Path(config)):
        digest.update(path.read_bytes())
        digest.update(b"\x00")
    return digest.hexdigest()[:24]


def kept_run(run: Callable[[], None], output: Path, kept: Path | None) -> None:
    """`run()` (which writes `output`), unless `kept` holds its result already: then that is copied to `output`.
    A fresh result is kept atomically (a kill leaves no half-written one)."""
    if kept is not None and kept.is_file():
        shutil.copyfile(kept, output)
        return
    run()
    if kept is not None:
        durable.write_bytes(kept, Path(output).read_bytes(), mode=durable.PRIVATE)
