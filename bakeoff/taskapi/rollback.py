"""Putting the folders sandboxed code can write back as they were before the hidden inputs were shown.

While the hidden-input gate is open (bakeoff.taskapi.hidden_inputs), the submission's code can read the hidden
inputs and write whatever it likes into the folders the sandbox keeps between commands (the workspace, /deps).
What it wrote there would reach the model's next prompt (a later train.py prints it), the run's git history and
the agent's tools. So the gate copies those folders aside before it opens and, once it has closed, replaces
their content with the copies: every file created, changed or removed while the inputs were visible is undone.

The copy never follows a link (a link is copied as a link), leaves out anything that is not a regular file, a
folder or a link, keeps owners, modes and times (the sandbox's user must be able to write its files again) and
keeps holes (a sparse file costs no more than the blocks it holds). No sandboxed process runs while the copy is
made or put back: every driver kills what a command started when it ends.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import durable

CHUNK = 1 << 20
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


@contextmanager
def rolled_back(folders: Sequence[Path]) -> Iterator[None]:
    """Inside: the folders may change; afterwards their content is what it was on entry (the folders themselves
    stay: a bind mount points at them)."""
    copies = [(Path(folder), _aside(Path(folder))) for folder in folders]
    try:
        for folder, copy in copies:
            copy_tree(folder, copy)
        yield
    finally:
        for folder, copy in copies:
            if copy.exists():
                put_back(folder, copy)


def _aside(folder: Path) -> Path:
    """A new private folder beside `folder` (the same filesystem, so putting back is a rename); never inside a
    mount, since only `folder` itself is mounted."""
    return folder.parent / f".{folder.name}.gate-{secrets.token_hex(6)}"


def copy_tree(source: Path, target: Path) -> None:
    """`source`'s content into the new folder `target`, as the module says."""
    os.mkdir(target, 0o700)
    for entry in os.scandir(source):
        _copy_entry(Path(entry.path), target / entry.name)
    _same_metadata(source, target)


def _copy_entry(source: Path, target: Path) -> None:
    found = os.lstat(source)
    if stat.S_ISLNK(found.st_mode):
        os.symlink(os.readlink(source), target)
        os.lchown(target, found.st_uid, found.st_gid)
    elif stat.S_ISDIR(found.st_mode):
        os.mkdir(target, 0o700)
        for entry in os.scandir(source):
            _copy_entry(Path(entry.path), target / entry.name)
        _same_metadata(source, target)
    elif stat.S_ISREG(found.st_mode):
        _copy_file(source, target)
        _same_metadata(source, target)


def _copy_file(source: Path, target: Path) -> None:
    """The file's data ranges only (holes stay holes), from the very file opened without following a link."""
    reader = os.open(source, _READ)
    try:
        if not stat.S_ISREG(os.fstat(reader).st_mode):
            return
        writer = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            size = os.fstat(reader).st_size
            for start, end in _data_ranges(reader, size):
                _copy_range(reader, writer, start, end)
            os.ftruncate(writer, size)
        finally:
            os.close(writer)
    finally:
        os.close(reader)


def _data_ranges(fd: int, size: int) -> Iterator[tuple[int, int]]:
    offset = 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole is left
                return
            raise
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        yield start, end
        offset = end


def _copy_range(reader: int, writer: int, start: int, end: int) -> None:
    while start < end:
        data = os.pread(reader, min(CHUNK, end - start), start)
        if not data:  # the file shrank under us: nothing more to copy
            return
        os.pwrite(writer, data, start)
        start += len(data)


def _same_metadata(source: Path, target: Path) -> None:
    found = os.lstat(source)
    os.chown(target, found.st_uid, found.st_gid, follow_symlinks=False)
    os.chmod(target, stat.S_IMODE(found.st_mode))
    os.utime(target, ns=(found.st_atime_ns, found.st_mtime_ns), follow_symlinks=False)


def put_back(folder: Path, copy: Path) -> None:
    """Empty `folder` (never through a link) and move the copy's entries into it; the copy's folder goes."""
    root = durable.TrustedRoot(folder)
    for name in os.listdir(folder):
        root.remove_tree(name)
    for name in os.listdir(copy):
        durable.move_file(copy / name, folder / name)  # a rename: the copy lies on the same filesystem
    found = os.lstat(copy)
    os.chmod(folder, stat.S_IMODE(found.st_mode))
    os.utime(folder, ns=(found.st_atime_ns, found.st_mtime_ns))
    os.rmdir(copy)
