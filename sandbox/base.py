"""The sandbox contract: what every isolation offers the rest of bakeoff.

A `Sandbox` is a resource with a lifecycle (open, exec many times, close).
Executions return data (`ExecResult`); only infrastructure failure raises
(`sandbox.errors.SandboxError`).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

GIB = 1024**3
MIB = 1024**2


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

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed


@dataclass(frozen=True)
class SandboxSpec:
    """Everything needed to open a sandbox: the workspace, what is mounted, the caps."""

    workspace: Path  # host folder; the sandbox's current folder, writable
    mounts: tuple[Mount, ...] = ()
    limits: Limits = field(default_factory=Limits)
    env: Mapping[str, str] = field(default_factory=dict)


class Sandbox(abc.ABC):
    """An isolated place to run model-written commands, opened once per run or per scoring."""

    kind: str = ""

    def __init__(self, spec: SandboxSpec) -> None:
        self.spec = spec

    @abc.abstractmethod
    def exec(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ExecResult:
        """Run one command in the workspace; kill everything it started when it ends or times out."""

    def close(self) -> None:
        """Release the sandbox (remove its container, kill leftovers). Safe to call twice."""

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
