"""The memory a corpus request needs, checked before anything is allocated.

`generate --rows 100000000000000` used to die inside numpy with an allocation error; the
request is refused up front instead, saying how much it needs and how much there is.
"""

from __future__ import annotations

import os

from generators.errors import GeneratorError

# Peak resident memory of generation, measured at 25,000 and 100,000 rows: about 1 KiB a row
# (train and holdout together). Twice that leaves room for longer texts and other numpy builds.
BYTES_PER_ROW = 2048


class NotEnoughMemory(GeneratorError):
    """The requested corpus needs more memory than the machine has available."""


def memory_needed(rows: int, holdout_rows: int) -> int:
    return (rows + holdout_rows) * BYTES_PER_ROW


def available_memory() -> int | None:
    """MemAvailable from /proc/meminfo in bytes (None where it cannot be read)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return None


def check_memory(rows: int, holdout_rows: int, available: int | None = None) -> None:
    """Raise NotEnoughMemory when `rows + holdout_rows` cannot fit in the memory available now."""
    available = available_memory() if available is None else available
    needed = memory_needed(rows, holdout_rows)
    if available is not None and needed > available:
        raise NotEnoughMemory(
            f"{rows + holdout_rows:,} rows need about {needed / 2**30:,.1f} GiB of memory to generate; "
            f"{available / 2**30:,.1f} GiB is available. Ask for fewer rows."
        )
