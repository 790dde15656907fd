"""What every task's generator does with its output folder: refuse a target it may not write, build the corpus in
a hidden staging folder beside it (moved into place whole), and record each data file's digest."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import durable
from generators.errors import OutputFolderNotEmpty, OutputFolderNotWritable

__all__ = ["check_target", "file_sha256", "new_staging"]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_target(out_dir: Path, force: bool) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputFolderNotWritable(f"{out_dir} exists and is not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise OutputFolderNotEmpty(f"{out_dir} is not empty; pass --force to replace it")
    parent = out_dir.parent
    if not parent.is_dir():
        raise OutputFolderNotWritable(f"parent folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputFolderNotWritable(f"cannot write in {parent}")


def new_staging(out_dir: Path) -> Path:
    """The hidden folder beside `out_dir` that a corpus is built in (durable.new_staging: mode 0o755)."""
    try:
        return durable.new_staging(out_dir)
    except OSError as exc:
        raise OutputFolderNotWritable(f"cannot create a folder in {out_dir.parent}: {exc}") from exc
