"""How a child process ended, in words (the engine child's and the chat template worker's)."""

from __future__ import annotations

import signal


def describe_exit(exitcode: int | None) -> str:
    """'killed by signal SIGSEGV (exit status -11)' or 'exited with status 1'."""
    if exitcode is None:
        return "ended with no exit status"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"killed by signal {name} (exit status {exitcode})"
    return f"exited with status {exitcode}"
