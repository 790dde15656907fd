"""A run's git repository: made fresh from the task template, one commit per stage.

The repository is the submission: what the model wrote and what its training
produced. `data/` (the training file's mount point and the excerpt) and the
harness's scratch folder `.bakeoff/` are never committed, whatever the model's
`.gitignore` says: the harness picks the files itself (worktree.scan_tree), and
links, nested repositories and special files left by sandboxed code are skipped.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from bakeoff.batchfolder.files import workspace_text
from bakeoff.taskapi.workspace import DATA_DIR, SCRATCH_DIR, real_folder, regular_file_inside, remove_folder

__all__ = ["DATA_DIR", "SCRATCH_DIR", "RunRepo", "StageCommit", "real_folder", "regular_file_inside", "remove_folder"]

_KEEP_ON_RESET = (f"{DATA_DIR}/", f"{SCRATCH_DIR}/")
_COMMITTER = {
    "GIT_AUTHOR_NAME": "bakeoff",
    "GIT_AUTHOR_EMAIL": "runner@bakeoff.invalid",
    "GIT_COMMITTER_NAME": "bakeoff",
    "GIT_COMMITTER_EMAIL": "runner@bakeoff.invalid",
}


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
    """The git repository of one run (GitPython)."""

    def __init__(self, path: Path) -> None:
        import git

        self.path = path
        self._repo = git.Repo(path)

    @classmethod
    def create(cls, path: Path, template_dir: Path, excerpt: Path | None) -> RunRepo:
        """A new repository holding the task template; files named dot-X become .X."""
        import git

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
        created = git.Repo.init(path, initial_branch="main")
        with created.config_writer() as config:
            # The host runs git over a folder that sandboxed code writes: no hooks, no fsmonitor command.
            config.set_value("core", "hooksPath", "/dev/null")
            config.set_value("core", "fsmonitor", "false")
        repo = cls(path)
        repo.commit("template")
        return repo

    def commit(self, message: str) -> StageCommit:
        """Commit the workspace's regular files, even when nothing changed (one commit per stage).

        What was skipped (links, nested repositories, special files) is reported with the commit.
        """
        from bakeoff.runner.worktree import not_ignored, scan_tree, skipped_summary, stage_exactly

        scan = scan_tree(self.path)
        stage_exactly(self.path, not_ignored(self.path, scan.files))
        self._repo.git.commit("--allow-empty", "--no-verify", "-q", "-m", message, env=_COMMITTER)
        head = self._repo.head.commit
        return StageCommit(head.hexsha, message, head.committed_datetime.isoformat(), skipped_summary(scan.skipped))

    def reset_to(self, sha: str) -> None:
        """Back to a stage's commit: what an unfinished stage wrote is removed, data/ and scratch stay (as real folders)."""
        git_cmd = self._repo.git
        git_cmd.reset("--hard", "-q", sha)
        excludes = [arg for keep in _KEEP_ON_RESET for arg in ("-e", keep)]
        git_cmd.clean("-ffdxq", *excludes)
        real_folder(self.path, DATA_DIR)
        real_folder(self.path, SCRATCH_DIR)

    def drop_untracked(self) -> None:
        """Remove what is neither committed nor the harness's (data/, scratch)."""
        excludes = [arg for keep in _KEEP_ON_RESET for arg in ("-e", keep)]
        self._repo.git.clean("-ffdxq", *excludes)

    def restore_data(self, excerpt: Path | None) -> None:
        """data/ a real folder holding the excerpt again (sandboxed code may have replaced either)."""
        data = real_folder(self.path, DATA_DIR)
        copy = data / "excerpt.txt"
        if excerpt is not None and excerpt.exists() and (copy.is_symlink() or not copy.is_file()):
            if copy.is_symlink() or copy.exists():
                remove_folder(data, "excerpt.txt")
            shutil.copyfile(excerpt, copy)

    def changed_in_last_commit(self) -> list[str]:
        """The paths the last commit added, changed or removed (an agent's step)."""
        head = self._repo.head.commit
        if not head.parents:
            return []
        return sorted(self._repo.git.diff("--name-only", "--no-renames", head.parents[0].hexsha, head.hexsha).splitlines())

    def root_sha(self) -> str:
        """The first commit (the template)."""
        return self._repo.git.rev_list("--max-parents=0", "HEAD").split()[0]

    def commit_messages(self) -> list[str]:
        """Oldest first."""
        messages = [c.message for c in reversed(list(self._repo.iter_commits()))]
        # GitPython hands back bytes for a message it could not decode; ours are UTF-8 text.
        return [(m if isinstance(m, str) else m.decode("utf-8", "replace")).strip() for m in messages]

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
        """Write a file the model gave; a symlink planted at that name is replaced, never followed."""
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
