"""Deadlines for the suite's wait loops: a wait that cannot end fails its test with what it waited for, instead of
stalling CI until its 90 minutes run out. The limits are far above any healthy wait (they guard hangs; they are not
speed limits). pytest-timeout (pyproject.toml) is the backstop for a hang outside these loops."""

from __future__ import annotations

import time

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
