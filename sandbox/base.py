"""The sandbox contract: what every isolation offers the rest of bakeoff.

A `Sandbox` is a resource with a lifecycle (open, exec many times, close).
Executions return data (`ExecResult`); only infrastructure failure raises
(`sandbox.errors.SandboxError`).
"""

from __future__ import annotations

import abc
import dataclasses
import math
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.diskwatch import FilesystemWatch, TreeWatch
from sandbox.errors import SandboxError
from sandbox.scratch import DiskCap

GIB = 1024**3
MIB = 1024**2
# The numeric libraries' thread counts, set to the CPU cap in every sandbox (Limits.thread_env).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class Mount:
    """A single host file or folder made visible inside the sandbox."""

    host_path: Path
    sandbox_path: str  # absolute, or relative to the workspace
    read_only: bool = True


@dataclass(frozen=True)
class Limits:
    """Caps applied to every execution."""

    memory_bytes: int = 6 * GIB
    pids: int = 512
    cpus: float = 2.0
    output_bytes: int = 1 * MIB  # kept per stream; the rest is counted, not kept
    timeout_s: float = 600.0
    # What the workspace and /deps may hold when they are ordinary host folders (a capped
    # filesystem, SandboxSpec.disk_cap, is its own cap): a command that writes more is stopped.
    disk_bytes: int = 8 * GIB

    def thread_env(self) -> dict[str, str]:
        """Thread counts for the numeric libraries at the CPUs a command may use. OpenMP, OpenBLAS and MKL start
        a thread per core the machine has, and a container capped below that still sees every core: the extra
        threads only spin against each other and against the machine's other work (a forecast's gradient boosting
        took 93 s with the machine's threads under a one-CPU cap, 9 s with one)."""
        count = str(max(1, int(min(self.cpus, os.cpu_count() or 1))))
        return {name: count for name in THREAD_VARIABLES}


@dataclass(frozen=True)
class ExecResult:
    """What one command did inside the sandbox."""

    argv: tuple[str, ...]
    exit_code: int | None  # None when the command was killed before it exited on its own
    stdout: str
    stderr: str
    timed_out: bool
    oom_killed: bool  # from the engine's own report, never inferred from exit code 137
    duration_s: float
    stdout_dropped_bytes: int = 0
    stderr_dropped_bytes: int = 0
    isolation: str = ""  # "docker", "bwrap" or "none" (unsafe); written into every record
    # The workspace filesystem's peak use during the command and its size; None where it is not capped.
    disk_peak_bytes: int | None = None
    disk_cap_bytes: int | None = None
    disk_exceeded: bool = False  # stopped by the harness because the workspace outgrew Limits.disk_bytes
    # CPU seconds (user + system) the command and everything it started used; None where the driver cannot tell.
    cpu_s: float | None = None

    @property
    def ok(self) -> bool:
        # Past the disk cap is a failure even when the command finished before it could be stopped.
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed and not self.disk_exceeded


@dataclass(frozen=True)
class SandboxSpec:
    """Everything needed to open a sandbox: the workspace, what is mounted, the caps."""

    workspace: Path  # host folder; the sandbox's current folder, writable
    mounts: tuple[Mount, ...] = ()
    limits: Limits = field(default_factory=Limits)
    env: Mapping[str, str] = field(default_factory=dict)
    # Set when the workspace lies on a capped filesystem of its own (sandbox.scratch): each result
    # then reports the peak use, and the drivers put /deps there too.
    disk_cap: DiskCap | None = None


class Sandbox(abc.ABC):
    """An isolated place to run model-written commands, opened once per run or per scoring.

    `exec` and `close` are the same for every driver: the checks and the
    lifecycle live here, and a driver only says how to run one checked
    command (`_run`) and what to release (`_release`).
    """

    kind: str = ""

    def __init__(self, spec: SandboxSpec) -> None:
        self.spec = spec
        self.closed = False
        self._lock = threading.Lock()  # one execution at a time; close waits for a running one
        # CPU seconds of every execution so far that reported them (ExecResult.cpu_s); None until one did.
        self.cpu_seconds: float | None = None

    def exec(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ExecResult:
        """Run one command in the workspace; kill everything it started when it ends or times out."""
        command = tuple(str(arg) for arg in argv)
        if not command:
            raise SandboxError("exec needs a command")
        timeout = _checked_timeout(self.spec.limits.timeout_s if timeout_s is None else timeout_s)
        with self._lock:
            if self.closed:
                raise SandboxError(f"this {self.kind} sandbox is closed")
            cap = self.spec.disk_cap
            if cap is not None:
                with FilesystemWatch(cap) as watch:
                    result = self._run(command, timeout, dict(env or {}))
                return self._counted(dataclasses.replace(result, disk_peak_bytes=watch.peak_bytes,
                                                         disk_cap_bytes=cap.cap_bytes))
            limit = self.spec.limits.disk_bytes
            with TreeWatch(self._writable_folders(), limit, self._stop_running) as watch:
                result = self._run(command, timeout, dict(env or {}))
            return self._counted(dataclasses.replace(
                result, disk_peak_bytes=watch.peak_bytes, disk_cap_bytes=limit, disk_exceeded=watch.exceeded
            ))

    def _counted(self, result: ExecResult) -> ExecResult:
        if result.cpu_s is not None:
            self.cpu_seconds = (self.cpu_seconds or 0.0) + result.cpu_s
        return result

    @abc.abstractmethod
    def _run(self, argv: tuple[str, ...], timeout_s: float, env: Mapping[str, str]) -> ExecResult:
        """Run one command (non-empty, a valid timeout, the sandbox open); the driver's own part of `exec`."""

    def _writable_folders(self) -> list[Path]:
        """The host folders a command can fill (the workspace; drivers add their /deps)."""
        return [self.spec.workspace]

    def writable_folders(self) -> list[Path]:
        """The host folders whose content outlives a command (the workspace, /deps): what the hidden-input gate
        puts back as it was (bakeoff.taskapi.rollback)."""
        return list(self._writable_folders())

    def _stop_running(self) -> None:  # noqa: B027 - a hook: a no-op unless the driver can stop a command
        """Kill the command now running (called from the disk watch's thread); drivers that can, do."""

    def close(self) -> None:
        """Release the sandbox (remove its container, kill leftovers). Safe to call twice."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            self._release()

    def _release(self) -> None:  # noqa: B027 - a hook: a no-op for a driver that holds nothing more
        """What the driver holds beyond the open sandbox; called once, by `close`."""

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _checked_timeout(timeout_s: object) -> float:
    """A timeout as a positive, finite number of seconds; SandboxError for anything else."""
    try:
        timeout = float(timeout_s)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        timeout = math.nan
    if not math.isfinite(timeout) or timeout <= 0:
        raise SandboxError(f"timeout must be a positive number of seconds, not {timeout_s!r}")
    return timeout
