"""llama.cpp's own llama-server as a process bakeoff owns: the build, the command, start, readiness, stop.

The server binary is the one scripts/setup.sh built from the same llama.cpp tree and flags as the
Python binding (its path is in the venv's build stamp; BAKEOFF_LLAMA_SERVER names another). It is
started through bakeoff.models.server_watchdog, on 127.0.0.1 and a free port, and is ready when its
/health answers 200. Whatever ends bakeoff (a normal end, SIGINT, SIGTERM, SIGKILL) ends the server:
the watchdog holds a pipe whose other end only bakeoff has.

Other local users are kept out of it. Each start gets a random API key that every request but /health
must carry (a request without it is refused with 401). The key and the port reach the server in its
environment, which only its own user may read, never on its command line, which every local user may;
its log lies in a private (0700) folder. And before the first request, bakeoff checks that what answered
/health is the server it started (the listener on the port is that process's, through psutil): a local
user who bound the port first is refused by name (ServerPortTaken) and the server starts on another port.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

from bakeoff.models.engine import describe_exit
from bakeoff.models.engine_build import BuildStamp, read_build_stamp
from bakeoff.models.errors import BackendUnavailable, ServerPortTaken

SERVER_ENV = "BAKEOFF_LLAMA_SERVER"
HOST = "127.0.0.1"
READY_POLL_S = 0.05
STOP_WAIT_S = 10.0
PORT_TRIES = 3  # a free port can be taken between our look and the server's bind
NOTICE_S = 2.0  # the watchdog notices its server's death within its poll interval (0.25 s)
LOG_TAIL = 1500
HEALTH_DEADLINE_S = 10.0  # a running server answers /health at once, even with every slot generating
PRIVATE_PREFIX = "bakeoff-llama-server-"  # a 0700 folder of tempfile's: nothing in its name says the port
PORT_ENV = "LLAMA_ARG_PORT"  # llama-server reads these when the command line leaves them out
API_KEY_ENV = "LLAMA_API_KEY"


@dataclass(frozen=True)
class ServerBuild:
    """Which llama-server runs: its path, its own version line, and the build stamp's flags."""

    path: Path
    version: str
    flags: str
    key: str

    def to_dict(self) -> dict[str, str]:
        return {"path": str(self.path), "version": self.version, "flags": self.flags, "key": self.key}


def find_server_build(stamp: BuildStamp | None = None) -> ServerBuild:
    """The llama-server to run, or BackendUnavailable saying how to get one."""
    stamp = stamp or read_build_stamp()
    named = os.environ.get(SERVER_ENV)
    path = Path(named) if named else (Path(stamp.server) if stamp.server else None)
    if path is None or not (path.is_file() and os.access(path, os.X_OK)):
        where = f"{SERVER_ENV}={named}" if named else f"the build stamp ({stamp.source})"
        raise BackendUnavailable(
            f"engine = \"server\" needs llama.cpp's llama-server, and {where} names none that runs: "
            "`bash scripts/setup.sh` builds it with the Python binding")
    try:
        done = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BackendUnavailable(f"{path} --version failed: {exc}") from None
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip().startswith("version")]
    if done.returncode != 0 or not lines:
        raise BackendUnavailable(f"{path} --version {describe_exit(done.returncode)}: {done.stderr[-300:]}")
    flags = stamp.flags if not named else f"unknown ({SERVER_ENV} names a server setup.sh did not build)"
    return ServerBuild(path, lines[0], flags, stamp.key if not named else "unknown")


@dataclass(frozen=True)
class ServerCommand:
    """What the server is started with (the port and the API key are chosen at each start, and given in its
    environment: see argv)."""

    model: Path
    parallel: int  # slots: generations decoded together (continuous batching)
    n_ctx: int  # per slot: the server gets parallel * n_ctx cells
    n_threads: int
    n_threads_batch: int
    n_gpu_layers: int
    seed: int

    def argv(self, build: ServerBuild) -> list[str]:
        """The command line, which every local user may read in /proc: no port and no key in it."""
        layers = 999 if self.n_gpu_layers < 0 else self.n_gpu_layers  # every layer
        return [
            str(build.path), "--model", str(self.model), "--host", HOST,
            "--parallel", str(self.parallel), "--ctx-size", str(self.n_ctx * self.parallel), "--cont-batching",
            "--threads", str(self.n_threads), "--threads-batch", str(self.n_threads_batch),
            "--n-gpu-layers", str(layers), "--seed", str(self.seed), "--jinja", "--no-webui",
            "--alias", self.model.stem,
            # Flash attention off: with it, llama.cpp's answer depends on how a prompt was split into batches (a
            # cached prefix, another run's tokens beside it), so records would depend on the concurrency. Off, the
            # same request gives the same tokens cold, cached and batched (tests/test_server_engine.py).
            "--flash-attn", "off",
        ]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class ServerProcess:
    """One running llama-server (behind its watchdog). `start()` returns it once /health says ready."""

    def __init__(self, watchdog: subprocess.Popen, port: int, folder: Path, api_key: str) -> None:
        self.watchdog, self.port, self.folder, self.api_key = watchdog, port, folder, api_key
        self.log = folder / "server.log"
        self._death: str | None = None

    @classmethod
    def start(cls, build: ServerBuild, command: ServerCommand, ready_timeout_s: float,
              choose_port: Callable[[], int] = free_port) -> ServerProcess:
        """A ready server on a port from `choose_port`; another port when the one chosen was taken first."""
        for attempt in range(PORT_TRIES):
            server = cls._spawn(build, command, choose_port())
            try:
                server._wait_ready(ready_timeout_s)
                return server
            except BackendUnavailable as exc:
                server.stop()
                if attempt == PORT_TRIES - 1 or not _port_lost(exc):
                    raise
        raise AssertionError("unreachable: the last try returns or raises")

    @classmethod
    def _spawn(cls, build: ServerBuild, command: ServerCommand, port: int) -> ServerProcess:
        folder = Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX))
        api_key = secrets.token_urlsafe(32)
        log = folder / "server.log"
        log.touch(mode=0o600)
        watchdog = subprocess.Popen(
            [sys.executable, "-m", "bakeoff.models.server_watchdog", str(log), *command.argv(build)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, PORT_ENV: str(port), API_KEY_ENV: api_key},
            start_new_session=True,  # a Ctrl-C at the terminal reaches bakeoff, which stops the server itself
        )
        return cls(watchdog, port, folder, api_key)

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def auth_headers(self) -> dict[str, str]:
        """What a request to this server carries (every route but /health refuses a request without it)."""
        return {"Authorization": f"Bearer {self.api_key}"}

    @property
    def alive(self) -> bool:
        return self.watchdog.poll() is None

    def ended_within(self, seconds: float) -> bool:
        """Has the server ended, given the watchdog `seconds` to notice (it looks every POLL_S)?"""
        try:
            self.watchdog.wait(seconds)
        except subprocess.TimeoutExpired:
            return False
        return True

    @property
    def server_pid(self) -> int | None:
        """The llama-server's process id (the watchdog's one child), None once it is gone."""
        try:
            children = Path(f"/proc/{self.watchdog.pid}/task/{self.watchdog.pid}/children").read_text().split()
        except OSError:
            return None
        return int(children[0]) if children else None

    def death(self) -> str:
        """How the server ended ("killed by signal SIGSEGV (exit status -11)"), with its log's last lines."""
        if self._death is None:
            code = self.watchdog.wait()
            status = -(code - 128) if code > 128 else code  # the watchdog exits 128 + signal for a signal
            self._death = f"{describe_exit(status)}; its log ends: {self.log_tail()!r}"
        return self._death

    def log_tail(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-LOG_TAIL:]
        except OSError:
            return ""

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=httpx.Timeout(5.0)) as client:
            while time.monotonic() < deadline:
                if not self.alive:
                    raise BackendUnavailable(f"llama-server {self.death()}")
                try:
                    if client.get(f"{self.base_url}/health").status_code == 200:
                        self._check_listener()
                        return
                except httpx.HTTPError:
                    pass  # not listening yet
                time.sleep(READY_POLL_S)
        raise BackendUnavailable(f"llama-server was not ready within {timeout_s:g} s; its log ends: {self.log_tail()!r}")

    def _check_listener(self) -> None:
        """What answered /health must be this server: the first request carries the key, and every answer after it
        is taken as the model's. The server does not share its port (no --reuse-port), so its own listener on the
        port means nobody else's is there."""
        pid = self.server_pid
        try:
            ours = pid is not None and any(
                conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == self.port
                for conn in psutil.Process(pid).net_connections(kind="tcp"))
        except psutil.Error:
            ours = False  # it ended meanwhile
        if not ours:
            raise ServerPortTaken(
                f"port {self.port} on {HOST} answered /health, but its listener is not the llama-server bakeoff "
                f"started (pid {pid}): another local process bound the port first; the server is started again "
                "on another port")

    def answers_health(self, deadline_s: float = HEALTH_DEADLINE_S) -> bool:
        """Does the server answer /health within `deadline_s`? A stopped (SIGSTOP) or wedged one does not."""
        try:
            with httpx.Client(timeout=httpx.Timeout(deadline_s)) as client:
                return client.get(f"{self.base_url}/health").status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        """End a server that no longer answers: SIGKILL ends a stopped process too (SIGTERM waits for SIGCONT)."""
        pid = self.server_pid
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass  # it ended meanwhile
        self.stop()

    def stop(self) -> None:
        """Close the watchdog's pipe (it stops the server) and wait; kill the watchdog if it lingers."""
        if self.watchdog.stdin is not None and not self.watchdog.stdin.closed:
            try:
                self.watchdog.stdin.close()
            except OSError:
                pass
        try:
            self.watchdog.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.watchdog.kill()  # its server dies with it (the death signal)
            self.watchdog.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _port_lost(exc: BackendUnavailable) -> bool:
    """Was the start lost to another process on the port (worth another port), not a failure of the server?"""
    text = str(exc).lower()
    return isinstance(exc, ServerPortTaken) or "bind" in text or "address already in use" in text
