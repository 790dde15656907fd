"""Durable writes: atomic JSON records and the append-only event journal.

Every file a reader may trust is written to a temporary file in the same folder
and renamed into place, so a record that exists is complete. The journal is
appended and fsync'ed line by line.

Fault injection for the kill tests: when the environment variable
BAKEOFF_KILL_AFTER_WRITES=N is set, the process SIGKILLs itself right after its
Nth durable write (records and journal lines alike). This is the only way to
stop a batch at an exact, repeatable point; it costs nothing when unset.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import errno
import json
import os
import signal
import tempfile
from pathlib import Path
from typing import Any

from bakeoff.errors import BakeoffError

KILL_ENV = "BAKEOFF_KILL_AFTER_WRITES"
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


class OutOfDisk(BakeoffError):
    """The disk holding the batch folder is full: the batch stops, what was written stays intact."""


class DamagedRecord(BakeoffError):
    """A record of a batch folder is not what the runner writes (cut short, random bytes, wrong shape)."""


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
    def from_environment(cls, environ: dict[str, str] | os._Environ = os.environ) -> "WriteCounter":
        raw = environ.get(KILL_ENV, "").strip()
        return cls(int(raw) if raw else None)

    def wrote(self) -> None:
        self.count += 1
        if self.kill_after is not None and self.count >= self.kill_after:
            os.kill(os.getpid(), signal.SIGKILL)


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


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
    """Write `text` to `path` so that `path` is either absent, the old file, or the complete new one."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        if is_disk_full(exc):
            raise out_of_disk(path.parent, exc) from exc
        raise
    try:
        # A lone surrogate (an answer may hold one) is written as its \\uXXXX escape: inside a JSON string that
        # escape reads back as the same character, so records stay lossless and valid UTF-8.
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException as exc:
        Path(tmp_name).unlink(missing_ok=True)  # the old file, if any, is left as it was
        if is_disk_full(exc) and not isinstance(exc, OutOfDisk):
            raise out_of_disk(path.parent, exc) from exc
        raise
    if counter is not None:
        counter.wrote()


def write_json(path: Path, record: Any, counter: WriteCounter | None = None) -> None:
    text = json.dumps(to_jsonable(record), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    write_atomic_text(path, text, counter)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def read_record(path: Path, required: tuple[str, ...] = ()) -> dict:
    """A JSON object record; DamagedRecord naming the file and what is wrong with it otherwise."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DamagedRecord(f"{path} is damaged: not UTF-8 text (byte {exc.start} of {len(data)})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = " (cut short?)" if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated") else ""
        raise DamagedRecord(f"{path} is damaged: not valid JSON{cut}: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(value, dict):
        raise DamagedRecord(f"{path} is damaged: a JSON {type(value).__name__} where an object is expected")
    missing = [key for key in required if key not in value]
    if missing:
        raise DamagedRecord(f"{path} is damaged: missing key(s) {', '.join(missing)}")
    return value


class Journal:
    """The batch's events.jsonl: what started and ended, in order, across restarts."""

    def __init__(self, path: Path, counter: WriteCounter | None = None) -> None:
        self.path = path
        self.counter = counter

    def append(self, event: str, **fields: Any) -> None:
        entry = {"at": utc_now(), "event": event, "pid": os.getpid(), **to_jsonable(fields)}
        line = json.dumps(entry, sort_keys=True) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(self.path, "a+b") as handle:
                if handle.seek(0, os.SEEK_END) > 0:
                    handle.seek(-1, os.SEEK_END)
                    if handle.read(1) != b"\n":
                        line = "\n" + line  # a line cut by a kill stays alone on its line, unreadable; this one is whole
                handle.write(line.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            if is_disk_full(exc):
                raise out_of_disk(self.path.parent, exc) from exc
            raise
        if self.counter is not None:
            self.counter.wrote()

    def entries(self) -> list[dict]:
        if not self.path.exists():
            return []
        entries = []
        for line in self.path.read_bytes().splitlines():
            try:
                entry = json.loads(line.decode("utf-8"))
            except ValueError:  # UnicodeDecodeError and JSONDecodeError alike
                continue  # a line cut by a kill mid-write (or damaged); the next start rewrites that state
            if isinstance(entry, dict):
                entries.append(entry)
        return entries
