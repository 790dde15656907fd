"""Running one host process with capped output and a wall-clock timeout.

Shared by the bwrap and the no-isolation drivers: both start a host process
(bwrap itself, or the command directly), stream its output through a cap,
and on timeout call back into the driver to kill everything it started (the
driver knows how: a cgroup, or a process group).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

READ_CHUNK = 1 << 16
DRAIN_WAIT_S = 10.0  # after the kill, how long the pipes may take to close


@dataclass(frozen=True)
class CappedText:
    """A stream's kept text and how many bytes were dropped to keep it under the cap."""

    text: str
    dropped_bytes: int


class CappedStream:
    """Reads a pipe to its end, keeping a head and a tail within `cap` bytes and counting the rest.

    The tail is kept because a crash's traceback comes last; the head because
    that is where a program says what it is doing.
    """

    def __init__(self, cap: int) -> None:
        self.cap = max(0, cap)
        self.tail_budget = self.cap // 4
        self.head_budget = self.cap - self.tail_budget
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_budget - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_budget:
            self.tail += chunk
            if len(self.tail) > 2 * self.tail_budget:  # trim in batches, not per chunk
                del self.tail[: len(self.tail) - self.tail_budget]

    def result(self) -> CappedText:
        tail = bytes(self.tail[-self.tail_budget :]) if self.tail_budget else b""
        kept = bytes(self.head) + tail
        text = kept.decode("utf-8", errors="replace")
        return CappedText(text, self.total - len(kept))


@dataclass(frozen=True)
class HostRun:
    """What a host process did: exit status (None if killed on timeout), output, timing."""

    returncode: int | None
    stdout: CappedText
    stderr: CappedText
    timed_out: bool
    duration_s: float


def run_capped(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str,
    timeout_s: float,
    output_cap: int,
    kill_all: Callable[[subprocess.Popen], None],
    pass_fds: Sequence[int] = (),
) -> HostRun:
    """Start `argv`, stream its output through caps, and enforce the timeout with `kill_all`.

    `kill_all` is also called after a normal exit, so that anything the
    command left running in the background is gone before this returns.
    """
    started = time.monotonic()
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
    )
    streams = (CappedStream(output_cap), CappedStream(output_cap))
    readers = [_start_reader(proc.stdout, streams[0]), _start_reader(proc.stderr, streams[1])]
    expired = threading.Event()

    def on_timeout() -> None:
        expired.set()
        kill_all(proc)

    # A timer rather than wait(timeout=): Popen.wait with a timeout polls with sleeps of up
    # to 50 ms, which would add tens of milliseconds to every execution.
    timer = threading.Timer(timeout_s, on_timeout)
    timer.daemon = True
    timer.start()
    try:
        proc.wait()
    finally:
        timer.cancel()
        kill_all(proc)  # leftovers of a normal exit; a no-op after a timeout's kill
        proc.wait()
    timed_out = expired.is_set()
    duration = time.monotonic() - started
    _drain(readers, proc, kill_all)
    return HostRun(
        returncode=None if timed_out else proc.returncode,
        stdout=streams[0].result(),
        stderr=streams[1].result(),
        timed_out=timed_out,
        duration_s=duration,
    )


def _start_reader(pipe, stream: CappedStream) -> threading.Thread:
    def pump() -> None:
        fd = pipe.fileno()
        while True:
            try:
                chunk = os.read(fd, READ_CHUNK)
            except OSError:
                return
            if not chunk:
                return
            stream.feed(chunk)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


def _drain(readers: list[threading.Thread], proc: subprocess.Popen, kill_all) -> None:
    """Wait for the pipes to close; a process that escaped the kill must not hang us forever."""
    deadline = time.monotonic() + DRAIN_WAIT_S
    for reader in readers:
        reader.join(max(0.0, deadline - time.monotonic()))
    if any(reader.is_alive() for reader in readers):
        kill_all(proc)
        for reader in readers:
            reader.join(1.0)
    if not any(reader.is_alive() for reader in readers):  # never close a pipe a reader still uses
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
