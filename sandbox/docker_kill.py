"""Stopping a Docker sandbox's command from the host without stopping its supervisor.

The container shares the host's pid namespace view: its processes are host
processes of the sandbox uid, in a cgroup whose path names the container.
Killing exactly those (never the root supervisor) ends the command; the
supervisor then reports it killed by a signal, and the container stays usable.
"""

from __future__ import annotations

import os
import signal


def kill_container_processes(container_id: str, uid: int, rounds: int = 50) -> None:
    """SIGKILL every host process of `uid` inside the container's cgroup, until none is left (or `rounds`)."""
    for _ in range(rounds):
        pids = [pid for pid in _pids_of(uid) if container_id in _cgroup_of(pid)]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # gone already


def _pids_of(uid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status") as handle:
                    uids = next(line for line in handle if line.startswith("Uid:")).split()[1:4]
            except (OSError, StopIteration):
                continue
            if str(uid) in uids:
                found.append(int(entry))
    return found


def _cgroup_of(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cgroup") as handle:
            return handle.read()
    except OSError:
        return ""
