"""Finding the llama-server processes bakeoff started, through the process table."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import psutil
from deadline import Deadline

WATCHDOG_MODULE = "bakeoff.models.server_watchdog"


def servers_under(parent_pid: int) -> list[psutil.Process]:
    """The llama-server processes below `parent_pid` that a watchdog started, zombies left out (not the
    `llama-server --version` that the preflight runs)."""
    found = []
    try:
        children = psutil.Process(parent_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return found
    for child in children:
        try:
            watchdog = child.parent()
            if (child.name().startswith("llama-server") and child.status() != psutil.STATUS_ZOMBIE
                    and watchdog is not None and WATCHDOG_MODULE in watchdog.cmdline()):
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


NOBODY = 65534  # a second local user: what another person on the machine could do, without root
SQUATTER_SOURCE = Path(__file__).with_name("port_squatter.py")


class Squatter:
    """tests/port_squatter.py running as uid 65534 with the system python (outside this user's venv), its events
    read from its stdout as they come."""

    def __init__(self, watch_dir: Path, port: int | None = None) -> None:
        command = ["setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups",
                   "/usr/bin/python3", "-I", "-c", SQUATTER_SOURCE.read_text(), str(watch_dir)]
        self.process = subprocess.Popen([*command, *([str(port)] if port is not None else [])], cwd="/",
                                        stdout=subprocess.PIPE, text=True)
        self.events: list[dict] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.endswith("\n"):  # a line cut short by the kill at the end is not an event
                self.events.append(json.loads(line))

    def wait_for(self, name: str, patience_s: float = 60.0) -> dict:
        """The first event called `name`, once it came (a hang fails after `patience_s`, not a timing check)."""
        deadline = time.monotonic() + patience_s
        while time.monotonic() < deadline:
            found = [event for event in self.events if event["event"] == name]
            if found:
                return found[0]
            if self.process.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"the squatter never reported {name!r}: {self.events}")

    def named(self, name: str) -> list[dict]:
        return [event for event in self.events if event["event"] == name]

    def stop(self) -> list[dict]:
        self.process.kill()
        self.process.wait()
        self._reader.join(10)
        return self.events
