"""The bubblewrap sandbox: isolation without a container engine.

Each execution is one `bwrap` process with fresh user, pid, network, ipc and
uts namespaces. The sandbox sees only what it needs: the system's /usr (and
the /bin, /lib symlinks into it), the Python environment at /opt/venv with
its base interpreter, the workspace (writable, the current folder), the
spec's single corpus files, /deps, /wheels, a fresh /tmp, /proc and a
minimal /dev. Everything else of the host, the answer key included, does not
exist inside. The root is remounted read-only.

The command never runs as root. When bakeoff is root (CI is), bwrap starts
as root (so it can bind whatever the caller owns) with every capability
dropped but setuid/setgid, and the command is started through `setpriv` as
uid/gid 65534 with no capabilities and no-new-privs: a real unprivileged
uid on the host, so root-owned host files and kernel settings reachable
through /proc stay out of reach. The workspace is shared with gid 65534
(group read-write, as the Docker driver does) only while a command runs:
afterwards it is the harness's alone again (owner bakeoff's uid, folders
0700, files 0600), so no host process running as `nobody` can read or
rewrite a run's files between executions. A read-only input that uid
cannot read is refused up front. When bakeoff is not root, bwrap maps the caller to 65534 in
a user namespace instead.

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
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath

from sandbox.base import ExecResult, Sandbox, SandboxSpec
from sandbox.cgroups import CgroupTree, ExecGroup, find_tree
from sandbox.docker_mounts import (
    BindMount,
    missing_placeholders,
    reclaim_workspace,
    remove_placeholders,
    require_readable_by,
    resolve_mounts,
    share_workspace_with_group,
)
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.hostenv import (
    SANDBOX_PACKAGES,
    VENV_MOUNT,
    HostEnv,
    current_base_python,
    default_cache_dir,
    ensure_host_env,
    locate_host_env,
)
from sandbox.hostproc import run_capped
from sandbox.kinds import BWRAP
from sandbox.paths import DEPS, WHEELS, WORKSPACE
from sandbox.wheelhouse import require_wheels

ENTER_FAILED = 125  # the wrapper's exit status when it could not join the cgroup
SANDBOX_UID = 65534  # "nobody": the uid and gid commands run as
SETPRIV = "/usr/bin/setpriv"  # util-linux; under /usr, so the sandbox sees it at the same path
# Top-level system folders a dynamically linked python needs; merged-/usr systems make them symlinks.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Single /etc files the loader and libc read; /etc as a whole may hold secrets and is not bound.
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/nsswitch.conf")
ETC_DIRS = ("/etc/ld.so.conf.d",)


class BwrapSandbox(Sandbox):
    """Runs each command under bubblewrap inside its own capped cgroup."""

    kind = BWRAP

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
        found = shutil.which(bwrap_path or "bwrap")
        if not found:
            raise SandboxUnavailable(f"bubblewrap not found as {bwrap_path or 'bwrap'} (apt-get install bubblewrap)")
        self.bwrap: str = found
        if wheelhouse is not None and not wheelhouse.is_dir():
            raise SandboxError(f"wheelhouse {wheelhouse} is not a folder")
        self.binds = resolve_mounts(spec)  # the workspace first; refuses the answer key and truth.csv
        self.drop_root = os.geteuid() == 0
        if self.drop_root:
            if not os.access(SETPRIV, os.X_OK):
                raise SandboxUnavailable(f"{SETPRIV} (util-linux) is needed to run commands unprivileged")
            for bind in self.binds[1:]:
                if bind.read_only and bind.target != f"{WORKSPACE}/.git":  # .git: the host's, not an input
                    require_readable_by(bind.source, SANDBOX_UID, SANDBOX_UID)  # refused up front, as Docker does
        self._group: ExecGroup | None = None  # the running execution's cgroup, for the disk watch's kill
        self._stopped: ExecGroup | None = None  # the group the disk watch killed
        self.cgroups = cgroups or find_tree()
        self.cgroups.sweep_stale()
        # The first use builds the environment (about half a minute); `report` tells the user why we wait.
        self.host_env = host_env or _host_env(cache_dir, wheelhouse, report or (lambda message: None))
        self.wheelhouse = wheelhouse
        # /deps is writable by the command: on the capped filesystem when there is one, so it is capped too
        # (and the sandbox's mount table then shows no host path of these folders).
        capped = spec.disk_cap.mount_point if spec.disk_cap is not None else None
        self.private_dir = Path(tempfile.mkdtemp(prefix="bakeoff-bwrap-", dir=capped))  # last: nothing can fail after it
        self.deps_dir = Path(tempfile.mkdtemp(prefix="bakeoff-deps-", dir=capped)) if capped else self.private_dir / "deps"
        self.deps_dir.mkdir(exist_ok=True)
        os.chmod(self.deps_dir, 0o755)
        _write_identity_files(self.private_dir)
        if self.drop_root:
            os.chown(self.deps_dir, SANDBOX_UID, SANDBOX_UID)

    def _run(self, argv: tuple[str, ...], timeout_s: float, env: Mapping[str, str]) -> ExecResult:
        limits = self.spec.limits
        placeholders = missing_placeholders(self.binds[0].source, self.binds)
        group, status_read, status_write = None, -1, -1
        try:
            _make_mount_points(self.binds)
            if self.drop_root:
                # Files the host wrote since the last execution become writable for the sandbox's group.
                share_workspace_with_group(self.binds[0].source, SANDBOX_UID)
            group = self._group = self.cgroups.create(limits)
            nonce = secrets.token_hex(8)
            status_read, status_write = os.pipe()  # bwrap reports there whether the command ever ran
            argv_host = [
                *_enter_group_argv(group, nonce), self.bwrap, "--json-status-fd", str(status_write),
                *self.bwrap_args(env), "--", *self.command(argv),
            ]
            run = run_capped(
                argv_host,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                cwd=str(self.spec.workspace),
                timeout_s=timeout_s,
                output_cap=limits.output_bytes,
                kill_all=lambda proc: _kill_group(group, proc),
                pass_fds=(status_write,),
            )
            os.close(status_write)
            status_write = -1
            if run.returncode == ENTER_FAILED and nonce in run.stderr.text:
                raise SandboxError(f"could not move the command into its cgroup: {run.stderr.text.strip()}")
            oom = _read_oom_kills(group) > 0
            cpu_s = _read_cpu_seconds(group)
            stopped = self._stopped is group  # the disk watch killed it (bwrap with it, so no status)
            if not (run.timed_out or oom or stopped or _command_exited(status_read)):
                # bwrap failed before the command could run (a vanished mount source...): the harness's fault.
                raise SandboxError(f"bwrap could not set up the sandbox: {run.stderr.text.strip()[-1000:]}")
        except OSError as exc:
            raise SandboxError(f"could not prepare or start bwrap: {exc}") from exc
        finally:
            for fd in (status_read, status_write):
                if fd >= 0:
                    os.close(fd)
            self._group = None
            if group is not None:
                group.remove()
            remove_placeholders(placeholders)
            if self.drop_root:
                reclaim_workspace(self.binds[0].source)  # the command's processes are all gone: nothing races it
        killed = run.timed_out or stopped or (oom and run.returncode in (137, -signal.SIGKILL))
        return ExecResult(
            argv=argv,
            exit_code=None if killed else run.returncode,
            stdout=run.stdout.text,
            stderr=run.stderr.text,
            timed_out=run.timed_out,
            oom_killed=oom,
            duration_s=run.duration_s,
            stdout_dropped_bytes=run.stdout.dropped_bytes,
            stderr_dropped_bytes=run.stderr.dropped_bytes,
            isolation=self.kind,
            cpu_s=cpu_s,
        )

    def _writable_folders(self) -> list[Path]:
        return [self.spec.workspace, self.deps_dir]

    def _stop_running(self) -> None:
        group = self._group
        if group is not None:
            self._stopped = group
            try:
                group.kill_all()
            except OSError:
                pass  # the execution ended meanwhile and its group is gone

    def bwrap_args(self, extra_env: Mapping[str, str]) -> list[str]:
        """The bwrap options for one execution: namespaces, identity, binds, environment."""
        args = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                "--hostname", "sandbox", "--die-with-parent", "--new-session"]
        if self.drop_root:
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]  # setpriv's only needs
        else:
            args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
        binds = _system_binds() + _python_binds(self.host_env)
        binds += [("--ro-bind", str(self.private_dir / "passwd"), "/etc/passwd")]
        binds += [("--ro-bind", str(self.private_dir / "group"), "/etc/group")]
        binds += [("--bind", str(self.deps_dir), DEPS)]
        if self.wheelhouse is not None:
            binds += [("--ro-bind", str(self.wheelhouse), WHEELS)]
        # the workspace, its .git read-only, then the corpus files
        binds += [("--ro-bind" if b.read_only else "--bind", str(b.source), b.target) for b in self.binds]
        args += _open_parent_dirs([target for _, _, target in binds])
        for bind in binds:
            args += list(bind)
        args += ["--perms", "1777", "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev"]
        args += ["--perms", "1777", "--tmpfs", "/dev/shm", "--remount-ro", "/"]
        args += ["--chdir", WORKSPACE, "--clearenv"]
        for key, value in self.environment(extra_env).items():
            args += ["--setenv", key, value]
        return args

    def command(self, argv: Sequence[str]) -> list[str]:
        """The command as bwrap starts it: through setpriv when root must be dropped."""
        if not self.drop_root:
            return list(argv)
        uid = str(SANDBOX_UID)
        return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--", *argv]

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
            "PIP_NO_INDEX": "1",  # there is no network: pip installs from /wheels only, as in the image
        }
        if self.wheelhouse is not None:
            env["PIP_FIND_LINKS"] = WHEELS
        if self.host_env.library_path:
            env["LD_LIBRARY_PATH"] = self.host_env.library_path
        env.update(self.spec.limits.thread_env())
        env.update(self.spec.env)
        env.update(extra_env)
        return env

    def _release(self) -> None:
        shutil.rmtree(self.private_dir, ignore_errors=True)
        shutil.rmtree(self.deps_dir, ignore_errors=True)


def _host_env(cache_dir: Path | None, wheelhouse: Path | None, report: Callable[[str], None]) -> HostEnv:
    """The cached environment; built (offline from the wheelhouse when there is one) on first use."""
    found = locate_host_env(cache_dir or default_cache_dir(), current_base_python(), SANDBOX_PACKAGES)
    if found is not None or wheelhouse is None:
        return ensure_host_env(cache_dir, report=report)
    try:
        require_wheels(SANDBOX_PACKAGES, wheelhouse)  # the image's stack; usually there already
    except SandboxError as exc:
        report(f"could not fill the wheelhouse ({str(exc)[-200:]}); the package index will be used")
    return ensure_host_env(cache_dir, wheelhouse=wheelhouse, report=report)


def _system_binds() -> list[tuple[str, str, str]]:
    binds: list[tuple[str, str, str]] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            binds.append(("--symlink", os.readlink(path), path))
        elif os.path.isdir(path):
            binds.append(("--ro-bind", path, path))
    for path in ETC_FILES + ETC_DIRS:
        if os.path.exists(path):
            binds.append(("--ro-bind", path, path))
    return binds


def _python_binds(host_env: HostEnv) -> list[tuple[str, str, str]]:
    binds = [("--ro-bind", str(host_env.venv_dir), VENV_MOUNT)]
    if host_env.needs_base_bind:
        binds.append(("--ro-bind", str(host_env.base_prefix), host_env.base_mount))
    return binds


def _make_mount_points(binds: list[BindMount]) -> None:
    """Create in the host workspace the mount points of binds that land inside it.

    bwrap would make them itself, but with folders closed to uid 65534; they
    are removed again after the execution (remove_placeholders) if still empty.
    """
    workspace = binds[0].source
    for bind in binds[1:]:
        if not bind.target.startswith(WORKSPACE + "/"):
            continue
        point = workspace / bind.target[len(WORKSPACE) + 1:]
        _real_dirs_down_to(workspace, point.parent)
        if point.is_symlink() or (point.exists() and point.is_dir() != bind.source.is_dir()):
            # sandboxed code planted it: a mount point is never a link, nor a file where a folder goes
            if point.is_dir() and not point.is_symlink():
                shutil.rmtree(point)
            else:
                point.unlink()
        if bind.source.is_dir():
            point.mkdir(mode=0o755, exist_ok=True)
        elif not point.exists():
            point.touch(mode=0o644)


def _real_dirs_down_to(workspace: Path, folder: Path) -> None:
    """Make every folder from the workspace down to `folder` a real folder.

    Sandboxed code may have replaced one (`data`) with a link or a file: that is removed, never followed.
    """
    path = workspace
    for part in folder.relative_to(workspace).parts:
        path = path / part
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            path.unlink()
        path.mkdir(mode=0o755, exist_ok=True)


def _open_parent_dirs(targets: list[str]) -> list[str]:
    """Make the folders above mount targets 0755 first: bwrap would make them 0700, closed to uid 65534."""
    parents: set[str] = set()
    for target in targets:
        if target.startswith(WORKSPACE + "/"):
            continue  # inside the bound workspace: the host's folders (or Docker-style placeholders) serve
        parents.update(str(p) for p in PurePosixPath(target).parents if str(p) != "/")
    args: list[str] = []
    for parent in sorted(parents, key=lambda p: p.count("/")):
        args += ["--perms", "0755", "--dir", parent]
    return args


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


def _command_exited(status_fd: int) -> bool:
    """Whether bwrap's JSON status says the command ran and exited (bwrap has exited by now)."""
    os.set_blocking(status_fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(status_fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b'"exit-code"' in b"".join(chunks)


def _read_cpu_seconds(group: ExecGroup) -> float | None:
    """The command's CPU seconds from its group; None where they cannot be read (cgroup v1 keeps them in a
    cpuacct hierarchy this driver does not join)."""
    try:
        return group.cpu_seconds()
    except (OSError, ValueError):
        return None


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
