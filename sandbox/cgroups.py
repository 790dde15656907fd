"""Per-execution control groups: the caps that bind root.

bubblewrap sets no resource limits, and the rlimits it could inherit do not
bind root (RLIMIT_NPROC is ignored for uid 0, CI runs as root). A control
group binds every process in it whoever owns it, so each bwrap execution
gets its own group holding the memory, process and CPU caps. The group also
answers two questions the exit status cannot: did the kernel's OOM killer
act (its own counter, never exit 137), and which processes are still alive
(to kill everything the command started).

cgroup v1 (separate memory, pids and cpu hierarchies) and cgroup v2 (one
unified hierarchy with those controllers delegated) are both supported.
Groups are made under the cgroup this process already lives in.
"""

from __future__ import annotations

import abc
import errno
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from sandbox.base import Limits
from sandbox.errors import SandboxUnavailable

V1_CONTROLLERS = ("memory", "pids", "cpu")
CPU_PERIOD_US = 100_000
KILL_ROUNDS = 200  # each round SIGKILLs every member; a pids cap keeps the set finite


class CgroupUnavailable(SandboxUnavailable):
    """No usable cgroup hierarchy with the memory, pids and cpu controllers."""


@dataclass(frozen=True)
class Mountpoint:
    path: Path  # where the hierarchy is mounted
    root: Path  # the hierarchy path that mount shows at `path` (not "/" inside containers)


def _mountinfo(text: str) -> list[tuple[str, Path, Path, set[str]]]:
    """(fstype, mount path, hierarchy root, super options) for every cgroup mount."""
    found = []
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        found.append((tail[0], Path(fields[4]), Path(fields[3]), set(tail[2].split(","))))
    return found


def _own_groups(text: str) -> dict[str, str]:
    """Controller name (or "" for v2) -> this process's group path, from /proc/self/cgroup."""
    groups: dict[str, str] = {}
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            groups[name] = path
    return groups


def _join(mount: Mountpoint, group: str) -> Path:
    """The folder of `group` (a hierarchy path) under `mount`."""
    relative = Path(group).relative_to(mount.root) if Path(group).is_relative_to(mount.root) else Path(group.lstrip("/"))
    return mount.path / str(relative).lstrip("/") if str(relative) != "." else mount.path


class ExecGroup(abc.ABC):
    """One execution's group (one folder per hierarchy). Create, enter, read, kill, remove."""

    def __init__(self, dirs: tuple[Path, ...]) -> None:
        self.dirs = dirs

    @property
    def procs_files(self) -> tuple[str, ...]:
        """Files a child writes its own pid to (before exec) to join the group everywhere."""
        return tuple(str(d / "cgroup.procs") for d in self.dirs)

    @abc.abstractmethod
    def members(self) -> list[int]:
        """Pids of every process in the group."""

    @abc.abstractmethod
    def oom_kills(self) -> int:
        """How many processes the kernel's OOM killer killed in this group."""

    def cpu_seconds(self) -> float | None:
        """CPU seconds the group's processes used (None where the hierarchy has no CPU accounting)."""
        return None

    def kill_all(self) -> None:
        """SIGKILL every member until none is left (new forks are bounded by the pids cap)."""
        pause = 0.0005
        for _ in range(KILL_ROUNDS):
            pids = self.members()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(pause)  # killed processes leave the group a moment later
            pause = min(pause * 2, 0.02)

    def remove(self) -> None:
        """Kill what is left and delete the folders (a group can only go once empty)."""
        self.kill_all()
        for directory in self.dirs:
            for _ in range(200):
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY:
                        raise
                    time.sleep(0.01)  # dying processes leave the group a moment after SIGKILL


class V1Group(ExecGroup):
    def members(self) -> list[int]:
        return _read_pids(self.dirs[1] / "cgroup.procs")  # the pids hierarchy

    def oom_kills(self) -> int:
        return _oom_kill_count(self.dirs[0] / "memory.oom_control")


class V2Group(ExecGroup):
    def members(self) -> list[int]:
        return _read_pids(self.dirs[0] / "cgroup.procs")

    def oom_kills(self) -> int:
        return _oom_kill_count(self.dirs[0] / "memory.events")

    def cpu_seconds(self) -> float | None:
        for line in _read_text(self.dirs[0] / "cpu.stat").splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec" and value.strip().isdigit():
                return int(value) / 1e6
        return None


def _oom_kill_count(counters: Path) -> int:
    """The `oom_kill` line of a memory controller's "key value" counters file (0 when absent)."""
    for line in _read_text(counters).splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill":
            return int(value)
    return 0


class CgroupTree(abc.ABC):
    """Where this machine lets us make execution groups."""

    version: int

    @abc.abstractmethod
    def parent_dirs(self) -> tuple[Path, ...]:
        """The folders execution groups are made in (one per hierarchy)."""

    def sweep_stale(self) -> int:
        """Remove groups left by bakeoff processes that died mid-execution; return how many went.

        Their commands died with them (bwrap --die-with-parent), so the groups
        are empty; a group whose owner still runs is never touched.
        """
        removed = 0
        for parent in self.parent_dirs():
            for folder in parent.glob("bakeoff-*-*"):
                owner = folder.name.split("-")[1]
                if not owner.isdigit() or _process_exists(int(owner)):
                    continue
                try:
                    folder.rmdir()
                    removed += 1
                except OSError:
                    pass  # not empty after all: leave it
        return removed

    @abc.abstractmethod
    def create(self, limits: Limits, name: str | None = None) -> ExecGroup:
        """Make a fresh group with `limits` written; raise CgroupUnavailable if the kernel refuses."""


class V1Tree(CgroupTree):
    version = 1

    def __init__(self, parents: dict[str, Path]) -> None:
        self.parents = parents  # controller -> folder of our own group in that hierarchy

    def parent_dirs(self) -> tuple[Path, ...]:
        return tuple(self.parents.values())

    def create(self, limits: Limits, name: str | None = None) -> ExecGroup:
        name = name or _group_name()
        dirs = tuple(self.parents[c] / name for c in V1_CONTROLLERS)
        group = V1Group(dirs)
        try:
            for directory in dirs:
                directory.mkdir()
            memory, pids, cpu = dirs
            _write(memory / "memory.limit_in_bytes", limits.memory_bytes)
            if (memory / "memory.memsw.limit_in_bytes").exists():
                _write(memory / "memory.memsw.limit_in_bytes", limits.memory_bytes)  # no escape into swap
            _write(pids / "pids.max", limits.pids)
            _write(cpu / "cpu.cfs_period_us", CPU_PERIOD_US)
            _write(cpu / "cpu.cfs_quota_us", max(1000, int(limits.cpus * CPU_PERIOD_US)))
        except OSError as exc:
            group.remove()
            raise CgroupUnavailable(f"cannot set up a cgroup for the sandbox: {exc}") from exc
        return group


class V2Tree(CgroupTree):
    version = 2

    def __init__(self, parent: Path) -> None:
        self.parent = parent

    def parent_dirs(self) -> tuple[Path, ...]:
        return (self.parent,)

    def create(self, limits: Limits, name: str | None = None) -> ExecGroup:
        directory = self.parent / (name or _group_name())
        group = V2Group((directory,))
        try:
            directory.mkdir()
            _write(directory / "memory.max", limits.memory_bytes)
            if (directory / "memory.swap.max").exists():
                _write(directory / "memory.swap.max", 0)
            _write(directory / "pids.max", limits.pids)
            _write(directory / "cpu.max", f"{max(1000, int(limits.cpus * CPU_PERIOD_US))} {CPU_PERIOD_US}")
        except OSError as exc:
            group.remove()
            raise CgroupUnavailable(f"cannot set up a cgroup for the sandbox: {exc}") from exc
        return group


def find_tree(mountinfo: str | None = None, own_cgroup: str | None = None) -> CgroupTree:
    """The hierarchy to make execution groups in; CgroupUnavailable says why there is none."""
    mountinfo = mountinfo if mountinfo is not None else _read_text(Path("/proc/self/mountinfo"))
    own_cgroup = own_cgroup if own_cgroup is not None else _read_text(Path("/proc/self/cgroup"))
    mounts = _mountinfo(mountinfo)
    groups = _own_groups(own_cgroup)
    v1 = _v1_parents(mounts, groups)
    if v1 is not None:
        return V1Tree(v1)
    v2 = _v2_parent(mounts, groups)
    if v2 is not None:
        return V2Tree(v2)
    raise CgroupUnavailable(
        "no writable cgroup hierarchy with the memory, pids and cpu controllers "
        "(bwrap needs one to cap memory and processes; run as root, or delegate a cgroup v2 subtree)"
    )


def _v1_parents(mounts, groups: dict[str, str]) -> dict[str, Path] | None:
    parents: dict[str, Path] = {}
    for controller in V1_CONTROLLERS:
        mount = next((m for m in mounts if m[0] == "cgroup" and controller in m[3]), None)
        if mount is None or controller not in groups:
            return None
        folder = _join(Mountpoint(mount[1], mount[2]), groups[controller])
        if not os.access(folder, os.W_OK):
            return None
        parents[controller] = folder
    return parents


def _v2_parent(mounts, groups: dict[str, str]) -> Path | None:
    mount = next((m for m in mounts if m[0] == "cgroup2"), None)
    if mount is None or "" not in groups:
        return None
    folder = _join(Mountpoint(mount[1], mount[2]), groups[""])
    try:
        enabled = set(_read_text(folder / "cgroup.subtree_control").split())
    except OSError:
        return None
    if not {"memory", "pids", "cpu"} <= enabled or not os.access(folder, os.W_OK):
        return None
    return folder


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _group_name() -> str:
    return f"bakeoff-{os.getpid()}-{uuid.uuid4().hex[:12]}"


def _write(path: Path, value: object) -> None:
    with open(path, "w") as handle:
        handle.write(str(value))


def _read_text(path: Path) -> str:
    with open(path) as handle:
        return handle.read()


def _read_pids(path: Path) -> list[int]:
    try:
        return [int(line) for line in _read_text(path).split()]
    except FileNotFoundError:
        return []
