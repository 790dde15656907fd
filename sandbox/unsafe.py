"""The no-isolation driver: runs commands directly on the host.

For machines with neither Docker nor bubblewrap, and for debugging. It has
no filesystem, network, memory or process isolation at all: model-written
code can read the answer key, reach the network and harm the host. It
refuses to open unless told `i_understand_this_is_unsafe=True`, and every
result it returns says isolation="none" so that records show it.

What it still does: the workspace is the current folder; the spec's mounts
are shown through symlinks (relative ones inside the workspace, absolute
ones under a private folder, with command arguments naming them rewritten to
that folder); /deps is a private folder on PYTHONPATH; the wall-clock
timeout kills the command's whole process group; output is capped like the
other drivers. A process that leaves its group (setsid) escapes the kill.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from sandbox.base import ExecResult, Sandbox, SandboxSpec
from sandbox.docker_mounts import refuse_secrets
from sandbox.errors import SandboxError
from sandbox.hostproc import run_capped
from sandbox.kinds import UNSAFE, UnsafeRefused
from sandbox.paths import DEPS, WHEELS, WORKSPACE

__all__ = ["UnsafeRefused", "UnsafeSandbox"]


class UnsafeSandbox(Sandbox):
    """Runs commands on the host, unisolated; only with an explicit acknowledgement."""

    kind = UNSAFE

    def __init__(
        self,
        spec: SandboxSpec,
        *,
        i_understand_this_is_unsafe: bool = False,
        wheelhouse: Path | None = None,
        python_bin_dir: Path | None = None,
    ) -> None:
        if i_understand_this_is_unsafe is not True:
            raise UnsafeRefused(
                "the 'none' sandbox runs model-written code on this machine with no isolation; "
                "it needs the explicit unsafe flag"
            )
        super().__init__(spec)
        if not spec.workspace.is_dir():
            raise SandboxError(f"workspace {spec.workspace} is not a folder")
        for mount in spec.mounts:  # checked before anything is made, so a refusal leaves nothing behind
            if not mount.host_path.exists():
                raise SandboxError(f"mount source {mount.host_path} does not exist")
            refuse_secrets(mount.host_path)  # the same rule as the isolating drivers
        # Python of the running bakeoff: it has the data-science stack as dependencies.
        self.python_bin_dir = python_bin_dir or Path(sys.executable).parent
        self.private_dir = Path(tempfile.mkdtemp(prefix="bakeoff-unsafe-"))
        self.deps_dir = self.private_dir / "deps"
        self.deps_dir.mkdir()
        self.view_dir = self.private_dir / "view"  # absolute sandbox paths, shown as symlinks
        self.aliases = self._build_aliases(wheelhouse)

    def _build_aliases(self, wheelhouse: Path | None) -> dict[str, str]:
        """Sandbox path -> host path, for argument rewriting; makes the symlinks as it goes."""
        aliases = {WORKSPACE: str(self.spec.workspace), DEPS: str(self.deps_dir)}
        if wheelhouse is not None:
            aliases[WHEELS] = str(wheelhouse)
        for mount in self.spec.mounts:
            if mount.sandbox_path.startswith("/"):
                link = self.view_dir / mount.sandbox_path.lstrip("/")
                aliases[mount.sandbox_path] = str(link)
            else:
                link = self.spec.workspace / mount.sandbox_path
            link.parent.mkdir(parents=True, exist_ok=True)
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(mount.host_path.resolve())
        return aliases

    def _run(self, argv: tuple[str, ...], timeout_s: float, env: Mapping[str, str]) -> ExecResult:
        limits = self.spec.limits
        host_argv = [self.host_path(arg) for arg in argv]
        try:
            run = run_capped(
                host_argv,
                env=self.environment(env),
                cwd=str(self.spec.workspace),
                timeout_s=timeout_s,
                output_cap=limits.output_bytes,
                kill_all=_kill_process_group,
            )
        except OSError as exc:
            if exc.filename != host_argv[0]:
                raise SandboxError(f"could not start {argv[0]!r}: {exc}") from exc
            # A program that is missing or cannot run is the command's failure, reported as a shell
            # (and the other drivers) report it: 127 or 126 and a line on stderr.
            code = 127 if isinstance(exc, FileNotFoundError) else 126
            stderr = f"{argv[0]}: {exc.strerror}\n"
            return ExecResult(argv, code, "", stderr, False, False, 0.0, isolation=self.kind)
        return ExecResult(
            argv=argv,
            exit_code=run.returncode,
            stdout=run.stdout.text,
            stderr=run.stderr.text,
            timed_out=run.timed_out,
            oom_killed=False,  # no memory cap here, so no engine report to read
            duration_s=run.duration_s,
            stdout_dropped_bytes=run.stdout.dropped_bytes,
            stderr_dropped_bytes=run.stderr.dropped_bytes,
            isolation=self.kind,
        )

    def host_path(self, arg: str) -> str:
        """Rewrite an argument naming a sandbox path (e.g. /holdout/x.csv) to where it is on the host."""
        for sandbox_path, host in sorted(self.aliases.items(), key=lambda item: -len(item[0])):
            if arg == sandbox_path or arg.startswith(sandbox_path + "/"):
                return host + arg[len(sandbox_path):]
        return arg

    def environment(self, extra_env: Mapping[str, str]) -> dict[str, str]:
        env = {
            "PATH": f"{self.python_bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "PYTHONPATH": str(self.deps_dir),
            "HOME": os.environ.get("HOME", str(self.private_dir)),
            "LANG": "C.UTF-8",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }
        env.update(self.spec.limits.thread_env())
        env.update(self.spec.env)
        env.update(extra_env)
        return env

    def _release(self) -> None:
        shutil.rmtree(self.private_dir, ignore_errors=True)


def _kill_process_group(proc: subprocess.Popen) -> None:
    """The command leads its own session (start_new_session): kill that whole group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
