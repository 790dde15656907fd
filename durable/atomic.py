"""Atomic file writes: a temporary file beside the target, fsync, rename over it, fsync the folder."""

from __future__ import annotations

import errno
import io
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, BinaryIO

from durable.jsonio import dumps

DEFAULT_MODE = 0o644  # what open() gives under the usual umask
PRIVATE = 0o600  # records and caches that only their owner reads
_NO_FOLDER_SYNC = (errno.EINVAL, errno.ENOTSUP, errno.EBADF)  # filesystems that cannot fsync a folder


def fsync_folder(folder: Path) -> None:
    """Make a rename (or a new name) in `folder` survive a power cut, where the filesystem can."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _NO_FOLDER_SYNC:
            raise
    finally:
        os.close(fd)


def write_bytes(path: Path, data: bytes, *, mode: int = DEFAULT_MODE) -> None:
    """Write `data` to `path` so that `path` is absent, the old file, or the complete new one."""
    write_stream(path, io.BytesIO(data), mode=mode)


def write_stream(path: Path, source: BinaryIO, *, mode: int = DEFAULT_MODE) -> None:
    """`write_bytes` of everything `source` still holds, copied in chunks (a large file is never held whole)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            shutil.copyfileobj(source, handle)
            handle.flush()
            os.fchmod(handle.fileno(), mode)  # exactly `mode`: mkstemp makes 0o600 and the umask plays no part
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)  # the old file, if any, is left as it was
        raise
    fsync_folder(path.parent)


def write_text(path: Path, text: str, *, mode: int = DEFAULT_MODE) -> None:
    """`write_bytes` of UTF-8 text; a lone surrogate (a model's answer may hold one) becomes its \\uXXXX escape."""
    write_bytes(path, text.encode("utf-8", errors="backslashreplace"), mode=mode)


def write_json(
    path: Path, value: Any, *, mode: int = DEFAULT_MODE, indent: int | None = 2, sort_keys: bool = False,
    ensure_ascii: bool = True,
) -> None:
    """`write_text` of `value` as JSON (no NaN or Infinity: JSONUnwritable), ending with a newline."""
    text = dumps(value, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii) + "\n"
    write_text(path, text, mode=mode)


def move_file(source: Path, target: Path) -> None:
    """Rename a finished file (on the same filesystem) over `target`, durably."""
    os.replace(source, target)
    fsync_folder(Path(target).parent)
