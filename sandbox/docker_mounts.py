"""Host-side preparation of what a Docker sandbox mounts: checks, permissions, placeholders.

Kept apart from the driver so that the rules are readable on their own:
- the answer key and truth.csv are never mounted, whatever a caller asks;
- when bakeoff runs as root, commands run as an unprivileged uid, so the
  workspace is shared with that uid's group, and a read-only input that uid
  could not read is refused up front rather than failing inside;
- mount points Docker has to create inside the workspace are removed again
  when the sandbox closes, so a workspace is left as it was found.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import durable
from sandbox.base import Mount, SandboxSpec
from sandbox.errors import SandboxError
from sandbox.paths import WORKSPACE as WORKSPACE_IN_SANDBOX

# The answer keys of the take-homes (spam_classifier's, ab_test's and simulation's): published private, never mounted.
NEVER_MOUNTED = durable.ANSWER_KEYS


@dataclass(frozen=True)
class BindMount:
    """A resolved bind mount: host source, absolute target inside the container."""

    source: Path
    target: str
    read_only: bool


def sandbox_target(sandbox_path: str) -> str:
    """The absolute in-container path for a mount (relative paths are under the workspace)."""
    path = PurePosixPath(sandbox_path)
    if ".." in path.parts:
        raise SandboxError(f"mount target {sandbox_path!r} must not contain '..'")
    absolute = path if path.is_absolute() else PurePosixPath(WORKSPACE_IN_SANDBOX) / path
    if str(absolute) in ("/", WORKSPACE_IN_SANDBOX):
        raise SandboxError(f"mount target {sandbox_path!r} would hide the root or the workspace")
    return str(absolute)


def refuse_secrets(source: Path) -> None:
    """Refuse a mount that is, or directly holds, the answer key or the truth file."""
    names = {source.name}
    if source.is_dir():
        names |= {child.name for child in source.iterdir()}
    leaked = sorted(names & NEVER_MOUNTED)
    if leaked:
        raise SandboxError(f"refusing to mount {source}: it exposes {', '.join(leaked)}, which never enters a sandbox")


def resolve_mounts(spec: SandboxSpec) -> list[BindMount]:
    """The workspace and the spec's mounts as bind mounts, checked."""
    workspace = spec.workspace.resolve()
    if not workspace.is_dir():
        raise SandboxError(f"workspace {spec.workspace} is not a folder")
    refuse_secrets(workspace)
    mounts = [BindMount(workspace, WORKSPACE_IN_SANDBOX, read_only=False)]
    if (workspace / ".git").is_dir():
        # The repository's own metadata stays read-only: a command must not plant hooks the host would run.
        mounts.append(BindMount(workspace / ".git", f"{WORKSPACE_IN_SANDBOX}/.git", read_only=True))
    for mount in spec.mounts:
        mounts.append(_resolve_one(mount))
    return mounts


def _resolve_one(mount: Mount) -> BindMount:
    source = Path(mount.host_path).resolve()
    if not source.exists():
        raise SandboxError(f"mount source {mount.host_path} does not exist")
    refuse_secrets(source)
    return BindMount(source, sandbox_target(mount.sandbox_path), read_only=mount.read_only)


def missing_placeholders(workspace: Path, mounts: list[BindMount]) -> list[Path]:
    """The topmost host paths Docker will create inside the workspace as mount points."""
    created: list[Path] = []
    prefix = WORKSPACE_IN_SANDBOX + "/"
    for mount in mounts:
        if not mount.target.startswith(prefix):
            continue
        relative = PurePosixPath(mount.target[len(prefix):])
        host = workspace
        for part in relative.parts:
            host = host / part
            if not os.path.lexists(host):
                if host not in created:
                    created.append(host)
                break
    return created


def remove_placeholders(paths: list[Path]) -> None:
    """Remove mount points Docker created, only while they are still empty."""
    for path in paths:
        if path.is_symlink():
            continue
        if path.is_file() and path.stat().st_size == 0:
            path.unlink(missing_ok=True)
        elif path.is_dir():
            _remove_empty_tree(path)


def _remove_empty_tree(folder: Path) -> None:
    for dirpath, _dirnames, filenames in os.walk(folder, topdown=False):
        for name in filenames:
            file = Path(dirpath) / name
            if file.is_file() and not file.is_symlink() and file.stat().st_size == 0:
                file.unlink()
        try:
            os.rmdir(dirpath)
        except OSError:
            pass  # something real is inside: leave it


def share_workspace_with_group(workspace: Path, gid: int) -> None:
    """Give `gid` read-write access to the workspace tree (but not .git), keeping owners as they are.

    Owners are not changed on purpose: git refuses to work in a repository
    owned by another user, and the host still owns everything it wrote.
    """
    for dirpath, dirnames, filenames in os.walk(workspace):
        if Path(dirpath) == workspace and ".git" in dirnames:
            dirnames.remove(".git")
        _add_group_access(Path(dirpath), gid, is_dir=True)
        for name in filenames:
            _add_group_access(Path(dirpath) / name, gid, is_dir=False)


def _add_group_access(path: Path, gid: int, *, is_dir: bool) -> None:
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return  # never follow a link a command may have planted
    if info.st_gid != gid:
        os.chown(path, -1, gid, follow_symlinks=False)
    wanted = stat.S_IRGRP | stat.S_IWGRP | (stat.S_IXGRP | stat.S_ISGID if is_dir else 0)
    if not is_dir and info.st_mode & stat.S_IXUSR:
        wanted |= stat.S_IXGRP  # a script the command made executable stays so once the host owns it again
    if info.st_mode & wanted != wanted:
        os.chmod(path, stat.S_IMODE(info.st_mode) | wanted)


def reclaim_workspace(workspace: Path) -> None:
    """Give the workspace tree (but not .git) back to the harness's user alone, once no process of the command runs.

    Between executions nobody but the harness may read or change a run's files: a host process running as the
    sandbox's uid (65534 is `nobody`, which other services use too) must not rewrite predict.py. Files the command
    wrote become the harness's; group and other lose every permission (folders 0700, files 0600 or 0700).
    share_workspace_with_group opens it to the sandbox's group again before the next execution.
    """
    uid, gid = os.geteuid(), os.getegid()
    try:
        for dirpath, dirnames, filenames in os.walk(workspace):
            if Path(dirpath) == workspace and ".git" in dirnames:
                dirnames.remove(".git")  # read-only inside: the host's own files, never the command's
            for name in [*dirnames, *filenames]:
                _take_back(Path(dirpath) / name, uid, gid)
        _take_back(workspace, uid, gid)
    except OSError as exc:
        raise SandboxError(f"could not take the workspace back from the sandbox's uid: {exc}") from exc


def _take_back(path: Path, uid: int, gid: int) -> None:
    info = path.lstat()
    if (info.st_uid, info.st_gid) != (uid, gid):
        os.chown(path, uid, gid, follow_symlinks=False)  # a link is changed itself, never followed
    if not stat.S_ISLNK(info.st_mode) and stat.S_IMODE(info.st_mode) & ~stat.S_IRWXU:
        os.chmod(path, stat.S_IMODE(info.st_mode) & stat.S_IRWXU)  # also drops setuid, setgid and sticky


def require_readable_by(source: Path, uid: int, gid: int) -> None:
    """Refuse a read-only input the sandbox's uid could not read (or, for a folder, enter).

    Without this check the command would fail with a permission error and the
    harness's mistake would be counted as the model's. Permissions are not
    widened here on purpose: a mount is whatever the caller chose, and
    loosening it silently could expose a file that was private for a reason.
    """
    info = source.stat()
    if uid == 0:
        return
    if info.st_uid == uid:
        shift = 6
    elif info.st_gid == gid:
        shift = 3
    else:
        shift = 0
    wanted = 0o5 if stat.S_ISDIR(info.st_mode) else 0o4
    if (info.st_mode >> shift) & wanted != wanted:
        raise SandboxError(
            f"{source} is not readable by the sandbox's uid {uid} (mode {stat.filemode(info.st_mode)}); "
            "make it readable for others (chmod o+r, or o+rx for a folder)"
        )

