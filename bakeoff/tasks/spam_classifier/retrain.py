"""Seed retrains: how much of a submission's score is the luck of one seed?

The same submission is trained again with other seeds, in the same sandbox (its
requirements are already installed), each in a copy of the workspace inside the
git-ignored scratch folder so the run's own model files are never touched. Each
copy predicts the full holdout, scored on the host like the original.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.records.codec import decode
from bakeoff.runner.workspace import DATA_DIR, SCRATCH_DIR, real_folder, remove_folder
from sandbox.base import Sandbox

RETRAIN_DIR = f"{SCRATCH_DIR}/retrain"
_SKIP = {".git", SCRATCH_DIR, DATA_DIR}
_SEED_STEP = 1_000_003  # other seeds: far from the run seeds 1, 2, 3... that batches use


@dataclass(frozen=True)
class SeedScore:
    seed: int
    f1: float | None  # None when training or prediction failed
    status: str  # scored, train_failed, predict_failed, bad_output
    detail: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class RetrainResult:
    """The original F1 beside the retrained ones, and their spread (max - min over the scored ones)."""

    original_seed: int
    original_f1: float | None
    retrains: tuple[SeedScore, ...]

    @property
    def scored_f1s(self) -> list[float]:
        values = [self.original_f1] if self.original_f1 is not None else []
        return values + [r.f1 for r in self.retrains if r.f1 is not None]

    @property
    def spread(self) -> float | None:
        values = self.scored_f1s
        return max(values) - min(values) if len(values) >= 2 else None

    @property
    def stdev(self) -> float | None:
        values = self.scored_f1s
        return statistics.stdev(values) if len(values) >= 2 else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "original_seed": self.original_seed,
            "original_f1": self.original_f1,
            "retrains": [r.to_dict() for r in self.retrains],
            "spread": self.spread,
            "stdev": self.stdev,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetrainResult:
        """Back from `to_dict` by the records' library (its spread and stdev are derived again, not read)."""
        return decode(cls, data)


def read_retrain(data: object) -> RetrainResult | None:
    """The retrains' record where `data` holds one (a skipped or failed hook's holds no retrains)."""
    return RetrainResult.from_dict(data) if isinstance(data, Mapping) and "retrains" in data else None


def other_seeds(seed: int, count: int = 2) -> list[int]:
    return [(seed + _SEED_STEP * k) % 2**31 for k in range(1, count + 1)]


def retrain_submission(
    sandbox: Sandbox,
    corpus_dir: Path,
    *,
    seed: int,
    original_f1: float | None,
    env_for_seed: Callable[[int], Mapping[str, str]],
    count: int = 2,
    train_timeout_s: float = 600.0,
    predict_timeout_s: float = 300.0,
) -> RetrainResult:
    """Retrain the submission in `sandbox` with `count` other seeds and score each on the holdout.

    `env_for_seed(seed)` gives the environment of an execution under that seed (the runner's seeding).
    """
    workspace = sandbox.spec.workspace
    remove_folder(workspace, RETRAIN_DIR)
    folder = real_folder(workspace, RETRAIN_DIR)
    os.chmod(folder, 0o777)
    try:
        # predict.py reads its input by a relative path, so the same command works under every driver
        shutil.copyfile(corpus_dir / "holdout.csv", folder / "holdout.csv")
        os.chmod(folder / "holdout.csv", 0o644)
        scores = tuple(
            _retrain_once(sandbox, corpus_dir, s, env_for_seed(s), train_timeout_s, predict_timeout_s)
            for s in other_seeds(seed, count)
        )
    finally:
        remove_folder(workspace, RETRAIN_DIR)
    return RetrainResult(seed, original_f1, scores)


def copy_submission(workspace: Path, target: Path) -> None:
    """The submission's files without its git history, the scratch folder or the data (linked instead)."""
    target.mkdir(parents=True)
    for entry in workspace.iterdir():
        if entry.name in _SKIP:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, target / entry.name, symlinks=True)
        else:
            shutil.copy2(entry, target / entry.name, follow_symlinks=False)
    # the training file is mounted at <workspace>/data/train.csv; a relative link reaches it from the copy
    depth = len(target.relative_to(workspace).parts)
    os.symlink("/".join([".."] * depth + ["data"]), target / "data")
    for dirpath, _dirnames, filenames in os.walk(target):
        os.chmod(dirpath, 0o777)
        for name in filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                os.chmod(path, 0o666)


def _retrain_once(
    sandbox: Sandbox,
    corpus_dir: Path,
    seed: int,
    env: Mapping[str, str],
    train_timeout_s: float,
    predict_timeout_s: float,
) -> SeedScore:
    from bakeoff.submission.crashes import classify
    from bakeoff.tasks.spam_classifier.grade import copy_predictions
    from scorer import score_files

    workspace = sandbox.spec.workspace
    # an earlier retrain's code may have swapped the folder for a link: made a real folder again, never followed
    copy = real_folder(workspace, RETRAIN_DIR) / f"seed-{seed}"
    copy_submission(workspace, copy)
    inside = copy.relative_to(workspace).as_posix()
    train = sandbox.exec(["sh", "-c", f"cd {inside} && exec python train.py"], timeout_s=train_timeout_s, env=dict(env))
    if not train.ok:
        crash = classify(train)
        return SeedScore(seed, None, "train_failed", f"{crash.crash_class}: {crash.detail}")
    predict_cmd = f"cd {inside} && exec python predict.py --input ../holdout.csv --output retrain_predictions.csv"
    predict = sandbox.exec(["sh", "-c", predict_cmd], timeout_s=predict_timeout_s, env=dict(env))
    if not predict.ok:
        crash = classify(predict)
        return SeedScore(seed, None, "predict_failed", f"{crash.crash_class}: {crash.detail}")
    with tempfile.TemporaryDirectory(prefix="bakeoff-retrain-") as private:
        # read without following a link, size-capped: a link could point the host's scorer at the answer key
        kept = Path(private) / "predictions.csv"
        failed = copy_predictions(workspace, f"{inside}/retrain_predictions.csv", kept)
        if failed is not None:
            return SeedScore(seed, None, "bad_output", f"{failed.error}: the predictions file is not usable")
        score = score_files(kept, corpus_dir / "holdout_answers.csv")
    if score.error is not None:
        return SeedScore(seed, None, "bad_output", score.error)
    return SeedScore(seed, score.f1, "scored")
