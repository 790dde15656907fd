"""A run's git repository: made fresh from the task template, one commit per stage.

The repository is the submission: what the model wrote and what its training
produced. `data/` (the training file's mount point and the excerpt) and the
harness's scratch folder `.bakeoff/` are never committed, whatever the model's
`.gitignore` says: the harness picks the files itself (worktree.scan_tree), and
links, nested repositories and special files left by sandboxed code are skipped.
git itself is run by bakeoff.runner.hostgit alone (no config but bakeoff's, no attributes, no hooks).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from bakeoff.batchfolder.files import workspace_text
from bakeoff.runner import hostgit
from bakeoff.taskapi.workspace import DATA_DIR, SCRATCH_DIR, real_folder, regular_file_inside, remove_folder

__all__ = ["DATA_DIR", "SCRATCH_DIR", "RunRepo", "StageCommit", "real_folder", "regular_file_inside", "remove_folder"]

_HARNESS_PARTS = frozenset({DATA_DIR, SCRATCH_DIR})  # at the root: the harness's, kept by a reset


def encoded_text(text: str) -> bytes:
    """UTF-8, with a lone surrogate written as its \\uXXXX escape (in a Python string literal that reads back the same)."""
    return text.encode("utf-8", errors="backslashreplace")


def path_failure(path: str, exc: OSError) -> str:
    """Why a file call on a path the model gave failed, as the model is told it: its own path and the system's
    words (never the host's path of the workspace)."""
    return f"{path!r}: {exc.strerror or type(exc).__name__}"


@dataclass(frozen=True)
class StageCommit:
    sha: str
    message: str
    date: str
    skipped: dict = field(default_factory=lambda: {"count": 0, "paths": []})  # worktree.skipped_summary


class RunRepo:
    """The git repository of one run. Every git command goes through bakeoff.runner.hostgit; a repository this
    process did not create is used only when its git folder is what bakeoff writes (ForeignRepository else)."""

    def __init__(self, path: Path) -> None:
        hostgit.check_own_repository(path)
        self.path = path

    @classmethod
    def create(cls, path: Path, template_dir: Path, excerpt: Path | None) -> RunRepo:
        """A new repository holding the task template; files named dot-X become .X."""
        if path.exists():
            shutil.rmtree(path)  # a half-made repo from a killed start: make it again
        path.mkdir(parents=True)
        for source in sorted(template_dir.rglob("*")):
            if source.is_file():
                relative = source.relative_to(template_dir)
                name = "." + relative.name[4:] if relative.name.startswith("dot-") else relative.name
                target = path / relative.parent / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
        (path / DATA_DIR).mkdir(exist_ok=True)
        if excerpt is not None and excerpt.exists():
            shutil.copyfile(excerpt, path / DATA_DIR / "excerpt.txt")
        hostgit.init_own_repository(path)
        repo = cls(path)
        repo.commit("template")
        return repo

    def commit(self, message: str) -> StageCommit:
        """Commit the workspace's regular files as the bytes they are, even when nothing changed (one commit per
        stage). What was skipped (links, nested repositories, special files) is reported with the commit."""
        from bakeoff.runner.worktree import not_ignored, scan_tree, skipped_summary

        scan = scan_tree(self.path)
        made = hostgit.commit_files(self.path, not_ignored(self.path, scan.files), message)
        return StageCommit(made.sha, message, made.date, skipped_summary(scan.skipped))

    def reset_to(self, sha: str) -> None:
        """Back to a stage's commit: what an unfinished stage wrote is removed, data/ and scratch stay (as real folders)."""
        hostgit.checkout(self.path, sha, _HARNESS_PARTS, remove_folder)
        real_folder(self.path, DATA_DIR)
        real_folder(self.path, SCRATCH_DIR)

    def drop_untracked(self) -> None:
        """Empty the work tree but data/ and scratch (a reset_to writes the commit's files back)."""
        hostgit.clear(self.path, _HARNESS_PARTS | {".git"}, remove_folder)

    def restore_data(self, excerpt: Path | None) -> None:
        """data/ a real folder holding the excerpt again (sandboxed code may have replaced either)."""
        data = real_folder(self.path, DATA_DIR)
        copy = data / "excerpt.txt"
        if excerpt is not None and excerpt.exists() and (copy.is_symlink() or not copy.is_file()):
            if copy.is_symlink() or copy.exists():
                remove_folder(data, "excerpt.txt")
            shutil.copyfile(excerpt, copy)

    def changed_in_last_commit(self) -> list[str]:
        """The paths the last commit added, changed or removed (a loop's step)."""
        head = hostgit.head(self.path)
        parent = hostgit.head_parent(self.path)
        if head is None or parent is None:
            return []
        return hostgit.changed_between(self.path, parent, head)

    def root_sha(self) -> str:
        """The first commit (the template)."""
        return hostgit.root_commit(self.path)

    def commit_messages(self) -> list[str]:
        """Oldest first."""
        return hostgit.commit_messages(self.path)

    def _inside(self, relative: str) -> Path:
        """The repo path for `relative`, refusing anything that leaves the repo (model code may plant symlinks)."""
        root = self.path.resolve()
        target = Path(os.path.normpath(root / relative))
        if root not in target.parents:
            raise ValueError(f"{relative!r} is outside the repository")
        for parent in target.relative_to(root).parents:
            if (root / parent).is_symlink():
                raise ValueError(f"{relative!r} goes through a symbolic link")
        return target

    def write_file(self, relative: str, content: str) -> Path:
        """Write a file the model gave; a symlink planted at that name is replaced, never followed.

        An OSError (a folder at that name, a file where a folder of the path should be, a name too long) is the
        model's doing: its caller (bakeoff.runner.modelcall.write_files) records the file as refused."""
        target = self._inside(relative)
        if target.is_symlink():
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(encoded_text(content))
        return target

    def read_file(self, relative: str) -> str | None:
        """A file's text (a capped head of it), or None; a link is never followed (it could point at the answer key)."""
        return workspace_text(self.path, relative)

    def scratch(self) -> Path:
        """The harness's scratch folder, made a real folder again if sandboxed code replaced it."""
        return real_folder(self.path, SCRATCH_DIR)
