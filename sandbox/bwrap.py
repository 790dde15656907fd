"""The bubblewrap sandbox: isolation without a container engine.

Each execution is one `bwrap` process with fresh user, pid, network, ipc and
uts namespaces. The sandbox sees only what it needs: the system's /usr (and
the /bin, /lib symlinks into it), the Python environment at /opt/venv with
its base interpreter, the workspace (writable, the current folder), the
spec's single corpus files, /deps, /wheels, a fresh /tmp, /proc and a
minimal /dev. Everything else of the host, the answer key included, does not
exist inside. The root is remounted read-only.

Caps come from a per-execution cgroup (see sandbox.cgroups) that binds root
too: memory, process count and CPU. The cgroup also tells an OOM kill from a
timeout (the kernel's own counter) and lets a timeout kill everything the
command started. With --unshare-pid, bwrap's init dies with the command and
takes every leftover process with it; the cgroup sweep after each execution
makes sure of it.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Mapping, Sequence

from sandbox.base import ExecResult, Mount, Sandbox, SandboxSpec
from sandbox.cgroups import CgroupTree, ExecGroup, find_tree
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.hostenv import VENV_MOUNT, HostEnv, ensure_host_env
from sandbox.hostproc import run_capped

WORKSPACE = "/workspace"
DEPS = "/deps"
WHEELS = "/wheels"
ENTER_FAILED = 125  # the wrapper's exit status when it could not join the cgroup
SANDBOX_UID = 65534  # "nobody" inside the sandbox's own user namespace
# Top-level system folders a dynamically linked python needs; merged-/usr systems make them symlinks.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Single /etc files the loader and libc read; /etc as a whole may hold secrets and is not bound.
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/nsswitch.conf")
ETC_DIRS = ("/etc/ld.so.conf.d",)


class BwrapSandbox(Sandbox):
    """Runs each command under bubblewrap inside its own capped cgroup."""

    kind = "bwrap"

    def __init__(
        self,
        spec: SandboxSpec,
        *,
        host_env: HostEnv | None = None,
        wheelhouse: Path | None = None,
        cache_dir: Path | None = None,
        bwrap_path: str | None = None,
        cgroups: CgroupTree | None = None,
        report: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(spec)
        self.bwrap = shutil.which(bwrap_path or "bwrap")
        if not self.bwrap:
            raise SandboxUnavailable(f"bubblewrap not found as {bwrap_path or 'bwrap'} (apt-get install bubblewrap)")
        _check_spec(spec, wheelhouse)
        self.cgroups = cgroups or find_tree()
        # The first use builds the environment (about half a minute); `report` tells the user why we wait.
        self.host_env = host_env or ensure_host_env(cache_dir, report=report or (lambda message: None))
        self.wheelhouse = wheelhouse
        self.private_dir = Path(tempfile.mkdtemp(prefix="bakeoff-bwrap-"))
        (self.private_dir / "deps").mkdir()
        _write_identity_files(self.private_dir)
        self.closed = False

    def exec(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ExecResult:
        if self.closed:
            raise SandboxError("this bwrap sandbox is closed")
        if not argv:
            raise SandboxError("empty command")
        limits = self.spec.limits
        placeholders = _missing_mountpoints(self.spec)
        group = self.cgroups.create(limits)
        nonce = secrets.token_hex(8)
        try:
            run = run_capped(
                [*_enter_group_argv(group, nonce), self.bwrap, *self.bwrap_args(env or {}), "--", *argv],
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                cwd=str(self.spec.workspace),
                timeout_s=limits.timeout_s if timeout_s is None else timeout_s,
                output_cap=limits.output_bytes,
                kill_all=lambda proc: _kill_group(group, proc),
            )
            if run.returncode == ENTER_FAILED and nonce in run.stderr.text:
                raise SandboxError(f"could not move the command into its cgroup: {run.stderr.text.strip()}")
            oom = _read_oom_kills(group) > 0
        finally:
            group.remove()
            _remove_placeholders(placeholders)
        killed = run.timed_out or (oom and run.returncode in (137, -signal.SIGKILL))
        return ExecResult(
            argv=tuple(argv),
            exit_code=None if killed else run.returncode,
            stdout=run.stdout.text,
            stderr=run.stderr.text,
            timed_out=run.timed_out,
            oom_killed=oom,
            duration_s=run.duration_s,
            stdout_dropped_bytes=run.stdout.dropped_bytes,
            stderr_dropped_bytes=run.stderr.dropped_bytes,
            isolation=self.kind,
        )

    def bwrap_args(self, extra_env: Mapping[str, str]) -> list[str]:
        """The bwrap options for one execution: namespaces, binds, environment."""
        args = [
            "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--hostname", "sandbox", "--die-with-parent", "--new-session",
        ]
        args += _system_binds()
        args += _python_binds(self.host_env)
        args += ["--ro-bind", str(self.private_dir / "passwd"), "/etc/passwd"]
        args += ["--ro-bind", str(self.private_dir / "group"), "/etc/group"]
        args += ["--bind", str(self.private_dir / "deps"), DEPS]
        if self.wheelhouse is not None:
            args += ["--ro-bind", str(self.wheelhouse), WHEELS]
        args += ["--bind", str(self.spec.workspace), WORKSPACE]
        for mount in self.spec.mounts:
            args += _mount_args(mount)
        args += ["--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/"]
        args += ["--chdir", WORKSPACE, "--clearenv"]
        for key, value in self.environment(extra_env).items():
            args += ["--setenv", key, value]
        return args

    def environment(self, extra_env: Mapping[str, str]) -> dict[str, str]:
        """The command's whole environment: nothing is inherited from the host."""
        env = {
            "PATH": f"{VENV_MOUNT}/bin:/usr/local/bin:/usr/bin:/bin",
            "VIRTUAL_ENV": VENV_MOUNT,
            "PYTHONPATH": DEPS,
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "USER": "nobody",
            "LOGNAME": "nobody",
            "LANG": "C.UTF-8",
            "PIP_NO_CACHE_DIR": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }
        if self.host_env.library_path:
            env["LD_LIBRARY_PATH"] = self.host_env.library_path
        env.update(self.spec.env)
        env.update(extra_env)
        return env

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            shutil.rmtree(self.private_dir, ignore_errors=True)


def _check_spec(spec: SandboxSpec, wheelhouse: Path | None) -> None:
    if not spec.workspace.is_dir():
        raise SandboxError(f"workspace {spec.workspace} is not a folder")
    for mount in spec.mounts:
        if not mount.host_path.exists():
            raise SandboxError(f"mount source {mount.host_path} does not exist")
    if wheelhouse is not None and not wheelhouse.is_dir():
        raise SandboxError(f"wheelhouse {wheelhouse} is not a folder")


def _system_binds() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in ETC_FILES + ETC_DIRS:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _python_binds(host_env: HostEnv) -> list[str]:
    args = ["--ro-bind", str(host_env.venv_dir), VENV_MOUNT]
    if host_env.needs_base_bind:
        args += ["--ro-bind", str(host_env.base_prefix), host_env.base_mount]
    return args


def _mount_args(mount: Mount) -> list[str]:
    target = mount.sandbox_path
    if not target.startswith("/"):
        target = f"{WORKSPACE}/{target}"
    return ["--ro-bind" if mount.read_only else "--bind", str(mount.host_path), target]


def _missing_mountpoints(spec: SandboxSpec) -> list[Path]:
    """Workspace paths bwrap will create as mount points (a folder, an empty file), outermost first."""
    missing: list[Path] = []
    for mount in spec.mounts:
        if mount.sandbox_path.startswith("/"):
            continue
        path = spec.workspace
        for part in Path(mount.sandbox_path).parts:
            path = path / part
            if not path.exists() and path not in missing:
                missing.append(path)
    return missing


def _remove_placeholders(paths: list[Path]) -> None:
    """Remove the mount points bwrap left in the host workspace, unless the command filled them."""
    for path in reversed(paths):
        try:
            if path.is_dir() and not path.is_symlink():
                path.rmdir()  # fails, and so is kept, if the command wrote files into it
            elif path.is_file() and path.stat().st_size == 0:
                path.unlink()
        except OSError:
            pass


def _write_identity_files(folder: Path) -> None:
    """A passwd and group naming only the sandbox user: some libraries look the user up."""
    (folder / "passwd").write_text(f"nobody:x:{SANDBOX_UID}:{SANDBOX_UID}:nobody:/tmp:/usr/sbin/nologin\n")
    (folder / "group").write_text(f"nogroup:x:{SANDBOX_UID}:\n")


def _enter_group_argv(group: ExecGroup, nonce: str) -> list[str]:
    """A host shell that joins the group, then execs bwrap: everything bwrap starts is born inside.

    A shell rather than a preexec_fn: Python then spawns with vfork, which is
    several milliseconds cheaper per execution. A failure to join is marked
    with a per-execution nonce the sandboxed command cannot know.
    """
    script = (
        'nonce=$1; shift; while [ "$1" != -- ]; do '
        'echo $$ > "$1" || { echo "bakeoff-cgroup-enter-failed $nonce: $1" >&2; exit %d; }; shift; done; '
        'shift; exec "$@"' % ENTER_FAILED
    )
    return ["/bin/sh", "-c", script, "bakeoff-enter-cgroup", nonce, *group.procs_files, "--"]


def _read_oom_kills(group: ExecGroup) -> int:
    try:
        return group.oom_kills()
    except (OSError, ValueError) as exc:
        raise SandboxError(f"cannot read the cgroup's OOM report: {exc}") from exc


def _kill_group(group: ExecGroup, proc: subprocess.Popen) -> None:
    group.kill_all()
    if proc.poll() is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
