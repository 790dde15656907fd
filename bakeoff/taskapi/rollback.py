"""Putting the folders sandboxed code can write back as they were before the hidden inputs were shown.

While the hidden-input gate is open (bakeoff.taskapi.hidden_inputs), the submission's code can read the hidden
inputs and write whatever it likes into the folders the sandbox keeps between commands (the workspace, /deps).
What it wrote there would reach the model's next prompt (a later train.py prints it), the run's git history and
a tool loop's calls. So the gate copies those folders aside before it opens and, once it has closed, replaces
their content with the copies: every file created, changed or removed while the inputs were visible is undone.
Only what changed is put back (an entry is unchanged when it is the same inode with the same ctime, which every
write, rename, chmod or link moves and no process can set back). The points where a sandbox mounts the visible
data into the workspace (data/train.csv) are never removed or replaced, even when a driver made them only while
the gate was open: that would detach the mount from every later command.

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
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

import durable

CHUNK = 1 << 20
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


@contextmanager
def rolled_back(folders: Sequence[Path], mount_points: Collection[str] = ()) -> Iterator[None]:
    """Inside: the folders may change; afterwards their content is what it was on entry (the folders themselves
    stay: a bind mount points at them), `mount_points` aside (paths relative to the first folder)."""
    copies = [(Path(folder), _aside(Path(folder))) for folder in folders]
    seen: list[dict[str, tuple[int, int]]] = []
    try:
        for folder, copy in copies:
            seen.append(copy_tree(folder, copy))
        yield
    finally:
        for index, ((folder, copy), before) in enumerate(zip(copies, seen, strict=False)):
            put_back(folder, copy, before, _with_parents(mount_points) if index == 0 else frozenset())
        for _folder, copy in copies[len(seen):]:  # a copy that failed half way is only removed
            if copy.exists():
                durable.TrustedRoot(copy.parent).remove_tree(copy.name)


def _with_parents(paths: Collection[str]) -> frozenset[str]:
    """The paths and every folder on their way (a mount point's folders must stay too)."""
    found: set[str] = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        found.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
    return frozenset(found)


def _aside(folder: Path) -> Path:
    """A new private folder beside `folder` (the same filesystem, so putting back is a rename); never inside a
    mount, since only `folder` itself is mounted."""
    return folder.parent / f".{folder.name}.gate-{secrets.token_hex(6)}"


def copy_tree(source: Path, target: Path) -> dict[str, tuple[int, int]]:
    """`source`'s content into the new folder `target`, as the module says; returns each entry's identity
    (inode, ctime) by its path under `source`."""
    seen: dict[str, tuple[int, int]] = {}
    os.mkdir(target, 0o700)
    for entry in os.scandir(source):
        _copy_entry(Path(entry.path), target / entry.name, entry.name, seen)
    _same_metadata(source, target)
    return seen


def _copy_entry(source: Path, target: Path, relative: str, seen: dict[str, tuple[int, int]]) -> None:
    found = os.lstat(source)
    seen[relative] = (found.st_ino, found.st_ctime_ns)
    if stat.S_ISLNK(found.st_mode):
        os.symlink(os.readlink(source), target)
        os.lchown(target, found.st_uid, found.st_gid)
    elif stat.S_ISDIR(found.st_mode):
        os.mkdir(target, 0o700)
        for entry in os.scandir(source):
            _copy_entry(Path(entry.path), target / entry.name, f"{relative}/{entry.name}", seen)
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


def put_back(folder: Path, copy: Path, before: dict[str, tuple[int, int]], keep: frozenset[str] = frozenset()) -> None:
    """Make `folder` what `copy` holds, touching only what changed since `before` and nothing in `keep` (never
    through a link); the copy's folder goes."""
    _put_back_in(folder, copy, "", before, keep)
    found = os.lstat(copy)
    os.chmod(folder, stat.S_IMODE(found.st_mode))
    durable.TrustedRoot(copy.parent).remove_tree(copy.name)


def _put_back_in(folder: Path, copy: Path | None, prefix: str, before: dict[str, tuple[int, int]], keep: frozenset[str]) -> None:
    root = durable.TrustedRoot(folder)
    kept = set(os.listdir(copy)) if copy is not None else set()
    for name in os.listdir(folder):
        if name in kept:
            continue
        if f"{prefix}{name}" not in keep:
            root.remove_tree(name)  # made while the gate was open
        elif stat.S_ISDIR(os.lstat(folder / name).st_mode):  # a mount point's folder, made while open: pruned
            _put_back_in(folder / name, None, f"{prefix}{name}/", before, keep)
    if copy is None:
        return
    for name in sorted(kept):
        relative = f"{prefix}{name}"
        try:
            now = os.lstat(folder / name)
        except FileNotFoundError:
            now = None
        known = before.get(relative)
        if now is not None and stat.S_ISDIR(now.st_mode) and (relative in keep or (known and known[0] == now.st_ino)):
            if not stat.S_ISDIR(os.lstat(copy / name).st_mode):
                # a mount point's folder made while open where sandboxed code had left a link or a file: the
                # folder stays (a mount needs it), what was made inside it goes
                _put_back_in(folder / name, None, f"{relative}/", before, keep)
                continue
            # the same folder (its ctime moves with every entry made or removed in it): its entries are compared
            _put_back_in(folder / name, copy / name, f"{relative}/", before, keep)
            _same_metadata(copy / name, folder / name)
        elif relative in keep:
            continue  # a mount point stays as it is
        elif now is None or known != (now.st_ino, now.st_ctime_ns):
            if now is not None:
                root.remove_tree(name)
            durable.move_file(copy / name, folder / name)  # a rename: the copy lies on the same filesystem
