"""Opening, writing and removing paths under a trusted root without ever following a link.

A batch folder or a workspace is the harness's, but sandboxed code (and whoever else can write there) may have
replaced any folder or file in it with a symbolic link, a pipe or a folder. `TrustedRoot` reaches a path the way
`openat` does: the root is opened, then each component is opened relative to the folder before it with
`O_NOFOLLOW | O_DIRECTORY`, and the last one with `O_NOFOLLOW` (and `O_NONBLOCK`, so that a planted pipe cannot
block an open). A link anywhere on the way is `LinkInTheWay`, a file where a folder should be `NotAFolder`, a
folder, pipe or device where a file should be `NotARegularFile`: all `UnsafePath`, nothing is ever followed.
Because every step holds the folder it came from open, replacing a folder with a link between two steps changes
nothing: the next step is taken in the folder already open, which is the real one.

The root itself is trusted (the harness chose it; a link in its own path is followed as usual). A missing path is
the usual FileNotFoundError. Something that keeps changing between a folder and a link while a step looks at it
is looked at again a few times, then UnsafePath. Standard library only, Linux and other POSIX systems with
`dir_fd` support.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from durable.atomic import DEFAULT_MODE
from durable.errors import FileTooLarge, LinkInTheWay, NotAFolder, NotARegularFile, OutsideTheRoot, UnsafePath
from durable.jsonio import DEFAULT_LIMITS, JsonLimits, dumps, loads

FOLDER_MODE = 0o755
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_REPLACE_TRIES = 8  # a folder that something keeps putting a link back into is given up on, as UnsafePath


CUT_NOTE = "\n[... cut: the file holds {size} bytes in all ...]\n"


@dataclass(frozen=True)
class FileHead:
    """The first bytes of a file and the size it claims (st_size)."""

    data: bytes
    size: int

    @property
    def cut(self) -> bool:
        return self.size > len(self.data)


def _parts(relative: str | os.PathLike[str]) -> tuple[str, ...]:
    path = PurePosixPath(os.fspath(relative))
    if path.is_absolute() or ".." in path.parts:
        raise OutsideTheRoot(f"{relative} is not a plain path under the root", path=str(relative))
    return tuple(part for part in path.parts if part != ".")


class TrustedRoot:
    """A folder of the harness, and every path under it reached without following a link."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"TrustedRoot({str(self.root)!r})"

    # --- folders ---------------------------------------------------------------------------------------

    def _unsafe(self, fd: int, name: str, shown: str, wanted: str) -> UnsafePath:
        """The error for `name` in folder `fd` that is not the `wanted` kind ("folder" or "file")."""
        try:
            found = os.lstat(name, dir_fd=fd).st_mode
        except OSError:
            found = 0
        where = f"{self.root}/{shown}"
        if stat.S_ISLNK(found):
            return LinkInTheWay(f"{where} is a symbolic link, not a {wanted}: not followed", path=shown)
        if wanted == "folder":
            return NotAFolder(f"{where} is not a folder", path=shown)
        return NotARegularFile(f"{where} is not a regular file", path=shown)

    def _step(self, fd: int, name: str, shown: str, *, create: bool, replace: bool) -> int:
        """Folder `name` inside folder `fd`, opened (made where missing, if `create`)."""
        for _ in range(_REPLACE_TRIES):
            try:
                return os.open(name, _FOLDER, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(name, FOLDER_MODE, dir_fd=fd)
                except FileExistsError:
                    pass  # made (or replaced) by someone else meanwhile: opened and checked like any other
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                error = self._unsafe(fd, name, shown, "folder")
                if not replace:
                    raise error from None
                try:
                    os.unlink(name, dir_fd=fd)  # the link (or file) itself goes; what it points at is never touched
                except (FileNotFoundError, IsADirectoryError):
                    pass  # gone, or a folder again, meanwhile: the next try opens it
        raise self._unsafe(fd, name, shown, "folder")

    def _open_folder(self, parts: tuple[str, ...], *, create: bool = False, replace: bool = False) -> int:
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for index, name in enumerate(parts):
                child = self._step(fd, name, "/".join(parts[:index + 1]), create=create, replace=replace)
                os.close(fd)
                fd = child
        except BaseException:
            os.close(fd)
            raise
        return fd

    @contextmanager
    def folder(self, relative: str | os.PathLike[str] = ".", *, create: bool = False) -> Iterator[int]:
        """The folder's descriptor, for the length of the block (every component checked)."""
        fd = self._open_folder(_parts(relative), create=create)
        try:
            yield fd
        finally:
            os.close(fd)

    @contextmanager
    def _parent(self, relative: str | os.PathLike[str], *, create: bool = False) -> Iterator[tuple[int, str, str]]:
        parts = _parts(relative)
        if not parts:
            raise OutsideTheRoot("the root itself is not a path under the root", path=".")
        fd = self._open_folder(parts[:-1], create=create)
        try:
            yield fd, parts[-1], "/".join(parts)
        finally:
            os.close(fd)

    def ensure_folder(self, relative: str | os.PathLike[str]) -> None:
        """`relative` as real folders all the way down: made where missing; a link or file in the way is removed
        (the link itself, never what it points at) and a folder made in its place."""
        os.close(self._open_folder(_parts(relative), create=True, replace=True))

    # --- files -----------------------------------------------------------------------------------------

    def open_file(self, relative: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = DEFAULT_MODE, *,
                  create_parents: bool = False) -> int:
        """A descriptor of the regular file at `relative`, opened with `flags` (O_CREAT, O_TRUNC... as wanted)."""
        with self._parent(relative, create=create_parents) as (fd, name, shown):
            try:
                opened = os.open(name, flags | _FILE, mode, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENOTDIR):
                    raise self._unsafe(fd, name, shown, "file") from None
                raise
            try:
                if not stat.S_ISREG(os.fstat(opened).st_mode):
                    raise self._unsafe(fd, name, shown, "file")
                os.set_blocking(opened, True)
            except BaseException:
                os.close(opened)
                raise
            return opened

    def read_bytes(self, relative: str | os.PathLike[str], *, limit: int | None = None) -> bytes:
        """The file's bytes; with `limit`, at most `limit` + 1 of them are read (so a caller can tell "over")."""
        fd = self.open_file(relative)
        with os.fdopen(fd, "rb") as handle:
            return handle.read() if limit is None else handle.read(limit + 1)

    def read_head(self, relative: str | os.PathLike[str], limit: int) -> FileHead:
        """At most `limit` bytes from the start of the regular file at `relative`, and its apparent size
        (st_size: a sparse file counts every byte it claims, not only the blocks it uses). Whatever sandboxed
        code left there, no more than `limit` bytes are ever held."""
        fd = self.open_file(relative)
        with os.fdopen(fd, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(max(0, limit))
        return FileHead(data, max(size, len(data)))

    def read_text(self, relative: str | os.PathLike[str], limit: int) -> str:
        """`read_head` as UTF-8 text (a byte that is not UTF-8 becomes U+FFFD); a file cut at `limit` ends with a
        note of its size, so a reader never takes the head for the whole."""
        head = self.read_head(relative, limit)
        text = head.data.decode("utf-8", errors="replace")
        return text + CUT_NOTE.format(size=head.size) if head.cut else text

    def read_json(self, relative: str | os.PathLike[str], *, limits: JsonLimits = DEFAULT_LIMITS) -> Any:
        """The file's JSON, through the one reader of untrusted JSON (durable.jsonio)."""
        return loads(self.read_bytes(relative, limit=limits.max_bytes), limits=limits,
                     what=f"{self.root}/{PurePosixPath(os.fspath(relative))}")

    def write_bytes(self, relative: str | os.PathLike[str], data: bytes, *, mode: int = DEFAULT_MODE) -> None:
        """An atomic write (as durable.write_bytes) into the real folder: a temporary file beside the target,
        renamed over it. A link at the target is replaced, never written through; a folder there is refused."""
        with self._parent(relative, create=True) as (fd, name, shown):
            temp = f".{name[:200]}.{secrets.token_hex(6)}.tmp"
            handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE, 0o600, dir_fd=fd)
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                    out.flush()
                    os.fchmod(out.fileno(), mode)
                    os.fsync(out.fileno())
                try:
                    os.replace(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
                except IsADirectoryError:
                    raise self._unsafe(fd, name, shown, "file") from None
            except BaseException:
                try:
                    os.unlink(temp, dir_fd=fd)
                except FileNotFoundError:
                    pass
                raise
            _sync(fd)

    def write_json(self, relative: str | os.PathLike[str], value: Any, *, mode: int = DEFAULT_MODE,
                   indent: int | None = 2, sort_keys: bool = False) -> None:
        """`write_bytes` of `value` as valid JSON (durable.jsonio.dumps: no NaN, no Infinity), with a newline."""
        self.write_bytes(relative, (dumps(value, indent=indent, sort_keys=sort_keys) + "\n").encode(), mode=mode)

    def copy_out(self, relative: str | os.PathLike[str], target: Path, *, mode: int = DEFAULT_MODE,
                 limit: int | None = None) -> None:
        """Copy the regular file at `relative` to `target` (a path the caller trusts), atomically, from the very
        file that was checked (its descriptor), so a swap after the check cannot change what is copied. With
        `limit`, a file whose apparent size is over it is FileTooLarge, and nothing is copied (a sparse file of
        40 GB would be written out whole)."""
        from durable.atomic import write_stream

        fd = self.open_file(relative)
        with os.fdopen(fd, "rb") as source:
            size = os.fstat(source.fileno()).st_size
            if limit is not None and size > limit:
                shown = PurePosixPath(os.fspath(relative)).as_posix()
                raise FileTooLarge(f"{self.root}/{shown} holds {size} bytes, over the {limit} a reader takes", path=shown)
            write_stream(Path(target), source, mode=mode)

    # --- removing --------------------------------------------------------------------------------------

    def remove_file(self, relative: str | os.PathLike[str]) -> bool:
        """Remove the file or link at `relative` (a link itself, never what it points at); False when nothing
        was there. A folder there is NotARegularFile; a link or file in place of a parent folder is UnsafePath."""
        try:
            with self._parent(relative) as (fd, name, shown):
                for _ in range(_REPLACE_TRIES):
                    try:
                        os.unlink(name, dir_fd=fd)
                        return True
                    except (IsADirectoryError, PermissionError):
                        if stat.S_ISDIR(os.lstat(name, dir_fd=fd).st_mode):
                            raise NotARegularFile(f"{self.root}/{shown} is a folder, not a file", path=shown) from None
                raise self._unsafe(fd, name, shown, "file")  # it keeps changing between a folder and a link
        except FileNotFoundError:  # the file, or a parent folder, is missing
            return False

    def remove_tree(self, relative: str | os.PathLike[str]) -> bool:
        """Remove whatever is at `relative` (a file, a link, a whole folder), following no link on the way or
        inside. Where a link or a file stands in place of a folder on the way, that is removed instead: nothing
        behind it is under the root. False when nothing was there. Something that keeps changing between a
        folder and a link while this runs is retried a few times, then UnsafePath."""
        parts = _parts(relative)
        if not parts:
            raise OutsideTheRoot("the root itself is not removed through TrustedRoot", path=".")
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for index, name in enumerate(parts):
                done, child = self._remove_step(fd, name, "/".join(parts[:index + 1]), last=index == len(parts) - 1)
                if child is None:
                    return done
                os.close(fd)
                fd = child
            return False  # not reached: the last component returns above
        finally:
            os.close(fd)

    def _remove_step(self, fd: int, name: str, shown: str, *, last: bool) -> tuple[bool, int | None]:
        """One component of remove_tree: (removed, None) when it is done there, else (False, the folder to go on in)."""
        for _ in range(_REPLACE_TRIES):
            try:
                found = os.lstat(name, dir_fd=fd).st_mode
            except FileNotFoundError:
                return False, None
            try:
                if not stat.S_ISDIR(found):
                    os.unlink(name, dir_fd=fd)  # a file, or a link standing in for a folder: it goes, nothing behind
                    return True, None
                if last:
                    _remove_folder(fd, name)
                    return True, None
                return False, os.open(name, _FOLDER, dir_fd=fd)
            except FileNotFoundError:
                return False, None
            except OSError as exc:  # swapped since the lstat (a folder for a link, or back): look again
                if exc.errno not in (errno.EISDIR, errno.EPERM, errno.ELOOP, errno.ENOTDIR):
                    raise
        raise self._unsafe(fd, name, shown, "folder")

    def lstat(self, relative: str | os.PathLike[str]) -> os.stat_result | None:
        """What is at `relative`, not following it; None when nothing is, or a parent is not a real folder."""
        try:
            with self._parent(relative) as (fd, name, _):
                return os.lstat(name, dir_fd=fd)
        except (FileNotFoundError, UnsafePath):
            return None


def _remove_entry(fd: int, name: str, found: int) -> None:
    """Remove `name` in folder `fd`: a folder with everything in it (no link followed), else the entry itself."""
    if stat.S_ISDIR(found):
        _remove_folder(fd, name)
    else:
        os.unlink(name, dir_fd=fd)


def _remove_folder(top: int, name: str) -> None:
    """Remove folder `name` in folder `top` and all it holds, with no recursion and two descriptors open at a time:
    each subfolder is first moved up beside it (into `top`, under a hidden name) and removed in its turn, so a
    tree nested any number of levels deep is removed all the same."""
    pending, tries = [name], 0
    while pending:
        current = pending.pop()
        try:
            fd = os.open(current, _FOLDER, dir_fd=top)
        except FileNotFoundError:
            continue
        except OSError as exc:  # swapped for a link or a file: that goes, nothing behind it
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            try:
                os.unlink(current, dir_fd=top)
            except IsADirectoryError:  # and swapped back to a folder meanwhile
                tries += 1
                if tries > _REPLACE_TRIES:
                    raise
                pending.append(current)
            continue
        try:
            for _ in range(_REPLACE_TRIES):
                with os.scandir(fd) as entries:
                    found = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
                for child, is_folder in found:
                    if is_folder:
                        moved = f".{name[:100]}.del-{secrets.token_hex(6)}"
                        os.rename(child, moved, src_dir_fd=fd, dst_dir_fd=top)
                        pending.append(moved)
                    else:
                        try:
                            os.unlink(child, dir_fd=fd)
                        except FileNotFoundError:
                            pass
                if not found:
                    break
        finally:
            os.close(fd)
        os.rmdir(current, dir_fd=top)  # OSError (ENOTEMPTY) when something keeps filling it


def _sync(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
