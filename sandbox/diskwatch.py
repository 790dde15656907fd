"""Watching what one execution writes to disk, while it runs.

Two cases (see docs/sandbox.md, "Disk"):
- the workspace lies on a capped filesystem of its own (sandbox.scratch): the
  kernel enforces the cap (ENOSPC), and `FilesystemWatch` only samples the
  filesystem's use for the peak;
- the workspace is an ordinary host folder (a run's repository, which must
  outlive the sandbox): nothing in the kernel caps it, so `TreeWatch` walks
  the folders the command can write, and calls `stop` (the driver kills the
  command) once they hold more than the cap. Sampling means a fast writer can
  pass the cap by what it writes in one interval before it is stopped.

A watch runs in its own thread from `__enter__` to `__exit__`, and samples
once more at the end, so what stays written is always counted.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from sandbox.scratch import DiskCap

FILESYSTEM_SAMPLE_S = 0.05  # statvfs is one system call
TREE_SAMPLE_S = 0.25  # a walk costs more; a few times a second still stops a writer within a few hundred MB
# Over the cap already at the start, a command may still grow the folders this much (a log line, the
# last blocks of a writer stopped the execution before) before it is stopped too.
GROWTH_GRACE_BYTES = 1024**2
MAX_ENTRIES = 1_000_000  # more files than this is over the cap too (each costs an inode, and a walk)


class _Watch:
    """The sampling thread; subclasses say how to measure (`measure`) and what to do then (`check`)."""

    interval_s = FILESYSTEM_SAMPLE_S

    def __init__(self) -> None:
        self.peak_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bakeoff-disk-watch", daemon=True)

    def measure(self) -> int:
        raise NotImplementedError

    def check(self, used: int) -> None:
        """Called after each sample."""

    def sample(self) -> None:
        try:
            used = self.measure()
        except OSError:
            return  # the folder went away while we looked: the driver reports what happened
        self.peak_bytes = max(self.peak_bytes, used)
        self.check(used)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def __enter__(self):
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()


class FilesystemWatch(_Watch):
    """The peak use of a capped filesystem (less what was there before the sandbox opened)."""

    def __init__(self, cap: DiskCap) -> None:
        super().__init__()
        self.cap = cap

    def measure(self) -> int:
        return self.cap.used_bytes()


class TreeWatch(_Watch):
    """The bytes under some folders (allocated, or apparent where a sparse file claims more); `stop()` is called
    once (and `exceeded` set) when the command grows them past `cap_bytes`. Folders already over the cap when it
    starts (a command that failed that way before left its files) do not stop a command that only reads or removes."""

    interval_s = TREE_SAMPLE_S

    def __init__(self, folders: Sequence[Path], cap_bytes: int, stop: Callable[[], None]) -> None:
        super().__init__()
        self.folders = tuple(folders)
        self.cap_bytes = cap_bytes
        self.exceeded = False
        self.start_bytes: int | None = None
        self._stopper = stop

    def measure(self) -> int:
        return sum(used_bytes(folder) for folder in self.folders)

    def check(self, used: int) -> None:
        if self.start_bytes is None:
            self.start_bytes = used
        if used > self.cap_bytes and used > self.start_bytes + GROWTH_GRACE_BYTES and not self.exceeded:
            self.exceeded = True
            self._stopper()


def used_bytes(folder: Path) -> int:
    """What the files under `folder` hold, links never followed: each counts the larger of its allocated blocks
    and its apparent size (st_size). A sparse file (`truncate -s 600M`) uses no blocks, but whoever reads it gets
    every byte it claims, the host included: it counts all of them.

    Past MAX_ENTRIES entries the walk stops and reports more than any cap.
    """
    total, entries, pending = 0, 0, [str(folder)]
    while pending:
        try:
            scanner = os.scandir(pending.pop())
        except OSError:
            continue  # removed, or a mount point the host cannot enter
        with scanner:
            for entry in scanner:
                entries += 1
                if entries > MAX_ENTRIES:
                    return 1 << 62
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += max(info.st_blocks * 512, info.st_size if stat.S_ISREG(info.st_mode) else 0)
                if stat.S_ISDIR(info.st_mode):
                    pending.append(entry.path)
    return total

