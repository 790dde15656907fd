"""Writing a corpus folder atomically: everything goes into a staging folder beside the
target, which is swapped into place whole (durable) only once complete. A failed or interrupted run leaves
no folder that looks like a corpus."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import durable
from generators.common.output import check_target, file_sha256, new_staging
from generators.secret import Secret
from generators.spam_classifier.corpus import CorpusTables, Progress, build_tables, no_progress
from generators.spam_classifier.measure import MeasuredRates, measure_corpus
from generators.spam_classifier.memory import check_memory
from generators.spam_classifier.params import GENERATOR_VERSION, CorpusParams

EXCERPT_LINES = 10
DATA_FILES = ("train.csv", "holdout.csv", "holdout_answers.csv", "truth.csv", "excerpt.txt")


@dataclass(frozen=True)
class Manifest:
    """What manifest.json records: how the corpus was made and what it measured."""

    generator_version: str
    params: CorpusParams
    sha256: dict[str, str]
    measured: MeasuredRates
    secret_id: str  # names the secret the holdout was drawn with (generators.secret); never the secret

    @property
    def seed(self) -> int:
        return self.params.seed

    def to_dict(self) -> dict[str, object]:
        return {
            "generator_version": self.generator_version,
            "seed": self.params.seed,
            "secret_id": self.secret_id,
            "hidden_part": "holdout rows and labels: drawn from the seed and the secret in secret.hex, never mounted",
            "params": self.params.to_dict(),
            "sha256": dict(self.sha256),
            "measured": self.measured.to_dict(),
        }




def _write_csv(frame, path: Path) -> None:
    frame.to_csv(path, index=False, lineterminator="\n", encoding="utf-8")


def _write_excerpt(train_csv: Path, excerpt: Path) -> None:
    with train_csv.open(encoding="utf-8", newline="") as source:
        lines = [next(source) for _ in range(EXCERPT_LINES)]
    excerpt.write_text("".join(lines), encoding="utf-8", newline="")


def write_tables(tables: CorpusTables, folder: Path) -> None:
    _write_csv(tables.train, folder / "train.csv")
    _write_csv(tables.holdout, folder / "holdout.csv")
    _write_csv(tables.holdout_answers, folder / "holdout_answers.csv")
    _write_csv(tables.truth, folder / "truth.csv")
    _write_excerpt(folder / "train.csv", folder / "excerpt.txt")






def generate_corpus(
    params: CorpusParams, out_dir: Path, force: bool = False, progress: Progress = no_progress,
    secret: Secret | None = None,
) -> Manifest:
    """Generate the corpus for `params` into `out_dir` and return its manifest.

    The training rows depend on `params` alone; the holdout also on `secret` (a fresh one from the
    operating system when none is given), which is written to `out_dir/secret.hex` beside the answer key.
    """
    secret = secret if secret is not None else Secret.fresh()
    out_dir = Path(out_dir).absolute()
    check_memory(params.rows, params.holdout_rows)  # before anything is allocated
    check_target(out_dir, force)
    staging = new_staging(out_dir)
    with durable.publishing(staging, out_dir):  # replaces whatever was there, whole; a failure removes the staging
        tables = build_tables(params, secret, progress)
        progress("writing files")
        write_tables(tables, staging)
        del tables
        secret.write(staging)
        progress("measuring the written files")
        manifest = Manifest(
            generator_version=GENERATOR_VERSION,
            params=params,
            sha256={name: file_sha256(staging / name) for name in DATA_FILES},
            measured=measure_corpus(staging),
            secret_id=secret.identity,
        )
        text = json.dumps(manifest.to_dict(), indent=2, sort_keys=True) + "\n"
        (staging / "manifest.json").write_text(text, encoding="utf-8")
    return manifest


def read_manifest(folder: Path) -> dict[str, Any]:
    """The manifest of an existing corpus folder, as written (a plain JSON object)."""
    return json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8"))
