"""Running one reference submission (or cheater) on the host, the way a submission is run in a sandbox.

The references are our own trusted code, so calibration runs them as plain
subprocesses: copy the submission into a fresh workspace, link the training
file at data/train.csv, `python train.py`, then `python predict.py` on the
holdout features, and score the predictions against the answer key. The
predictions are kept, in the answer key's order, for the paired comparison
with the careful reference; the same trained model also predicts the holdouts
of `spread` corpora (the same seed and parameters drawn with other secrets,
so the same training file) to show how the figures move with the secret.
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from generators.common.child import child_env
from generators.common.paired import PairedInterval, RowKind
from generators.errors import CorpusNotFound, ReferenceFailed
from generators.spam_classifier.references import CHEATERS, materialize

CORPUS_FILES = ("train.csv", "holdout.csv", "holdout_answers.csv", "manifest.json")
_EXPECTED_F1 = re.compile(r"^EXPECTED_F1:\s*([0-9]*\.?[0-9]+)\s*$", re.MULTILINE)
_TAIL_CHARS = 2000


@dataclass(frozen=True)
class ReferenceResult:
    """How one reference did on one corpus."""

    variant: str
    local_f1: float  # what train.py reported on its stratified 80/20 split
    holdout_f1: float
    holdout_precision: float
    holdout_recall: float
    predicted_positive_rate: float
    train_seconds: float
    predict_seconds: float
    kind: RowKind = RowKind.REFERENCE
    margin: PairedInterval | None = None  # careful's holdout F1 minus this row's (None for careful itself)
    spread: tuple[float, ...] = ()  # holdout F1 on the same corpus drawn with other (fresh) secrets
    spread_margins: tuple[PairedInterval, ...] = ()  # careful's margin over this row on each of those

    def to_dict(self) -> dict[str, object]:
        found = asdict(self)
        found["kind"] = self.kind.value
        found["margin"] = self.margin.to_dict() if self.margin else None
        found["spread"] = list(self.spread)
        found["spread_margins"] = [m.to_dict() for m in self.spread_margins]
        return found


@dataclass(frozen=True)
class ReferenceRun:
    """A row's result and its holdout predictions, both in the answer key's row order."""

    result: ReferenceResult
    truth: np.ndarray
    predictions: np.ndarray
    spread: tuple[tuple[np.ndarray, np.ndarray], ...] = ()  # (truth, predictions) on each spread corpus


def check_corpus(corpus: Path) -> None:
    missing = [name for name in CORPUS_FILES if not (corpus / name).is_file()]
    if missing:
        raise CorpusNotFound(f"{corpus} is not a corpus folder (missing {', '.join(missing)})")


def _run(argv: list[str], cwd: Path, step: str, variant: str) -> tuple[str, float]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=child_env())
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-_TAIL_CHARS:]
        raise ReferenceFailed(f"{variant} {step} exited with {done.returncode}:\n{tail}")
    return done.stdout, elapsed


def parse_expected_f1(output: str) -> float:
    found = _EXPECTED_F1.findall(output)
    if not found:
        raise ReferenceFailed(f"training output has no EXPECTED_F1 line:\n{output[-_TAIL_CHARS:]}")
    return float(found[-1])


def _aligned(predictions: Path, answers: Path) -> tuple[np.ndarray, np.ndarray]:
    """(answer-key labels, predicted labels) in the answer key's order; the scorer has checked both files."""
    with open(answers, newline="", encoding="utf-8") as handle:
        key = [(row["id"].strip(), int(row["label"])) for row in csv.DictReader(handle)]
    with open(predictions, newline="", encoding="utf-8-sig") as handle:
        predicted = {row["id"].strip(): int(float(row["label"])) for row in csv.DictReader(handle)}
    return np.array([label for _, label in key]), np.array([predicted[row_id] for row_id, _ in key])


def _predict(workspace: Path, corpus: Path, scratch: Path, variant: str, python: str):
    from scorer import score_files

    predictions = scratch / "predictions.csv"
    predictions.unlink(missing_ok=True)
    predict_argv = [python, "predict.py", "--input", str(corpus / "holdout.csv"), "--output", str(predictions)]
    _, seconds = _run(predict_argv, workspace, "predict.py", variant)
    score = score_files(predictions, corpus / "holdout_answers.csv")
    if score.error:
        raise ReferenceFailed(f"{variant} wrote unusable predictions: {score.error}: {score.message}")
    return score, seconds, predictions


def run_reference_predictions(variant: str, corpus: Path, python: str = sys.executable,
                              spread: Sequence[Path] = ()) -> ReferenceRun:
    """Train `variant` on corpus/train.csv once, predict corpus/holdout.csv (and each spread corpus's)."""
    corpus = Path(corpus).absolute()
    check_corpus(corpus)
    with tempfile.TemporaryDirectory(prefix=f"bakeoff-ref-{variant}-") as scratch:
        workspace = materialize(variant, Path(scratch) / "submission")
        (workspace / "data").mkdir()
        (workspace / "data" / "train.csv").symlink_to(corpus / "train.csv")
        train_output, train_seconds = _run([python, "train.py"], workspace, "train.py", variant)
        score, predict_seconds, predictions = _predict(workspace, corpus, Path(scratch), variant, python)
        truth, predicted = _aligned(predictions, corpus / "holdout_answers.csv")
        others, paired = [], []
        for folder in spread:
            other, _, written = _predict(workspace, Path(folder).absolute(), Path(scratch), variant, python)
            others.append(other.f1)
            paired.append(_aligned(written, Path(folder) / "holdout_answers.csv"))
    result = ReferenceResult(
        variant=variant,
        local_f1=parse_expected_f1(train_output),
        holdout_f1=score.f1,
        holdout_precision=score.precision,
        holdout_recall=score.recall,
        predicted_positive_rate=score.predicted_positive_rate,
        train_seconds=round(train_seconds, 2),
        predict_seconds=round(predict_seconds, 2),
        kind=RowKind.CHEATER if variant in CHEATERS else RowKind.REFERENCE,
        spread=tuple(others),
    )
    return ReferenceRun(result, truth, predicted, tuple(paired))


def run_reference(variant: str, corpus: Path, python: str = sys.executable) -> ReferenceResult:
    """Train `variant` on corpus/train.csv, predict corpus/holdout.csv, score against the answers."""
    return run_reference_predictions(variant, corpus, python).result
