"""The program that runs inside every sandbox container (standard library only).

It is bind-mounted read-only into the container and started with the
container's own Python (`python -I -S`), so it never depends on anything a
submission installs. Two roles, both as the container's PID 1 (so it also
reaps orphans):

* `serve UID GID OUTPUT_CAP`: a reused container. It reads one JSON request
  per line on stdin (argv, env, timeout, nonce), written by the host through
  `docker attach`, and runs each in turn. No `docker exec` and no new
  interpreter per execution.
* `run UID GID TIMEOUT OUTPUT_CAP -- ARGV...`: a fresh container that runs one
  execution (the nonce comes in the environment) and exits.

An execution runs ARGV as the unprivileged UID in /workspace, passes on at
most OUTPUT_CAP bytes of each output stream (its head and its tail, counting
the rest), waits at
most TIMEOUT seconds, then kills every process that UID still has (children,
grandchildren, daemons that escaped the session, fork bombs), empties the
scratch folders, and ends stdout and stderr with a line marked by the nonce;
the stderr one carries the status.

The nonce is secret to the command (stdin and environment of a root
process), so the status cannot be forged. Out-of-memory is read from the
container cgroup's own OOM-kill counter, before and after, never guessed from
an exit status.
"""

# This file runs alone inside the container and imports nothing of ours, `durable` included: it writes
# no file a reader must trust today, and should it ever need a crash-safe write it keeps its own copy here
# (tests/test_architecture.py exempts this one file from the rule that such writes go through durable).
# No `from __future__` and no `signal` module here: this file is started on
# every execution, and those imports (enum, functools, collections) would cost
# more than everything else it does. `_signal` is the C module beneath `signal`.
import os
import select
import sys
import time
from _signal import SIGKILL, SIGSTOP

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


def signal_everything_of(uid: int, gid: int, signum: int) -> bool:
    """kill(-1) from a child that became `uid`: reaches every process of that uid, and nothing else.

    One system call covers processes forked while we look, which a pid list
    cannot. Returns False when no child could be forked (the pids cap is
    exhausted, as under a fork bomb).
    """
    try:
        child = os.fork()
    except OSError:
        return False
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
    return True


def signal_each(pids: list[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass  # already gone


def sweep(uid: int, gid: int) -> int:
    """Kill every process of `uid` (stopping them first so a fork bomb cannot outrun us); return how many were left."""
    left = live_pids_of(uid)
    for _ in range(SWEEP_ROUNDS):
        if not left:
            return 0
        signal_each(left, SIGSTOP)  # stopped processes fork no more, and free no pid for us either
        signal_each(left, SIGKILL)  # frees pids, so the kill(-1) below can fork
        signal_everything_of(uid, gid, SIGKILL)
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
                import shutil

                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    pass


def _prefer_as_oom_victim() -> None:
    """Make the command (and all it starts) the OOM killer's first choice, before the supervisor or init.

    Raising one's own score needs no privilege; descendants inherit it.
    """
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
    except OSError:
        pass


def spawn(uid: int, gid: int, argv: list[str], env: dict[str, str], out_fd: int, err_fd: int) -> int:
    """Fork and exec ARGV as uid:gid in its own session: stdin empty, stdout and stderr to the given pipes.

    A plain fork and exec (not subprocess) keeps the supervisor's start-up
    cost, paid on every execution, as small as it can be.
    """
    pid = os.fork()
    if pid:
        return pid
    try:
        os.setsid()
        _prefer_as_oom_victim()
        os.dup2(os.open("/dev/null", os.O_RDONLY), 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        os.chdir("/workspace")  # sandbox.paths.WORKSPACE: this file runs alone in the container, importing none of ours
        os.execvpe(argv[0], argv, env)
    except OSError as exc:
        # Reported the way a shell would: 127 for a missing program, 126 for one that cannot run.
        os.write(2, f"{argv[0]}: {exc.strerror}\n".encode())
        os._exit(127 if isinstance(exc, FileNotFoundError) else 126)
    os._exit(126)  # not reached: execvpe either replaces us or raises


class CappedRelay:
    """Copies one of the command's pipes to our own stream within `cap` bytes, counting the rest.

    The first three quarters of the cap pass as they come; the last quarter is
    kept for the end of the output (a traceback comes last) and passed by
    `finish`, as the bwrap driver's host-side cap does. Capping here, inside
    the container, means a command printing a gigabyte never pushes that
    gigabyte through the Docker engine.
    """

    def __init__(self, source: int, target: int, cap: int) -> None:
        self.source, self.target = source, target
        self.tail_budget = max(cap, 0) // 4
        self.room = max(cap, 0) - self.tail_budget
        self.tail = bytearray()
        self.dropped = 0  # until `finish`, also counts the tail still held back

    def pump(self) -> bool:
        """Move what is there; False at end of file."""
        data = os.read(self.source, 1 << 16)
        if not data:
            os.close(self.source)
            return False
        passed = data[: self.room]
        self.room -= len(passed)
        self._write(passed)
        held = data[len(passed):]
        self.dropped += len(held)
        if held and self.tail_budget:
            self.tail += held
            if len(self.tail) > 2 * self.tail_budget:  # trim in batches, not per read
                del self.tail[: len(self.tail) - self.tail_budget]
        return True

    def finish(self) -> None:
        """Pass the end of the output held back (once the command's writers are gone)."""
        kept = bytes(self.tail[-self.tail_budget:]) if self.tail_budget else b""
        self._write(kept)
        self.dropped -= len(kept)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.target, view):]


def _open_pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None  # an old kernel: fall back to polling


def reap_children(pid: int) -> int | None:
    """Reap every child that has exited (orphans are ours when we are PID 1); the wait status of `pid` if it was one."""
    found = None
    while True:
        try:
            child, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found
        if child == 0:
            return found
        if child == pid:
            found = wait_status


def relay_until_exit(pid: int, relays: dict[int, CappedRelay], timeout_s: float) -> int | None:
    """Relay output until `pid` exits (its wait status) or the deadline passes (None)."""
    deadline = time.monotonic() + timeout_s
    pidfd = _open_pidfd(pid)
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            watched = list(relays) + ([pidfd] if pidfd is not None else [])
            # Without a pidfd we poll; with one we still wake now and then to reap orphans (zombies hold pids).
            ready, _, _ = select.select(watched, [], [], min(remaining, 0.5 if pidfd is not None else 0.02))
            for fd in ready:
                if fd in relays and not relays[fd].pump():
                    del relays[fd]
            wait_status = reap_children(pid)
            if wait_status is not None:
                return wait_status
    finally:
        if pidfd is not None:
            os.close(pidfd)


def drain(relays: dict[int, CappedRelay], patience_s: float = 2.0) -> None:
    """After the sweep every writer is dead: read what is left in the pipes, to their end."""
    deadline = time.monotonic() + patience_s
    while relays and time.monotonic() < deadline:
        ready, _, _ = select.select(list(relays), [], [], max(deadline - time.monotonic(), 0))
        for fd in ready:
            if not relays[fd].pump():
                del relays[fd]
    for fd in relays:
        os.close(fd)


def _json_scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)  # int or float: valid JSON as Python writes them


def report(fd: int, nonce: str, status: dict) -> None:
    """A marked line, as flat JSON (written by hand: importing json costs every `run` a few ms)."""
    body = ", ".join(f'"{key}": {_json_scalar(value)}' for key, value in status.items())
    os.write(fd, STATUS_PREFIX + nonce.encode() + b" {" + body.encode() + b"}\n")


def execute(uid: int, gid: int, output_cap: int, request: dict) -> None:
    """One execution: run, relay, sweep, clean, then end both streams with a line marked by the nonce.

    stdout ends with an empty marked line and stderr with the status, so a host
    reading the two streams separately knows when each holds all of this
    execution's output.
    """
    status: dict = {"exit_code": None, "signal": None, "timed_out": False}
    oom_before = oom_kill_count()
    cpu_before = os.times()  # what the waited-for children (the command and what it started) used so far
    started = time.monotonic()
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    pid = spawn(uid, gid, request["argv"], request["env"], out_write, err_write)
    os.close(out_write)
    os.close(err_write)
    out_relay, err_relay = CappedRelay(out_read, 1, output_cap), CappedRelay(err_read, 2, output_cap)
    relays = {out_read: out_relay, err_read: err_relay}
    wait_status = relay_until_exit(pid, relays, request["timeout_s"])
    status["timed_out"] = wait_status is None
    status["leftovers"] = sweep(uid, gid)
    drain(relays)
    out_relay.finish()
    err_relay.finish()
    if wait_status is None:
        wait_status = os.waitpid(pid, 0)[1]
    reap_children(pid)
    if os.WIFSIGNALED(wait_status):
        status["signal"] = os.WTERMSIG(wait_status)
    elif not status["timed_out"]:
        status["exit_code"] = os.waitstatus_to_exitcode(wait_status)
    status["command_s"] = round(time.monotonic() - started, 6)
    cpu_after = os.times()
    status["cpu_s"] = round(cpu_after.children_user + cpu_after.children_system
                            - cpu_before.children_user - cpu_before.children_system, 6)
    status["stdout_dropped"], status["stderr_dropped"] = out_relay.dropped, err_relay.dropped
    oom_after = oom_kill_count()
    status["oom_kills"] = None if oom_before is None or oom_after is None else oom_after - oom_before
    empty_scratch_folders()
    report(1, request["nonce"], {})
    report(2, request["nonce"], status)


def run_once(uid: int, gid: int, timeout_s: float, output_cap: int, argv: list[str]) -> int:
    """`run`: one execution described on the command line (the main process of a fresh container)."""
    nonce = os.environ.pop(NONCE_VARIABLE, "")
    execute(uid, gid, output_cap, {"argv": argv, "env": dict(os.environ), "timeout_s": timeout_s, "nonce": nonce})
    return 0


def read_line(fd: int, pending: bytearray) -> bytes | None:
    """The next line from `fd` (without its newline); None at end of file."""
    while b"\n" not in pending:
        data = os.read(fd, 1 << 16)
        if not data:
            return None
        pending += data
    line, _, rest = bytes(pending).partition(b"\n")
    pending[:] = rest
    return line


def serve(uid: int, gid: int, output_cap: int) -> int:
    """`serve`: PID 1 of a reused container, running one execution per request line read from stdin.

    The host writes requests through `docker attach`; stdin is ours alone (the
    commands get /dev/null, and /proc/1/fd is root's), so the nonce in a
    request stays secret. End of stdin (the host closed, or died) ends the
    container.
    """
    import json  # once per container, not per execution

    base_env = dict(os.environ)
    pending = bytearray()
    while True:
        line = read_line(0, pending)
        if line is None:
            return 0
        request = json.loads(line)
        request["env"] = {**base_env, **request.get("env", {})}
        execute(uid, gid, output_cap, request)


def main(arguments: list[str]) -> int:
    if len(arguments) == 4 and arguments[0] == "serve":
        return serve(int(arguments[1]), int(arguments[2]), int(arguments[3]))
    if len(arguments) >= 7 and arguments[0] == "run" and arguments[5] == "--":
        uid, gid, timeout_s, output_cap = int(arguments[1]), int(arguments[2]), float(arguments[3]), int(arguments[4])
        return run_once(uid, gid, timeout_s, output_cap, arguments[6:])
    os.write(2, b"usage: supervisor.py serve UID GID OUTPUT_CAP | run UID GID TIMEOUT OUTPUT_CAP -- ARGV...\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
