"""An append-only journal of JSON lines, with one rule for a line cut by a kill (durable/__init__.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from durable.atomic import DEFAULT_MODE, fsync_folder
from durable.errors import JournalDamaged, UntrustedJSON
from durable.jsonio import dumps, loads

_SCAN_BYTES = 1 << 16


class Journal:
    """One JSON value per line, each appended whole and fsynced before `append` returns."""

    def __init__(self, path: Path, *, mode: int = DEFAULT_MODE) -> None:
        self.path = Path(path)
        self.mode = mode

    def append(self, value: Any, *, sort_keys: bool = False, ensure_ascii: bool = True) -> None:
        """Add `value` as the last line (a cut last line, left by a kill, is truncated away first)."""
        line = dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii) + "\n"  # JSONUnwritable for NaN
        data = line.encode("utf-8", errors="backslashreplace")  # a lone surrogate as its \uXXXX escape
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not os.path.lexists(self.path)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, self.mode)
        try:
            if created:
                os.fchmod(fd, self.mode)  # exactly `mode`, whatever the umask
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                os.ftruncate(fd, _whole_length(fd, size))
            view = memoryview(data)
            while view:  # one write in practice; a short one (a full disk) leaves a cut line, by the same rule
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            fsync_folder(self.path.parent)

    def entries(self) -> list[Any]:
        """Every whole line's value, in order; JournalDamaged when a line other than the last is not JSON."""
        return self.entries_from(0)[0]

    def entries_from(self, offset: int, *, pass_over_damage: bool = False) -> tuple[list[Any], int]:
        """The values of the whole lines from byte `offset` on (a reader that follows the file as it grows starts
        where its last look ended), and the offset just past the last whole line: where the next look starts.
        The same rules as `entries`: a cut last line waits, any other line that is not JSON is JournalDamaged,
        or, with `pass_over_damage` (a reader that only shows progress, and is not the one to judge), left out."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(offset)
                data = handle.read()
        except FileNotFoundError:
            return [], offset
        lines = data.split(b"\n")
        lines.pop()  # after the last newline: nothing in a whole file, the cut write otherwise
        values = []
        for number, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                values.append(loads(raw, what=f"line {number}"))
            except UntrustedJSON as exc:  # not UTF-8, not JSON, or past a cap (nesting, digits, NaN): none of ours
                if pass_over_damage:
                    continue
                where = f"line {number}" + (f" after byte {offset}" if offset else "")
                raise JournalDamaged(
                    f"{self.path} is damaged at {where} ({exc}): a kill cuts only the last line, so this "
                    "one was changed by something else; mend or remove that line"
                ) from None
        return values, offset + data.rfind(b"\n") + 1


def _whole_length(fd: int, size: int) -> int:
    """The length of the file up to and including its last newline (0 when it has none)."""
    end = size
    while end > 0:
        start = max(0, end - _SCAN_BYTES)
        found = os.pread(fd, end - start, start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        end = start
    return 0
