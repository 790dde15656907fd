"""Running one reference submission on the host, the way a submission is run in a sandbox.

The references are our own trusted code, so calibration runs them as plain
subprocesses: copy the submission into a fresh workspace, link the training
file at data/train.csv, `python train.py`, then `python predict.py` on the
holdout features, and score the predictions against the answer key.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from generators.errors import CorpusNotFound, ReferenceFailed
from generators.references import materialize

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

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def check_corpus(corpus: Path) -> None:
    missing = [name for name in CORPUS_FILES if not (corpus / name).is_file()]
    if missing:
        raise CorpusNotFound(f"{corpus} is not a corpus folder (missing {', '.join(missing)})")


def _run(argv: list[str], cwd: Path, step: str, variant: str) -> tuple[str, float]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=_child_env())
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-_TAIL_CHARS:]
        raise ReferenceFailed(f"{variant} {step} exited with {done.returncode}:\n{tail}")
    return done.stdout, elapsed


def _child_env() -> dict[str, str]:
    # The child must not inherit a PYTHONPATH that would let it import this repository.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONHASHSEED"] = "0"
    return env


def parse_expected_f1(output: str) -> float:
    found = _EXPECTED_F1.findall(output)
    if not found:
        raise ReferenceFailed(f"training output has no EXPECTED_F1 line:\n{output[-_TAIL_CHARS:]}")
    return float(found[-1])


def run_reference(variant: str, corpus: Path, python: str = sys.executable) -> ReferenceResult:
    """Train `variant` on corpus/train.csv, predict corpus/holdout.csv, score against the answers."""
    from scorer import score_files

    corpus = Path(corpus).absolute()
    check_corpus(corpus)
    with tempfile.TemporaryDirectory(prefix=f"bakeoff-ref-{variant}-") as scratch:
        workspace = materialize(variant, Path(scratch) / "submission")
        (workspace / "data").mkdir()
        (workspace / "data" / "train.csv").symlink_to(corpus / "train.csv")
        train_output, train_seconds = _run([python, "train.py"], workspace, "train.py", variant)
        predictions = Path(scratch) / "predictions.csv"
        predict_argv = [python, "predict.py", "--input", str(corpus / "holdout.csv"), "--output", str(predictions)]
        _, predict_seconds = _run(predict_argv, workspace, "predict.py", variant)
        score = score_files(predictions, corpus / "holdout_answers.csv")
    if score.error:
        raise ReferenceFailed(f"{variant} wrote unusable predictions: {score.error}: {score.message}")
    return ReferenceResult(
        variant=variant,
        local_f1=parse_expected_f1(train_output),
        holdout_f1=score.f1,
        holdout_precision=score.precision,
        holdout_recall=score.recall,
        predicted_positive_rate=score.predicted_positive_rate,
        train_seconds=round(train_seconds, 2),
        predict_seconds=round(predict_seconds, 2),
    )
