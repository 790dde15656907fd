"""Finding the llama-server processes bakeoff started, through the process table."""

from __future__ import annotations

import time

import psutil
from deadline import Deadline

WATCHDOG_MODULE = "bakeoff.models.server_watchdog"


def servers_under(parent_pid: int) -> list[psutil.Process]:
    """The llama-server processes below `parent_pid` (each is its watchdog's child), zombies left out."""
    found = []
    try:
        children = psutil.Process(parent_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return found
    for child in children:
        try:
            if child.name().startswith("llama-server") and child.status() != psutil.STATUS_ZOMBIE:
                found.append(child)
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
    return found


def wait_for_server(parent_pid: int, process=None, poll_s: float = 0.1) -> list[psutil.Process]:
    """The servers below `parent_pid` with their watchdogs, once one has started (or [] if `process` ended first)."""
    deadline = Deadline()
    while (process is None or process.poll() is None) and deadline.pending("a server under the batch"):
        servers = servers_under(parent_pid)
        if servers:
            return [*servers, *(server.parent() for server in servers)]
        time.sleep(poll_s)
    return []


def alive(pid: int) -> bool:
    """Is a process with this id running (a zombie is not)?"""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def gone(pids: list[int], patience_s: float = 60.0) -> bool:
    """True once none of `pids` runs; False if one still does after `patience_s` (a hang, not a timing check)."""
    deadline = time.monotonic() + patience_s
    while time.monotonic() < deadline:
        if not any(alive(pid) for pid in pids):
            return True
        time.sleep(0.1)
    return False
