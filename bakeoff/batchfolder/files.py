"""Durable writes: atomic JSON records and the append-only event journal.

Every file a reader may trust is written with durable's atomic write (a temporary
file in the same folder, renamed into place), so a record that exists is complete.
The journal is durable's append-only journal, fsync'ed line by line.

Fault injection for the kill tests: when the environment variable
BAKEOFF_KILL_AFTER_WRITES=N is set, the process SIGKILLs itself right after its
Nth durable write (records and journal lines alike). This is the only way to
stop a batch at an exact, repeatable point; it costs nothing when unset.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import errno
import os
import signal
from pathlib import Path
from typing import Any

import durable
from bakeoff.errors import BakeoffError
from bakeoff.records.errors import DamagedRecord  # one class: the records' readers raise it too
from bakeoff.records.journal import JournalEvent

KILL_ENV = "BAKEOFF_KILL_AFTER_WRITES"
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
RECORD_LIMITS = durable.JsonLimits()  # what a record may hold (durable's caps)


class OutOfDisk(BakeoffError):
    """The disk holding the batch folder is full: the batch stops, what was written stays intact."""


def is_disk_full(exc: BaseException) -> bool:
    """An OSError of a full disk or quota, or a git (or other) command that failed saying so."""
    if isinstance(exc, OutOfDisk):
        return True
    if isinstance(exc, OSError) and exc.errno in _DISK_FULL:
        return True
    said = " ".join(str(getattr(exc, name, "") or "") for name in ("stderr", "args"))
    return "No space left on device" in said or "Disk quota exceeded" in said


NEARLY_FULL_BYTES = 1 << 20  # git says a full disk in many words ("unable to write new index file"): ask the disk


def no_room_left(folder: Path) -> bool:
    """True when the disk holding `folder` has (almost) no space left for an unprivileged write."""
    try:
        stats = os.statvfs(folder)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < NEARLY_FULL_BYTES


def out_of_disk(folder: Path, exc: BaseException) -> OutOfDisk:
    return OutOfDisk(f"no space left on the disk holding {folder} ({exc}); free some space there and start "
                     "the batch again: it continues where it stopped")


class WriteCounter:
    """Counts durable writes and applies the kill hook (one per process, created by the batch)."""

    def __init__(self, kill_after: int | None = None) -> None:
        self.kill_after = kill_after
        self.count = 0

    @classmethod
    def from_environment(cls, environ: dict[str, str] | os._Environ = os.environ) -> WriteCounter:
        raw = environ.get(KILL_ENV, "").strip()
        return cls(int(raw) if raw else None)

    def wrote(self) -> None:
        self.count += 1
        if self.kill_after is not None and self.count >= self.kill_after:
            os.kill(os.getpid(), signal.SIGKILL)


def utc_now(timespec: str = "milliseconds") -> str:
    """Now in UTC, ISO 8601: a batch's records and journal to the millisecond (a review's to the second)."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec=timespec)


def to_jsonable(value: Any) -> Any:
    """Dataclasses, paths and tuples into plain JSON values (records are dataclasses in memory)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "to_dict"):
            return to_jsonable(value.to_dict())
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def write_atomic_text(path: Path, text: str, counter: WriteCounter | None = None) -> None:
    """Write `text` to `path` so that `path` is either absent, the old file, or the complete new one (durable's rules;
    records stay private to their owner, and a lone surrogate is written as its \\uXXXX escape)."""
    try:
        durable.write_text(path, text, mode=durable.PRIVATE)
    except BaseException as exc:
        if is_disk_full(exc) and not isinstance(exc, OutOfDisk):
            raise out_of_disk(path.parent, exc) from exc
        raise
    if counter is not None:
        counter.wrote()


def write_json(path: Path, record: Any, counter: WriteCounter | None = None) -> None:
    """A record as JSON (never NaN or Infinity: durable.dumps refuses them), written atomically."""
    text = durable.dumps(to_jsonable(record), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    write_atomic_text(path, text, counter)


def read_json_object(path: Path, required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A JSON object record, read within durable's caps (size, nesting, digits; no NaN); DamagedRecord naming
    the file and what is wrong with it otherwise. A link in its place is not followed."""
    if path.is_symlink():
        raise DamagedRecord(f"{path} is damaged: a symbolic link where a record should be")
    with open(path, "rb") as handle:  # a record past the cap (a handed-over folder's, 40 GB sparse) is never held
        data = handle.read(RECORD_LIMITS.max_bytes + 1)
    if len(data) > RECORD_LIMITS.max_bytes:
        raise DamagedRecord(f"{path} is damaged: over {RECORD_LIMITS.max_bytes} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DamagedRecord(f"{path} is damaged: not UTF-8 text (byte {exc.start} of {len(data)})") from None
    try:
        value = durable.loads(text, limits=RECORD_LIMITS, what="the record")
    except durable.UntrustedJSON as exc:
        said = str(exc).removeprefix("the record is ").removeprefix("the record ")
        if exc.cap == "syntax" and not text.rstrip().endswith("}"):
            said = said.replace("not valid JSON", "not valid JSON (cut short?)", 1)
        raise DamagedRecord(f"{path} is damaged: {said}") from None
    if not isinstance(value, dict):
        raise DamagedRecord(f"{path} is damaged: a JSON {type(value).__name__} where an object is expected")
    missing = [key for key in required if key not in value]
    if missing:
        raise DamagedRecord(f"{path} is damaged: missing key(s) {', '.join(missing)}")
    return value


WORKSPACE_TEXT_LIMIT = 1 << 20  # a document the model wrote (DESIGN.md, README.md), as far as the host reads it


def workspace_text(root: Path, relative: str) -> str | None:
    """The text of a file sandboxed code could have written, or None where it is missing or not a regular file
    reached without a link. The host reads at most WORKSPACE_TEXT_LIMIT bytes of it (a sparse file claiming
    600 MB or 40 GB included: its apparent size counts); a longer file ends with a note of its size."""
    try:
        return durable.TrustedRoot(root).read_text(relative, WORKSPACE_TEXT_LIMIT)
    except (OSError, UnicodeError, durable.UnsafePath):  # a name the model chose can make any file call fail
        return None


class Journal:
    """The batch's events.jsonl: what started and ended, in order, across restarts."""

    def __init__(self, path: Path, counter: WriteCounter | None = None) -> None:
        self.path = path
        self.counter = counter

    def append(self, event: str, **fields: Any) -> None:
        entry = {"at": utc_now(), "event": event, "pid": os.getpid(), **to_jsonable(fields)}
        try:
            durable.Journal(self.path).append(entry, sort_keys=True)  # a line cut by a kill is truncated first
        except OSError as exc:
            if is_disk_full(exc):
                raise out_of_disk(self.path.parent, exc) from exc
            raise
        if self.counter is not None:
            self.counter.wrote()

    def entries(self) -> list[dict]:
        """The whole lines (a last line cut by a kill is dropped; a damaged earlier one is durable.JournalDamaged)."""
        return self.entries_from(0)[0]

    def entries_from(self, offset: int, *, pass_over_damage: bool = False) -> tuple[list[dict], int]:
        """The whole lines from byte `offset` on, and where the next look starts (durable.Journal.entries_from):
        how the live display follows the journal as the batch appends to it."""
        values, end = durable.Journal(self.path).entries_from(offset, pass_over_damage=pass_over_damage)
        return [entry for entry in values if isinstance(entry, dict)], end

    def events(self) -> list[JournalEvent]:
        """The whole lines as their readers use them (bakeoff.records.journal)."""
        return [JournalEvent.of(entry) for entry in self.entries()]

    def events_from(self, offset: int, *, pass_over_damage: bool = False) -> tuple[list[JournalEvent], int]:
        """entries_from's lines as their readers use them."""
        entries, end = self.entries_from(offset, pass_over_damage=pass_over_damage)
        return [JournalEvent.of(entry) for entry in entries], end
