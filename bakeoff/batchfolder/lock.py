"""One batch folder, one writer: an exclusive lock held for as long as `bakeoff run` works on the folder.

Two writers on one folder re-ran finished stages and mixed their records. The lock is
fcntl.flock on BATCH/batch.lock: the kernel releases it when the holder exits, however
it exits (a SIGKILL included), so a stale lock file never blocks a restart. The file
says who holds it, for the message the second writer gets. Readers (`bakeoff status`,
`report`) never take it.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bakeoff.batchfolder.files import utc_now
from bakeoff.errors import BakeoffError

LOCK_FILE = "batch.lock"


class BatchLocked(BakeoffError):
    """Another process is writing this batch folder."""

    exit_code = 3


def _holder(handle) -> str:
    handle.seek(0)
    try:
        info = json.loads(handle.read(4096) or "{}")
    except ValueError:
        info = {}
    if not isinstance(info, dict) or "pid" not in info:
        return "another process (it has not said which yet)"
    return f"pid {info.get('pid')} on host {info.get('host')}, running since {info.get('started_at')}"


@contextmanager
def batch_lock(folder: Path) -> Iterator[None]:
    """Hold the folder's writer lock; BatchLocked, saying who holds it, when another process does."""
    handle = open(folder / LOCK_FILE, "a+", encoding="utf-8")
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
        handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started_at": utc_now()}))
        handle.flush()
        yield
    finally:
        handle.close()  # closing the file releases the lock
