"""The workspace a task's check runs in: its folders, the one view of it a plug-in gets, and the helpers
that never follow what sandboxed code left there.

The run's git repository (bakeoff.runner.workspace.RunRepo) is one such workspace; `bakeoff score`'s scratch
copy of a folder is another.
"""

from __future__ import annotations

import shutil
from pathlib import Path, PurePosixPath
from typing import Protocol

import durable

SCRATCH_DIR = ".bakeoff"  # harness files inside the workspace (seeding hook, a task's own inputs)
DATA_DIR = "data"  # where the visible data is mounted and the excerpt kept
KEPT_LIMIT = 64 << 20  # the most of one output the host copies out of a workspace


def real_folder(root: Path, relative: str) -> Path:
    """`root/relative` as a real folder, made where missing.

    Sandboxed code writes the workspace: a link (or a file) it left on the way is removed, never followed.
    """
    folder = root
    for part in PurePosixPath(relative).parts:
        folder = folder / part
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            folder.unlink()
        folder.mkdir(exist_ok=True)
    return folder


def remove_folder(root: Path, relative: str) -> None:
    """Remove `root/relative`; where sandboxed code left a link on the way, only the link goes."""
    path = root
    for part in PurePosixPath(relative).parts:
        path = path / part
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            path.unlink()
            return
        if not path.exists():
            return
    shutil.rmtree(path, ignore_errors=True)


def regular_file_inside(root: Path, path: Path) -> bool:
    """True for a regular file, not a link, in a folder that (links resolved) lies inside `root`."""
    return not path.is_symlink() and path.is_file() and path.parent.resolve().is_relative_to(root.resolve())


def keep_output(workspace: Path, produced: str, kept: Path, *, limit: int = KEPT_LIMIT) -> None:
    """Move a hidden run's output out of the workspace into the run folder (never into the repo).

    Sandboxed code wrote the workspace: the output is copied from the very file found by walking `produced` from
    the workspace without following a link (durable.TrustedRoot), then removed; a link, a folder or anything but
    a regular file there (or on the way), or a file that claims more than `limit` bytes (a sparse one counts what
    it claims), is removed if it can be and nothing is kept: the reader then finds no output, the submission's."""
    kept.parent.mkdir(parents=True, exist_ok=True)
    root = durable.TrustedRoot(workspace)
    try:
        root.copy_out(produced, kept, limit=limit)
    except FileNotFoundError:
        return
    except durable.UnsafePath:
        try:
            root.remove_file(produced)  # a link planted there goes; what it points at stays
        except durable.UnsafePath:
            pass  # a folder in the file's place, or a link on the way: left alone, never followed
        return
    root.remove_file(produced)


class Workspace(Protocol):
    """What a run's stages and a task's check see of the workspace: its folder, its files read and written
    without following links, and the harness's scratch folder made real again."""

    @property
    def path(self) -> Path: ...

    def read_file(self, relative: str) -> str | None: ...

    def write_file(self, relative: str, content: str) -> Path: ...

    def scratch(self) -> Path: ...
