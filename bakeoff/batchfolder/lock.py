"""One batch folder, one writer: an exclusive lock held for as long as `bakeoff run` works on the folder.

Two writers on one folder re-ran finished stages and mixed their records. The lock is
fcntl.flock on BATCH/batch.lock: the kernel releases it when the holder exits, however
it exits (a SIGKILL included), so a stale lock file never blocks a restart. The file
says who holds it, for the message the second writer gets. Readers (`bakeoff status`,
`report`) never take it. It is opened without following a link (durable.TrustedRoot): a
batch.lock planted as a link to another file, or a folder in its place, is refused by name.
"""

from __future__ import annotations

import fcntl
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import msgspec

import durable
from bakeoff.batchfolder.files import utc_now
from bakeoff.batchfolder.layout import LOCK_FILE
from bakeoff.errors import BakeoffError
from bakeoff.records.codec import encode


class BatchLocked(BakeoffError):
    """Another process is writing this batch folder."""

    exit_code = 3


class BatchLockUnusable(BakeoffError):
    """batch.lock is not a regular file of the folder (a link, a folder, a pipe): the writer lock cannot be taken."""


@dataclass(frozen=True)
class LockNote:
    """Who holds the writer lock, as batch.lock says: only shown in the next writer's message, so any value goes."""

    pid: Any
    host: Any = None
    started_at: Any = None


def _holder(handle: IO[str]) -> str:
    handle.seek(0)
    try:
        note = msgspec.convert(durable.loads(handle.read(4096) or "{}", what="the lock's note"), LockNote)
    except (durable.UntrustedJSON, msgspec.ValidationError):
        return "another process (it has not said which yet)"
    return f"pid {note.pid} on host {note.host}, running since {note.started_at}"


@contextmanager
def batch_lock(folder: Path) -> Iterator[None]:
    """Hold the folder's writer lock; BatchLocked, saying who holds it, when another process does."""
    try:
        fd = durable.TrustedRoot(folder).open_file(LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    except durable.UnsafePath as exc:
        raise BatchLockUnusable(f"{folder / LOCK_FILE} is not the batch's lock file ({exc}); remove it and start again"
                                ) from None
    handle = os.fdopen(fd, "r+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BatchLocked(
                f"{folder} is being written by {_holder(handle)}; one batch folder has one writer. "
                f"Wait for it to end (`bakeoff status {folder}` shows its progress) or use another --out folder"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(durable.dumps(encode(LockNote(os.getpid(), socket.gethostname(), utc_now()))))
        handle.flush()
        yield
    finally:
        handle.close()  # closing the file releases the lock
