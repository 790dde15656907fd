"""Finding llama.cpp engine processes through the process tree, and killing them with real signals."""

from __future__ import annotations

import os
import signal
import threading
import time

import psutil


def engine_children(parent_pid: int) -> list[psutil.Process]:
    """The engine processes under `parent_pid`: multiprocessing spawn children (not its resource tracker)."""
    found = []
    for child in psutil.Process(parent_pid).children(recursive=True):
        try:
            if "spawn_main" in " ".join(child.cmdline()) and child.status() != psutil.STATUS_ZOMBIE:
                found.append(child)
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
    return found


def cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def segfault_when_busy(process: psutil.Process, busy_s: float = 0.3, poll_s: float = 0.02) -> bool:
    """Send SIGSEGV once the process has used `busy_s` CPU seconds more than when first seen (mid-generation).

    Returns False when the process ended first.
    """
    try:
        start = cpu_seconds(process)
        while cpu_seconds(process) - start < busy_s:
            time.sleep(poll_s)
        os.kill(process.pid, signal.SIGSEGV)
        return True
    except psutil.NoSuchProcess:
        return False


class EngineKiller:
    """A thread that sends SIGSEGV to every engine process under a parent as soon as it appears."""

    def __init__(self, parent_pid: int, poll_s: float = 0.02) -> None:
        self.parent_pid = parent_pid
        self.poll_s = poll_s
        self.killed: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> EngineKiller:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                children = engine_children(self.parent_pid)
            except psutil.NoSuchProcess:
                return
            for child in children:
                if child.pid not in self.killed:
                    try:
                        os.kill(child.pid, signal.SIGSEGV)
                        self.killed.append(child.pid)
                    except ProcessLookupError:
                        pass
            time.sleep(self.poll_s)


def segfault_at_first_token(conn, config) -> None:
    """An engine child that loads the model for real, then dies of SIGSEGV when asked for a token
    (what a native AMX build does on some CPUs). A real signal, sent by the process to itself."""
    from bakeoff.models.engine_child import Engine

    engine = Engine.open(config)
    conn.send(engine.facts)
    conn.recv()
    os.kill(os.getpid(), signal.SIGSEGV)


def segfault_at_start(conn, config) -> None:
    """An engine child that dies of SIGSEGV before it loads anything."""
    os.kill(os.getpid(), signal.SIGSEGV)
