"""Telling why a submission's script failed, from what it printed.

The classes are bakeoff.records.enums.CrashClass, the one vocabulary of records
and reports; timeout and out_of_memory come from the sandbox's own report, never
from text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bakeoff.records.enums import CrashClass
from sandbox.base import ExecResult

TAIL_LINES = 30
TAIL_CHARS = 4000

_TRACEBACK_HEADER = "Traceback (most recent call last):"
_FRAME_LINE = re.compile(r'^\s+File "')
_EXCEPTION_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?$")
_MISSING_MODULE = re.compile(r"No module named '([^']+)'")
# The dynamic loader's words (glibc's dlerror) for a shared library it cannot find, as ctypes' OSError, an
# extension module's ImportError and libraries that wrap them (xgboost's XGBoostError lists them) print them.
_MISSING_SHARED_OBJECT = re.compile(r"([^\s'\"\[\]:,]+\.so(?:\.[\w.]+)?): cannot open shared object file")
_PICKLED_NAME = re.compile(r"Can't get attribute '([^']+)' on <module '__main__'")
_MISSING_PATH = re.compile(r"No such file or directory: '([^']*)'")
_QUOTED = re.compile(r"'([^']*)'")
_FRAME_ATTRIBUTE = re.compile(r"'DataFrame' object has no attribute '([^']+)'")
# The kernel's words for ENOSPC and EDQUOT, as Python (OSError [Errno 28]) and C libraries print them.
_DISK_FULL = re.compile(r"No space left on device|\[Errno 28\]|Disk quota exceeded|\[Errno 122\]")
# scikit-learn's messages when the columns at predict time differ from fit time
_SKLEARN_COLUMNS = ("columns are missing", "feature names should match", "Feature names seen at fit time")


@dataclass(frozen=True)
class CrashInfo:
    """Why one execution failed: its crash class, a short detail, the traceback's end."""

    crash_class: CrashClass
    detail: str
    traceback_tail: str
    exception_type: str = ""  # as printed, e.g. "ModuleNotFoundError"


@dataclass(frozen=True)
class RaisedException:
    """The last exception of a Python traceback, as printed."""

    type_name: str
    message: str  # the exception line's text plus any lines the message continued on
    passed_through_pandas: bool
    after: str = ""  # what the output holds after the exception line (a wrapped message past a blank line)


def classify(result: ExecResult) -> CrashInfo:
    """Classify a failed execution; limits reported by the sandbox win over anything printed."""
    tail = traceback_tail(result.stderr)
    if result.oom_killed:
        return CrashInfo(CrashClass.OUT_OF_MEMORY, "killed by the memory cap", tail)
    if result.timed_out:
        return CrashInfo(CrashClass.TIMEOUT, "killed by the wall-clock timeout", tail)
    if result.disk_exceeded:
        return CrashInfo(CrashClass.DISK_FULL, _disk_detail(result, "stopped at the disk cap"), tail)
    raised = last_exception(result.stderr)
    if raised is None:
        full = _DISK_FULL.search(result.stderr)
        if full:
            return CrashInfo(CrashClass.DISK_FULL, _disk_detail(result, full.group(0)), tail)
        if library := missing_system_library(result.stderr):  # a program the loader could not start
            return CrashInfo(CrashClass.MISSING_SYSTEM_LIBRARY, library, tail)
        return CrashInfo(CrashClass.OTHER, _no_traceback_detail(result), tail)
    if _DISK_FULL.search(raised.message):
        return CrashInfo(CrashClass.DISK_FULL, _disk_detail(result, raised.message.splitlines()[0]), tail, raised.type_name)
    crash_class, detail = classify_exception(raised)
    return CrashInfo(crash_class, detail, tail, raised.type_name)


def classify_exception(raised: RaisedException) -> tuple[CrashClass, str]:
    """(crash class, detail) for an exception read off a traceback."""
    short_type = raised.type_name.rsplit(".", 1)[-1]
    message = raised.message
    first_line = message.splitlines()[0] if message else ""
    if library := missing_system_library(f"{message}\n{raised.after}"):
        return CrashClass.MISSING_SYSTEM_LIBRARY, library
    if short_type in ("ModuleNotFoundError", "ImportError") and (module := _MISSING_MODULE.search(message)):
        return CrashClass.MODULE_NOT_FOUND, module.group(1)
    if short_type == "AttributeError" and (pickled := _PICKLED_NAME.search(message)):
        return CrashClass.PICKLE_CLASS_MISSING, pickled.group(1)
    if short_type == "FileNotFoundError":
        found = _MISSING_PATH.search(message)
        return CrashClass.FILE_NOT_FOUND, found.group(1) if found else first_line
    if short_type == "KeyError" and raised.passed_through_pandas:
        return CrashClass.COLUMN_MISSING, _column_detail(first_line)
    if short_type == "AttributeError" and (attribute := _FRAME_ATTRIBUTE.search(message)):
        return CrashClass.COLUMN_MISSING, attribute.group(1)  # df.moderator_flagged style access
    if short_type == "ValueError" and any(marker in message for marker in _SKLEARN_COLUMNS):
        return CrashClass.COLUMN_MISSING, first_line
    if short_type in ("SyntaxError", "IndentationError", "TabError"):
        return CrashClass.SYNTAX_ERROR, first_line
    if short_type == "TypeError":
        return CrashClass.TYPE_ERROR, first_line
    if short_type == "ValueError":
        return CrashClass.VALUE_ERROR, first_line
    return CrashClass.OTHER, f"{raised.type_name}: {first_line}" if first_line else raised.type_name


def missing_system_library(text: str) -> str | None:
    """The file name of the first shared library the dynamic loader could not find, as `text` reports it."""
    found = _MISSING_SHARED_OBJECT.search(text)
    return found.group(1).rsplit("/", 1)[-1] if found else None


def _disk_detail(result: ExecResult, message: str) -> str:
    """The error, and the workspace's peak use when the sandbox measured it."""
    if result.disk_cap_bytes:
        mib = 1024**2
        peak = (result.disk_peak_bytes or 0) / mib
        return f"{message} (workspace peak {peak:.1f} MiB of a {result.disk_cap_bytes / mib:.0f} MiB cap)"
    return message


def _column_detail(first_line: str) -> str:
    # pandas says KeyError: 'col', or "None of [Index(['a', 'b'], ...)] are in the [columns]",
    # or "['a'] not in index": the quoted names are the missing columns.
    names = _QUOTED.findall(first_line)
    if not names:
        return first_line
    if "dtype=" in first_line:
        names = [name for name in names if name not in ("object", "str")]
    return ", ".join(names) if names else first_line


def _no_traceback_detail(result: ExecResult) -> str:
    last_line = next((line for line in reversed(result.stderr.splitlines()) if line.strip()), "")
    code = result.exit_code
    if code is not None and (code < 0 or code > 128):
        signal_number = -code if code < 0 else code - 128
        prefix = f"killed by signal {signal_number}"
    else:
        prefix = f"exit code {code}"
    return f"{prefix}: {last_line.strip()[:200]}" if last_line else prefix


def last_exception(stderr: str) -> RaisedException | None:
    """The final exception of the last Python traceback in `stderr`, or None if there is none."""
    lines = stderr.splitlines()
    start = _last_traceback_start(lines)
    if start is None:
        return None
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if not line.strip() or line[0].isspace():
            continue  # frames, source lines and carets are indented
        match = _EXCEPTION_LINE.match(line)
        if match is None:
            return None
        continuation = _message_continuation(lines[index + 1 :])
        message = "\n".join(filter(None, [match.group("message") or "", *continuation]))
        frames = "\n".join(lines[start:index])
        after = "\n".join(lines[index + 1 :])[:TAIL_CHARS]
        return RaisedException(match.group("type"), message, "/pandas/" in frames, after)
    return None


def _last_traceback_start(lines: list[str]) -> int | None:
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].startswith(_TRACEBACK_HEADER):
            return index
    # A script that does not compile prints a bare frame, no "Traceback" header.
    for index, line in enumerate(lines):
        if _FRAME_LINE.match(line):
            return index
    return None


def _message_continuation(lines: list[str]) -> list[str]:
    # Multi-line messages (scikit-learn's feature-name report) continue until a blank line.
    kept = []
    for line in lines[:20]:
        if not line.strip():
            break
        kept.append(line)
    return kept


def traceback_tail(stderr: str) -> str:
    """The end of the output from the last traceback on, bounded in lines and characters."""
    lines = stderr.rstrip().splitlines()
    start = _last_traceback_start(lines)
    if start is not None:
        lines = lines[start:]
    tail = "\n".join(lines[-TAIL_LINES:])
    return tail[-TAIL_CHARS:]
