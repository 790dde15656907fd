"""The watchdog between bakeoff and a llama-server it started: the server never outlives bakeoff.

    python -m bakeoff.models.server_watchdog LOG_FILE PROGRAM [ARGS...]

bakeoff starts this process with a pipe on its standard input and keeps the write end. The watchdog
starts PROGRAM (llama-server) as its own child, output to LOG_FILE, with PR_SET_PDEATHSIG so that the
server is killed when the watchdog dies; then it waits. When the pipe reaches end of file (bakeoff
closed it, ended, or was killed: the kernel closes a killed process's descriptors, SIGKILL included)
or the watchdog gets SIGTERM/SIGINT/SIGHUP, it stops the server (SIGTERM, then SIGKILL), removes LOG_FILE
and its folder if that is then empty (bakeoff's private folder, left behind when bakeoff was killed), and exits 0.
When the server ends first, the watchdog exits with the server's status (128 + signal for a signal) and leaves
the log for bakeoff to read.
The death signal is set here and not in bakeoff: Linux sends it when the *thread* that forked the
child ends, and bakeoff starts servers from pool threads; this process has one thread. Standard
library only: it must start fast and import nothing of bakeoff's.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import sys

PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 5.0
POLL_S = 0.25


def _die_with(parent: int):
    def preexec() -> None:  # in the forked child, before exec: this process is single-threaded
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the watchdog died between fork and prctl
            os._exit(1)
    return preexec


def _stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _remove(log_path: str) -> None:
    try:
        os.unlink(log_path)
        os.rmdir(os.path.dirname(os.path.abspath(log_path)))
    except OSError:
        pass  # gone already, or a folder that holds more than the log


def _status(code: int) -> int:
    return 128 - code if code < 0 else code


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python -m bakeoff.models.server_watchdog LOG_FILE PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    log_path, command = argv[0], argv[1:]
    stopping = []

    def on_signal(signum, _frame) -> None:
        stopping.append(signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, on_signal)
    with open(log_path, "wb", buffering=0) as log:  # made empty by bakeoff; the server writes it alone
        server = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                  preexec_fn=_die_with(os.getpid()))
    watched = sys.stdin.fileno()
    while not stopping:
        code = server.poll()
        if code is not None:
            return _status(code)
        try:
            readable, _, _ = select.select([watched], [], [], POLL_S)
        except InterruptedError:
            continue
        if readable and not os.read(watched, 4096):  # end of file: bakeoff is gone or done
            break
    _stop(server)
    _remove(log_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
