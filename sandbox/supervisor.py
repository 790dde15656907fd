"""The program that runs inside every sandbox container (standard library only).

It is bind-mounted read-only into the container and started with the
container's own Python (`python -I -S`), so it never depends on anything a
submission installs. Two roles:

* `init`: the container's PID 1. It only reaps orphans, so that processes a
  command leaves behind can be killed and do not linger as zombies.
* `run UID GID TIMEOUT -- ARGV...`: one execution. Runs ARGV as the
  unprivileged UID in /workspace, waits at most TIMEOUT seconds, then kills
  every process that UID still has (the command's children, grandchildren,
  daemons that escaped its session), empties the scratch folders, and reports
  what happened in one status line at the very end of stderr.

The status line carries a secret nonce the host passed in the supervisor's own
environment (which the unprivileged UID cannot read), so a command cannot forge
it. Out-of-memory is read from the container cgroup's own OOM-kill counter,
before and after, never guessed from an exit status.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

NONCE_VARIABLE = "BAKEOFF_STATUS_NONCE"
STATUS_PREFIX = b"\n\x1ebakeoff-status "
SCRATCH_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")
OOM_COUNTER_FILES = (
    ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"),  # cgroup v1
    ("/sys/fs/cgroup/memory.events", "oom_kill"),  # cgroup v2
)
SWEEP_ROUNDS = 200


def oom_kill_count() -> int | None:
    """How many processes the kernel has OOM-killed in this container's memory cgroup so far."""
    for path, key in OOM_COUNTER_FILES:
        try:
            with open(path) as handle:
                for line in handle:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def live_pids_of(uid: int) -> list[int]:
    """Processes (not zombies) whose real, effective or saved uid is `uid`."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                status = handle.read()
        except OSError:
            continue  # it exited while we looked
        state = uids = ""
        for line in status.splitlines():
            if line.startswith("State:"):
                state = line.split()[1]
            elif line.startswith("Uid:"):
                uids = line
        if state != "Z" and str(uid) in uids.split()[1:4]:
            pids.append(int(entry))
    return pids


def signal_everything_of(uid: int, gid: int, signum: int) -> None:
    """kill(-1) from a child that became `uid`: reaches every process of that uid, and nothing else."""
    child = os.fork()
    if child == 0:
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            os.kill(-1, signum)
        except OSError:
            pass
        os._exit(0)
    os.waitpid(child, 0)


def sweep(uid: int, gid: int) -> int:
    """Kill every process of `uid` (stopping them first so a fork bomb cannot outrun us); return how many were left."""
    left = live_pids_of(uid)
    for _ in range(SWEEP_ROUNDS):
        if not left:
            return 0
        signal_everything_of(uid, gid, signal.SIGSTOP)
        signal_everything_of(uid, gid, signal.SIGKILL)
        time.sleep(0.002)
        left = live_pids_of(uid)
    return len(left)


def empty_scratch_folders() -> None:
    """Nothing written to /tmp and friends survives into the next execution."""
    for folder in SCRATCH_FOLDERS:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for name in entries:
            path = os.path.join(folder, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    pass


def wait_with_deadline(proc: subprocess.Popen, timeout_s: float) -> bool:
    """Wait for `proc` to exit; return True if the deadline came first. Blocks, no polling, where pidfd exists."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        try:
            proc.wait(timeout=timeout_s)
            return False
        except subprocess.TimeoutExpired:
            return True
    try:
        ready, _, _ = select.select([pidfd], [], [], timeout_s)
    finally:
        os.close(pidfd)
    if not ready:
        return True
    proc.wait()
    return False


def report(nonce: str, status: dict) -> None:
    line = STATUS_PREFIX + nonce.encode() + b" " + json.dumps(status).encode() + b"\n"
    os.write(2, line)


def run(uid: int, gid: int, timeout_s: float, argv: list[str]) -> int:
    nonce = os.environ.pop(NONCE_VARIABLE, "")
    status: dict = {"exit_code": None, "signal": None, "timed_out": False, "spawn_error": None}
    oom_before = oom_kill_count()
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv, user=uid, group=gid, extra_groups=[], cwd="/workspace", env=dict(os.environ),
            stdin=subprocess.DEVNULL, start_new_session=True,
        )
    except OSError as exc:
        # Reported the way a shell would: 127 for a missing program, 126 for one that cannot run.
        os.write(2, f"{argv[0]}: {exc.strerror}\n".encode())
        status["spawn_error"] = type(exc).__name__
        status["exit_code"] = 127 if isinstance(exc, FileNotFoundError) else 126
        proc = None
    if proc is not None:
        status["timed_out"] = wait_with_deadline(proc, timeout_s)
    status["leftovers"] = sweep(uid, gid)
    if proc is not None:
        returncode = proc.wait()
        if returncode >= 0 and not status["timed_out"]:
            status["exit_code"] = returncode
        elif returncode < 0:
            status["signal"] = -returncode
    status["command_s"] = round(time.monotonic() - started, 6)
    oom_after = oom_kill_count()
    status["oom_kills"] = None if oom_before is None or oom_after is None else oom_after - oom_before
    empty_scratch_folders()
    report(nonce, status)
    return 0


def reap_forever() -> None:
    """PID 1: reap every child that is reparented to us; leave on SIGTERM."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    while True:
        signal.sigtimedwait({signal.SIGCHLD}, 1.0)  # the timeout covers a lost signal
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break


def main(arguments: list[str]) -> int:
    if arguments[:1] == ["init"]:
        reap_forever()
        return 0
    if len(arguments) >= 6 and arguments[0] == "run" and arguments[4] == "--":
        return run(int(arguments[1]), int(arguments[2]), float(arguments[3]), arguments[5:])
    os.write(2, b"usage: supervisor.py init | run UID GID TIMEOUT -- ARGV...\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
