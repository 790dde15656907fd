"""The inputs of `bakeoff score`: a corpus folder checked up front, a scratch copy of the repository."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bakeoff.errors import BakeoffError
from bakeoff.grading.safe_copy import CopyReport, ProtectedFileInSubmission, RepositoryNotUsable, copy_submission
from generators.secret import SECRET_FILE
from sandbox.base import Mount
from sandbox.paths import HOLDOUT as HOLDOUT_IN_SANDBOX

__all__ = [
    "CopyReport",
    "CorpusFiles",
    "CorpusNotUsable",
    "ProtectedFileInSubmission",
    "RepositoryNotUsable",
    "copy_working_tree",
    "find_corpus_files",
]

HOLDOUT_FEATURES = "holdout.csv"
HOLDOUT_ANSWERS = "holdout_answers.csv"
TRAIN_FILE = "train.csv"
TRAIN_IN_SANDBOX = "data/train.csv"  # relative to the workspace
TRUTH_FILE = "truth.csv"


class CorpusNotUsable(BakeoffError):
    """The corpus folder lacks a file grading needs."""


@dataclass(frozen=True)
class CorpusFiles:
    """The corpus files grading uses: what the sandbox sees, and the key it never sees."""

    holdout_features: Path
    holdout_answers: Path
    train: Path | None  # absent corpora can still grade a submission that needs no training
    truth: Path | None = None  # the generator's hidden truth, when the corpus folder has it
    secret: Path | None = None  # the secret the holdout was drawn with (it regenerates the answers)

    @property
    def protected(self) -> tuple[Path, ...]:
        """The files no submission may bring in, under any name (hard links are compared by inode)."""
        return tuple(path for path in (self.holdout_answers, self.truth, self.secret) if path is not None)

    def mounts(self) -> tuple[Mount, ...]:
        """Read-only mounts of single files; the answer key and truth.csv are never among them."""
        mounts = [Mount(self.holdout_features, HOLDOUT_IN_SANDBOX, read_only=True)]
        if self.train is not None:
            mounts.append(Mount(self.train, TRAIN_IN_SANDBOX, read_only=True))
        return tuple(mounts)


def find_corpus_files(corpus: Path, *, need_train: bool) -> CorpusFiles:
    """Check the corpus folder and name its files; raise CorpusNotUsable with what to do."""
    corpus = Path(corpus)
    if not corpus.is_dir():
        raise CorpusNotUsable(f"corpus folder {corpus} does not exist; make one with `bakeoff generate`")
    wanted = [HOLDOUT_FEATURES, HOLDOUT_ANSWERS] + ([TRAIN_FILE] if need_train else [])
    missing = [name for name in wanted if not (corpus / name).is_file()]
    if missing:
        raise CorpusNotUsable(
            f"corpus folder {corpus} lacks {', '.join(missing)}; point --corpus at a folder made by `bakeoff generate`"
        )
    train, truth, secret = corpus / TRAIN_FILE, corpus / TRUTH_FILE, corpus / SECRET_FILE
    return CorpusFiles(
        holdout_features=(corpus / HOLDOUT_FEATURES).resolve(),
        holdout_answers=(corpus / HOLDOUT_ANSWERS).resolve(),
        train=train.resolve() if train.is_file() else None,
        truth=truth.resolve() if truth.is_file() else None,
        secret=secret.resolve() if secret.is_file() else None,
    )


def copy_working_tree(repo: Path, destination: Path, protected: Iterable[Path] = ()) -> CopyReport:
    """Copy the submission folder into `destination` without running git or following links out of it.

    See bakeoff.grading.safe_copy for the rules; `protected` names the files
    (the answer key, truth.csv) that no file in the submission may be.
    """
    return copy_submission(repo, destination, protected)
