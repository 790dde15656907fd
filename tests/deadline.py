"""Deadlines for the suite's wait loops: a wait that cannot end fails its test with what it waited for, instead of
stalling CI until its 90 minutes run out. The limits are far above any healthy wait (they guard hangs; they are not
speed limits). pytest-timeout (pyproject.toml) is the backstop for a hang outside these loops."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx

WAIT_S = 600.0  # longer than any healthy wait in the suite (a cold Ray start on a loaded 2-core machine included)


class Deadline:
    """`while deadline.pending("the explore stage"): ...` raises AssertionError once `seconds` have passed."""

    def __init__(self, seconds: float = WAIT_S) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds

    def pending(self, waiting_for: str) -> bool:
        if time.monotonic() > self.ends:
            raise AssertionError(f"gave up after {self.seconds:.0f} s waiting for {waiting_for}")
        return True


def wait_until_answering(process: subprocess.Popen, url: str, log_path: Path, what: str) -> None:
    """Until the server `process` started answers `url` with 200; a server that dies fails the test with its log,
    one that never answers fails it at the deadline."""
    deadline = Deadline()
    while deadline.pending(f"{what} to answer {url}"):
        if process.poll() is not None:
            raise AssertionError(f"{what} exited: {log_path.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
