"""The disk_full crash class: read off what a command printed when its filesystem refused a write."""

from __future__ import annotations

from bakeoff.records.enums import CrashClass
from bakeoff.submission.crashes import classify
from sandbox.base import ExecResult

ENOSPC_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/workspace/train.py", line 5, in <module>\n'
    "    out.write(b'x' * 2**20)\n"
    "OSError: [Errno 28] No space left on device\n"
)


def failed(stderr: str, **fields) -> ExecResult:
    return ExecResult(("python", "train.py"), 1, "", stderr, False, False, 0.5, **fields)


def test_enospc_in_a_traceback_is_disk_full_with_the_peak_in_the_detail():
    info = classify(failed(ENOSPC_TRACEBACK, disk_peak_bytes=63 * 2**20, disk_cap_bytes=64 * 2**20))
    assert (info.crash_class, info.exception_type) == (CrashClass.DISK_FULL, "OSError")
    assert info.detail == "[Errno 28] No space left on device (workspace peak 63.0 MiB of a 64 MiB cap)"
    assert info.crash_class is CrashClass.DISK_FULL


def test_a_c_library_saying_no_space_without_a_traceback_is_disk_full():
    info = classify(failed("write error: No space left on device\n"))
    assert (info.crash_class, info.detail) == (CrashClass.DISK_FULL, "No space left on device")


def test_an_oserror_of_another_kind_stays_other():
    info = classify(failed(ENOSPC_TRACEBACK.replace("[Errno 28] No space left on device", "[Errno 5] Input/output error")))
    assert info.crash_class == "other"


def test_a_command_the_harness_stopped_at_the_disk_cap_is_disk_full():
    result = ExecResult(("python", "train.py"), None, "", "", False, False, 2.0,
                        disk_peak_bytes=70 * 2**20, disk_cap_bytes=64 * 2**20, disk_exceeded=True)
    info = classify(result)
    assert (info.crash_class, info.detail) == (CrashClass.DISK_FULL, "stopped at the disk cap (workspace peak 70.0 MiB of a 64 MiB cap)")
