"""Publishing a folder whole: build it in a hidden sibling, then swap it in (rules in durable/__init__.py)."""

from __future__ import annotations

import ctypes
import enum
import errno
import functools
import hashlib
import os
import re
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from durable.atomic import PRIVATE, fsync_folder

STAGING_MODE = 0o755  # mkdtemp makes folders private; a published folder is as readable as any other
# The answer keys of the take-homes (spam's holdout_answers.csv and truth.csv; ab_test's and simulation's truth.json
# and holdout_truth.csv): only the grader reads them. Whatever wrote them, a published folder holds them readable and
# writable by their owner alone (PRIVATE, as the corpus's secret.hex), and no sandbox ever mounts them
# (sandbox.docker_mounts). Other local users, the sandbox's uid among them, cannot read them.
ANSWER_KEYS = frozenset({"holdout_answers.csv", "truth.csv", "holdout_truth.csv", "truth.json"})
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_NO_EXCHANGE = (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EXDEV)  # kernel or filesystem without it
_LABEL = re.compile(r"[a-z]+")
_OWNED_TAIL = r"(?P<label>[a-z]+)-(?P<host>[0-9a-f]{8})\.(?P<pid>\d{1,10})\.[A-Za-z0-9_]+"  # after ".NAME."
_TAKEN = (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR)  # what rename says when the target name is in use


class IfExists(enum.Enum):
    """What publishing does with a folder already at the target."""

    REPLACE = "replace"  # retire it and remove it: the new folder wins
    REFUSE = "refuse"  # an empty folder is taken over; anything else fails with the OSError of the rename
    KEEP = "keep"  # someone else finished first: theirs stays, ours is discarded


def _host_tag() -> str:
    """Eight hex digits that stand for this machine in a staging folder's name (a shared filesystem has others')."""
    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _owned_name(target: Path, label: str) -> str:
    """The prefix of a hidden sibling this process makes for `target`: `.NAME.LABEL-HOST.PID.` (mkdtemp adds the rest)."""
    if not _LABEL.fullmatch(label):
        raise ValueError(f"a staging label is lower-case letters, got {label!r}")
    return f".{target.name}.{label}-{_host_tag()}.{os.getpid()}."


def new_staging(target: Path, *, mode: int = STAGING_MODE, label: str = "partial") -> Path:
    """A new, empty, hidden folder `.NAME.LABEL-HOST.PID.*` beside `target` (its parent made if missing), with
    exactly `mode`. The name says which process on which machine owns it: what `sweep_leftovers` goes by."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=_owned_name(target, label), dir=target.parent))
    os.chmod(staging, mode)
    return staging


def _owner_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # one of ours, perhaps still being built on another thread
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process, alive
    return True


def sweep_leftovers(target: Path) -> list[str]:
    """Remove the hidden siblings of `target` left by a killed publisher: staging folders (`.NAME.LABEL-*`, one
    of them perhaps holding an old folder swapped out by an exchange) and retired folders (`.NAME.old-*`) whose
    owning process, on this machine, is gone. A live owner's, or another machine's, are left alone.
    Returns the names removed. Called by every publish of `target`."""
    target = Path(target)
    pattern = re.compile(re.escape(f".{target.name}.") + _OWNED_TAIL)
    removed: list[str] = []
    try:
        names = os.listdir(target.parent)
    except FileNotFoundError:
        return removed
    host = _host_tag()
    for name in names:
        found = pattern.fullmatch(name)
        if found is None or found["host"] != host or _owner_alive(int(found["pid"])):
            continue
        try:
            _remove(target.parent / name)
        except OSError:
            continue  # gone meanwhile, or not ours to remove: the next publish tries again
        removed.append(name)
    return removed


def publish_folder(staging: Path, target: Path, if_exists: IfExists = IfExists.REPLACE) -> bool:
    """Move the finished `staging` folder to `target`; False when KEEP left someone else's folder there.
    Either way, the leftovers of earlier publishers of `target` that were killed are swept (sweep_leftovers)."""
    staging, target = Path(staging), Path(target)
    try:
        _make_answer_keys_private(staging)
        return _publish(staging, target, if_exists)
    finally:
        sweep_leftovers(target)


def _make_answer_keys_private(staging: Path) -> None:
    """Every answer key in the (harness-built) staging folder made PRIVATE before anyone can see it published."""
    for dirpath, _dirnames, filenames in os.walk(staging):
        for name in ANSWER_KEYS.intersection(filenames):
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, PRIVATE)


def _publish(staging: Path, target: Path, if_exists: IfExists) -> bool:
    if if_exists is IfExists.REPLACE and os.path.lexists(target):
        if _exchange(staging, target):
            _remove(staging)  # after the exchange this name holds the old folder
        else:
            _swap_by_renames(staging, target)
        fsync_folder(target.parent)
        return True
    try:
        if target.is_dir() and not target.is_symlink() and not any(target.iterdir()):
            target.rmdir()  # an empty folder holds nobody's work
        os.rename(staging, target)
    except OSError as exc:
        if if_exists is IfExists.KEEP and exc.errno in _TAKEN:
            _remove(staging)
            return False
        raise
    fsync_folder(target.parent)
    return True


@contextmanager
def publishing(staging: Path, target: Path, if_exists: IfExists = IfExists.REPLACE) -> Iterator[Path]:
    """Publish `staging` when the block ends normally; remove it, target untouched, when the block raises."""
    try:
        yield staging
        publish_folder(staging, target, if_exists)
    except BaseException:
        _remove(staging)
        raise


@contextmanager
def staged_folder(
    target: Path, *, if_exists: IfExists = IfExists.REPLACE, mode: int = STAGING_MODE
) -> Iterator[Path]:
    """`new_staging` and `publishing` together: build the folder inside the block."""
    with publishing(new_staging(target, mode=mode), target, if_exists) as staging:
        yield staging


def _swap_by_renames(staging: Path, target: Path) -> None:
    """Two renames, for filesystems without an atomic exchange; a failed second one puts the old folder back."""
    retired = Path(tempfile.mkdtemp(prefix=_owned_name(target, "old"), dir=target.parent))
    old = retired / "old"
    os.rename(target, old)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(old, target)  # should this fail too, the old folder stays whole under `retired`
        retired.rmdir()
        raise
    shutil.rmtree(retired, ignore_errors=True)


def _remove(path: Path) -> None:
    if path.is_symlink() or (os.path.lexists(path) and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux, or a C library without it
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def _exchange(first: Path, second: Path) -> bool:
    """Swap two names in one step (Linux renameat2 RENAME_EXCHANGE); False where that is not offered."""
    function = _renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(second))
