"""Copying a submission folder into a scratch workspace without trusting anything in it.

The folder is hostile input to the host (docs/sandbox.md): its git
configuration, its links and its hard links are all under the submitter's
control. So the copy
- never runs git: nothing in `.git` (core.fsmonitor, a `.git` file pointing at
  another git folder, core.worktree, hooks) is read or executed, and `.git`
  folders and files are left out at every level;
- copies regular files and folders that lie inside the submission folder
  itself, opened without following links;
- replaces a symbolic link by the file it names only when that file, with
  every link resolved, is a regular file inside the submission folder (or in
  bakeoff's own shipped generator code, which is public); any other link is
  copied as a link, and the host never follows a link in a workspace;
- refuses a file that is the answer key or truth.csv under another name (a
  hard link: same device and inode);
- leaves out anything else (FIFOs, sockets, devices), and says so.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bakeoff.errors import BakeoffError

EXCLUDED_NAMES = frozenset({".git"})
COPY_CHUNK = 1 << 20


class RepositoryNotUsable(BakeoffError):
    """The submission folder does not exist or cannot be copied."""


class ProtectedFileInSubmission(RepositoryNotUsable):
    """The submission folder holds a hard link to the answer key or another protected corpus file."""


@dataclass(frozen=True)
class CopyReport:
    """What the copy did with entries that are not plain files or folders (paths relative to the folder)."""

    followed_links: tuple[str, ...] = ()  # replaced by the regular file they name
    kept_links: tuple[str, ...] = ()  # copied as links: their target lies outside the folder
    skipped: tuple[str, ...] = ()  # special files (FIFOs, sockets, devices), left out
    git_metadata: tuple[str, ...] = ()  # .git folders and files, left out unread

    def notes(self) -> tuple[str, ...]:
        """One line per entry that was not copied as it stands, for an outcome."""
        return (
            tuple(f"{name}: a link to a file outside the submission folder, copied as a link (never followed)"
                  for name in self.kept_links)
            + tuple(f"{name}: left out (not a regular file, a folder or a link)" for name in self.skipped)
        )


def shipped_generator_code() -> Path:
    """bakeoff's own generator package, public code: links into it (a task's reference submissions share their
    source files that way, generators/<task>/references/<variant>/) are followed. No hidden data lives there."""
    import generators

    return Path(generators.__file__).resolve().parent


@dataclass
class _Copier:
    root: Path  # the submission folder, resolved
    protected: frozenset[tuple[int, int]]  # (st_dev, st_ino) of the answer key and truth files
    trusted_roots: tuple[Path, ...]
    followed: list[str]
    kept: list[str]
    skipped: list[str]
    git_metadata: list[str]

    def copy_folder(self, source: Path, destination: Path) -> None:
        destination.mkdir(mode=0o755, exist_ok=True)
        with os.scandir(source) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                self.copy_entry(Path(entry.path), destination / entry.name)

    def copy_entry(self, source: Path, destination: Path) -> None:
        relative = source.relative_to(self.root).as_posix()
        info = source.lstat()
        if source.name in EXCLUDED_NAMES:
            self.git_metadata.append(relative)
        elif stat.S_ISDIR(info.st_mode):
            self.copy_folder(source, destination)
        elif stat.S_ISREG(info.st_mode):
            self.refuse_protected(info, relative)
            _copy_regular_file(source, destination, info)
        elif stat.S_ISLNK(info.st_mode):
            self.copy_link(source, destination, relative)
        else:
            self.skipped.append(relative)

    def copy_link(self, source: Path, destination: Path, relative: str) -> None:
        target = Path(os.path.realpath(source))
        allowed = [root for root in (self.root, *self.trusted_roots) if target.is_relative_to(root)]
        inside = bool(allowed) and not EXCLUDED_NAMES & set(target.relative_to(allowed[0]).parts)
        info = target.stat() if inside and target.exists() else None
        if info is not None and stat.S_ISREG(info.st_mode):
            self.refuse_protected(info, relative)
            _copy_regular_file(target, destination, info)
            self.followed.append(relative)
            return
        os.symlink(os.readlink(source), destination)
        self.kept.append(relative)

    def refuse_protected(self, info: os.stat_result, relative: str) -> None:
        if (info.st_dev, info.st_ino) in self.protected:
            raise ProtectedFileInSubmission(
                f"{relative} in the submission is the corpus's answer key or truth file (a hard link); "
                "a submission never brings the answers in"
            )


def copy_submission(repo: Path, destination: Path, protected: Iterable[Path] = ()) -> CopyReport:
    """Copy the submission folder `repo` into `destination` (see the module's rules); `repo` is never changed."""
    repo = Path(repo)
    if not repo.is_dir():
        raise RepositoryNotUsable(f"submission folder {repo} does not exist")
    copier = _Copier(
        root=repo.resolve(),
        protected=frozenset(_identity(path) for path in protected if path.exists()),
        trusted_roots=(shipped_generator_code(),),
        followed=[],
        kept=[],
        skipped=[],
        git_metadata=[],
    )
    try:
        copier.copy_folder(copier.root, Path(destination))
    except OSError as exc:
        raise RepositoryNotUsable(f"could not copy {repo} into a scratch workspace: {exc}") from exc
    return CopyReport(tuple(copier.followed), tuple(copier.kept), tuple(copier.skipped), tuple(copier.git_metadata))


def _identity(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_dev, info.st_ino


def _copy_regular_file(source: Path, destination: Path, expected: os.stat_result) -> None:
    """Copy bytes and the executable bits; the file is opened without following a link.

    The opened file must still be the one that was checked (the submitter may
    swap a file for a link or a FIFO between the check and the open).
    """
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != (expected.st_dev, expected.st_ino):
            raise OSError(f"{source} changed while it was being copied")
        mode = 0o755 if opened.st_mode & 0o111 else 0o644
        with open(fd, "rb", closefd=False) as reader, open(destination, "xb") as writer:
            while chunk := reader.read(COPY_CHUNK):
                writer.write(chunk)
        os.chmod(destination, mode)
    finally:
        os.close(fd)
