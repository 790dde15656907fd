"""The llama.cpp engine as a child process: the messages, and the parent's handle on the child.

The child (bakeoff.models.engine_child.serve) is started with the standard
library's multiprocessing in the spawn context and talks over a multiprocessing
Pipe: the objects sent are the frozen dataclasses below, pickled by the Pipe.
A native crash in llama.cpp (a segfault, an abort in ggml, the OOM killer, a
CUDA fault) then ends the child only; the parent sees the pipe close, reads the
exit status, and reports `EngineDied`. Nothing here imports llama_cpp.
"""

from __future__ import annotations

import multiprocessing
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from bakeoff.models.engine_messages import EngineFacts, LoadConfig, LoadFailed, StopRequest
from bakeoff.models.exit_status import describe_exit

STOP_WAIT_S = 10.0  # how long a polite stop may take before the child is killed


# --- the parent's side -------------------------------------------------------

class EngineDied(Exception):
    """The child ended without answering; the message says how (signal or exit status)."""


class EngineOverran(Exception):
    """No answer within the time given: the caller decides whether to stop the child."""


@dataclass
class EngineProcess:
    """One running child. `start()` returns it once the model is loaded, or raises."""

    process: Any  # multiprocessing.Process
    conn: Any  # the parent's end of the Pipe
    facts: EngineFacts | None = field(default=None)

    @classmethod
    def start(cls, config: LoadConfig, entry: Callable | None = None, load_timeout_s: float | None = None) -> EngineProcess:
        """Spawn the child with `entry(conn, config)` (default: engine_child.serve) and wait for its report.

        Raises the child's BakeoffError when it could not load, EngineDied when it
        died first, EngineOverran when it did not report within `load_timeout_s`.
        """
        if entry is None:
            from bakeoff.models.engine_child import serve as entry
        context = multiprocessing.get_context("spawn")  # never fork: llama.cpp and CUDA hold threads and handles
        parent_conn, child_conn = context.Pipe()
        process = context.Process(target=entry, args=(child_conn, config), daemon=True,
                                  name=f"bakeoff-engine {Path(config.info.path).name}")
        process.start()
        child_conn.close()  # only the child holds its end: its death closes the pipe
        engine = cls(process, parent_conn)
        try:
            report = engine._receive(load_timeout_s)
        except BaseException:
            engine.kill()
            raise
        if isinstance(report, LoadFailed):
            engine.stop()
            raise report.error
        if not isinstance(report, EngineFacts):
            engine.kill()
            raise EngineDied(f"sent {type(report).__name__} instead of its load report")
        engine.facts = report
        return engine

    @property
    def loaded_facts(self) -> EngineFacts:
        """The child's load report, which start() has received before it hands the engine out."""
        if self.facts is None:
            raise EngineDied("has not reported its load yet")
        return self.facts

    @property
    def pid(self) -> int | None:
        return self.process.pid

    @property
    def alive(self) -> bool:
        # The sentinel becomes readable when the child exits, whoever reaps it. is_alive()
        # alone answers True for a dead child that something else in the process already
        # reaped (its waitpid then fails), and the next turn would be lost to a dead engine.
        # A killed child whose main thread is already a zombie while its other threads still
        # unwind is neither reapable nor closed yet: it is dead all the same.
        return self.process.is_alive() and not wait([self.process.sentinel], 0) and not _main_thread_exited(self.pid)

    def request(self, message: Any, wait_s: float | None) -> Any:
        """Send one request and return the child's reply (EngineDied, EngineOverran otherwise)."""
        try:
            self.conn.send(message)
        except OSError:  # a broken pipe: the child is gone
            raise EngineDied(self._death()) from None
        return self._receive(wait_s)

    def _receive(self, wait_s: float | None) -> Any:
        ready = wait([self.conn, self.process.sentinel], wait_s)
        if not ready:
            raise EngineOverran(f"no answer within {wait_s:g} s")
        if self.conn in ready:
            try:
                return self.conn.recv()
            except (EOFError, OSError, pickle.UnpicklingError):
                pass  # the child died while (or before) sending
        raise EngineDied(self._death())

    def _death(self) -> str:
        self.process.join(STOP_WAIT_S)
        if self.process.is_alive():  # it closed its pipe but lingers: make sure it is gone
            self.process.kill()
            self.process.join()
        return describe_exit(self.process.exitcode)

    def kill(self) -> None:
        """End the child now (SIGKILL): a generation past its deadline, or a child that misbehaves."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()

    def stop(self) -> None:
        """Ask the child to close the model and exit; kill it if it does not."""
        if self.process.is_alive():
            try:
                self.conn.send(StopRequest())
            except OSError:
                pass
            self.process.join(STOP_WAIT_S)
        self.kill()


def _main_thread_exited(pid: int | None) -> bool:
    """True when /proc shows the process's main thread as a zombie (Linux; False where /proc is not there)."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            fields = handle.read().rpartition(")")[2].split()
    except OSError:
        return False
    return bool(fields) and fields[0] in ("Z", "X")
