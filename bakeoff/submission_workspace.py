"""The inputs of `bakeoff score`: a corpus folder checked up front, a scratch copy of the repository."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bakeoff.errors import BakeoffError
from sandbox.base import Mount

HOLDOUT_FEATURES = "holdout.csv"
HOLDOUT_ANSWERS = "holdout_answers.csv"
TRAIN_FILE = "train.csv"
HOLDOUT_IN_SANDBOX = "/holdout/holdout.csv"
TRAIN_IN_SANDBOX = "data/train.csv"  # relative to the workspace
EXCLUDED_NAMES = (".git",)


class CorpusNotUsable(BakeoffError):
    """The corpus folder lacks a file grading needs."""


class RepositoryNotUsable(BakeoffError):
    """The submission folder does not exist or cannot be copied."""


@dataclass(frozen=True)
class CorpusFiles:
    """The corpus files grading uses: what the sandbox sees, and the key it never sees."""

    holdout_features: Path
    holdout_answers: Path
    train: Path | None  # absent corpora can still grade a submission that needs no training

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
    train = corpus / TRAIN_FILE
    return CorpusFiles(
        holdout_features=(corpus / HOLDOUT_FEATURES).resolve(),
        holdout_answers=(corpus / HOLDOUT_ANSWERS).resolve(),
        train=train.resolve() if train.is_file() else None,
    )


def copy_working_tree(repo: Path, destination: Path) -> None:
    """Copy the repository's working tree (untracked files included, .git left out) into `destination`.

    Symbolic links are copied as links, never followed: a link in a submission
    must not pull a host file into the workspace. The one exception is a link to
    a file that git tracks in the repository holding the submission (the shipped
    reference submissions share their source that way): that file is copied.
    """
    repo = Path(repo)
    if not repo.is_dir():
        raise RepositoryNotUsable(f"submission folder {repo} does not exist")
    try:
        shutil.copytree(
            repo,
            destination,
            symlinks=True,
            ignore=shutil.ignore_patterns(*EXCLUDED_NAMES),
            dirs_exist_ok=True,
        )
    except (OSError, shutil.Error) as exc:
        raise RepositoryNotUsable(f"could not copy {repo} into a scratch workspace: {exc}") from exc
    _copy_tracked_link_targets(repo, destination)


def _copy_tracked_link_targets(repo: Path, destination: Path) -> None:
    """Replace each copied link whose target is a git-tracked regular file by a copy of that file."""
    links = [path for path in destination.rglob("*") if path.is_symlink()]
    if not links:
        return
    tracked = _git_tracked_files(repo)
    for link in links:
        target = (repo / link.relative_to(destination)).resolve()
        if target in tracked and target.is_file() and not target.is_symlink():
            link.unlink()
            shutil.copyfile(target, link)


def _git_tracked_files(repo: Path) -> frozenset[Path]:
    """Regular files git tracks in the work tree that holds `repo` (none when it is not in one).

    Tracked links are left out, and no path is resolved through one: a link that
    sandboxed code planted and a harness commit recorded must not vouch for its target.
    """
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout

    try:
        top = Path(git("rev-parse", "--show-toplevel").strip()).resolve()
        names = git("ls-files", "-z", "--full-name", ":/").split("\0")
    except (OSError, subprocess.CalledProcessError):
        return frozenset()
    files = (top / name for name in names if name)
    return frozenset(path for path in files if not path.is_symlink() and path.resolve() == path)
