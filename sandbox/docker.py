"""The Docker sandbox: model-written commands in a locked-down container.

Design (see docs/sandbox.md):
- One container per sandbox by default (`reuse=True`): opened here, each
  `exec` is a `docker exec`, removed in `close`. `reuse=False` starts a fresh
  container for every execution instead (slower; same guarantees).
- Every execution goes through `sandbox/supervisor.py`, run as root inside the
  container: it runs the command as an unprivileged uid, enforces the
  timeout, then kills every process that uid still has and empties /tmp,
  /var/tmp and /dev/shm, so nothing survives into the next execution. It
  reports exit status, timeout and OOM kills (from the cgroup's own counter)
  in a status line the command cannot forge.
- The container: no network (loopback only), memory capped with no swap,
  pids and CPUs capped, read-only root filesystem, no new privileges, a few
  capabilities dropped, no core dumps. Captured output is streamed and
  capped per stream; the rest is counted, never held.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import durable
from sandbox import docker_mounts, paths
from sandbox.base import ExecResult, Mount, Sandbox, SandboxSpec
from sandbox.docker_capture import CappedStream, split_status
from sandbox.docker_engine import (  # noqa: F401 - connect and the labels are part of this module's interface
    CONTAINER_LABEL,
    OWNER_PID_LABEL,
    connect,
    docker_errors,
    owner_labels,
    remove_orphaned_containers,
    require_image,
)
from sandbox.docker_engine import IMAGE_TAG as DEFAULT_IMAGE
from sandbox.docker_kill import kill_container_processes
from sandbox.errors import SandboxError
from sandbox.kinds import DOCKER

SANDBOX_UID = 10001  # the image's `sandbox` user; used when bakeoff runs as root
SUPERVISOR_SOURCE = Path(__file__).with_name("supervisor.py")
NONCE_VARIABLE = "BAKEOFF_STATUS_NONCE"
BACKSTOP_GRACE_S = 20.0  # the supervisor enforces the timeout; the host steps in only if it cannot
DROPPED_CAPABILITIES = ["NET_RAW", "MKNOD", "AUDIT_WRITE", "SYS_CHROOT", "NET_BIND_SERVICE", "SETFCAP", "SETPCAP"]


def _with_wheelhouse(spec: SandboxSpec, wheelhouse: Path | None) -> SandboxSpec:
    """Accept the wheelhouse as an option too (as bwrap does): a read-only mount at /wheels."""
    if wheelhouse is None or any(m.sandbox_path.rstrip("/") == paths.WHEELS for m in spec.mounts):
        return spec
    return dataclasses.replace(spec, mounts=(*spec.mounts, Mount(Path(wheelhouse), paths.WHEELS, read_only=True)))


def default_identity() -> tuple[int, int]:
    """The uid:gid commands run as: the caller's own, or an unprivileged one when the caller is root."""
    if os.geteuid() == 0:
        return SANDBOX_UID, SANDBOX_UID
    return os.geteuid(), os.getegid()


@dataclasses.dataclass
class _Capture:
    """What came back from one execution's output streams (mutable while it is being read)."""

    stdout: CappedStream
    stderr: CappedStream
    backstop_fired: threading.Event = dataclasses.field(default_factory=threading.Event)
    leftovers: int = 0
    how_it_ended: str = ""
    stderr_text: str = ""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks, wanted = [], size
    while wanted:
        chunk = os.read(fd, wanted)
        if not chunk:
            return None  # the container went away
        chunks.append(chunk)
        wanted -= len(chunk)
    return b"".join(chunks)


def _frames(fd: int):
    """(stdout, stderr) pairs from an attached, multiplexed stream, until it ends.

    Each frame is an 8-byte header (stream 1 or 2, then a big-endian length)
    and its payload.
    """
    while True:
        header = _read_exactly(fd, 8)
        if header is None:
            return
        payload = _read_exactly(fd, int.from_bytes(header[4:8], "big"))
        if payload is None:
            return
        yield (payload, None) if header[0] == 1 else (None, payload)


def _backstop(container, fired: threading.Event) -> None:
    """Last resort when the supervisor itself overran its deadline: kill the whole container."""
    fired.set()
    try:
        container.kill()
    except Exception:  # already gone: nothing left to stop
        pass


class DockerSandbox(Sandbox):
    kind = DOCKER

    def __init__(
        self,
        spec: SandboxSpec,
        *,
        image: str = DEFAULT_IMAGE,
        reuse: bool = True,
        client=None,
        run_as: tuple[int, int] | None = None,
        wheelhouse: Path | None = None,
        labels: Mapping[str, str] | None = None,  # more container labels (the Ray executor names batch and run)
    ) -> None:
        super().__init__(spec)
        spec = self.spec = _with_wheelhouse(spec, wheelhouse)
        self.image = image
        self.reuse = reuse
        self.labels = dict(labels or {})
        self._uid, self._gid = run_as or default_identity()
        self._mounts = docker_mounts.resolve_mounts(spec)
        self._container = None
        self._channel: Any = None  # the attached stdin/stdout/stderr of the serving container (docker-py's socket)
        self._owns_client = client is None
        self._client = connect(client)
        self._placeholders: list[Path] = []
        self._deps_dir: Path | None = None
        self._supervisor = SUPERVISOR_SOURCE
        self._running_id: str | None = None  # the container running the current execution, for the disk watch
        try:
            require_image(self._client, image)
            remove_orphaned_containers(self._client)
            self._placeholders = docker_mounts.missing_placeholders(spec.workspace.resolve(), self._mounts)
            # /deps is writable by the command: on the capped filesystem when there is one, so it is capped too
            # (and the container's mount table then shows no host path of it, nor of the supervisor).
            capped = spec.disk_cap.mount_point if spec.disk_cap is not None else None
            self._deps_dir = Path(tempfile.mkdtemp(prefix="bakeoff-deps-", dir=capped))
            if capped is not None:
                self._supervisor = self._deps_dir.with_name(self._deps_dir.name + "-supervisor.py")
                shutil.copyfile(SUPERVISOR_SOURCE, self._supervisor)
            self._grant_access()
            if reuse:
                self._container = self._start_container()
        except BaseException:
            self.close()  # release what was made so far; the caller never gets a half-open sandbox
            raise

    # -- host-side preparation -------------------------------------------------------------

    @property
    def _deps(self) -> Path:
        """/deps on the host: made in __init__ before anything that shares or mounts it."""
        if self._deps_dir is None:
            raise SandboxError("the sandbox's /deps folder was never made")
        return self._deps_dir

    def _grant_access(self) -> None:
        """Let the unprivileged uid write the workspace and /deps; make sure it can read the read-only inputs."""
        for mount in self._mounts:
            if mount.read_only and mount.target != f"{paths.WORKSPACE}/.git":
                docker_mounts.require_readable_by(mount.source, self._uid, self._gid)
        os.chown(self._deps, self._uid, self._gid)
        if os.geteuid() == 0:
            docker_mounts.share_workspace_with_group(self.spec.workspace.resolve(), self._gid)

    def _docker_mounts(self) -> list:
        from docker.types import Mount as DockerMount

        binds = [(m.source, m.target, m.read_only) for m in self._mounts]
        binds += [(self._supervisor, paths.SUPERVISOR, True), (self._deps, paths.DEPS, False)]
        return [DockerMount(target, str(source), type="bind", read_only=ro) for source, target, ro in binds]

    def _create_container(self, command: list[str], environment: Mapping[str, str], *, serving: bool = False):
        from docker.types import Ulimit

        limits = self.spec.limits
        scratch = f"rw,nosuid,nodev,size={limits.memory_bytes},mode=1777"
        return self._client.containers.create(
            self.image,
            command=command,
            user="0",
            working_dir=paths.WORKSPACE,
            environment={"USER": "sandbox", "LOGNAME": "sandbox", **limits.thread_env(), **self.spec.env, **environment},
            network_mode="none",
            mem_limit=limits.memory_bytes,
            memswap_limit=limits.memory_bytes,  # equal: no swap
            pids_limit=limits.pids,
            nano_cpus=int(min(limits.cpus, os.cpu_count() or 1) * 1e9),
            read_only=True,
            tmpfs={"/tmp": scratch, "/var/tmp": scratch},
            mounts=self._docker_mounts(),
            security_opt=["no-new-privileges"],
            cap_drop=DROPPED_CAPABILITIES,
            ulimits=[Ulimit(name="core", soft=0, hard=0)],
            labels={**self.labels, **owner_labels()},
            # A serving container reads its requests on stdin; when its one client goes away (closed, or the
            # bakeoff process died), stdin ends, the supervisor exits, and the engine removes the container.
            stdin_open=serving,  # docker-py then sets StdinOnce too (a create that is not detached)
            auto_remove=serving,
        )

    def _start_container(self):
        """The long-lived container of a reused sandbox: the supervisor serving requests as PID 1."""
        command = [paths.VENV_PYTHON, "-I", "-S", paths.SUPERVISOR, "serve",
                   str(self._uid), str(self._gid), str(self.spec.limits.output_bytes)]
        container = self._create_container(command, {}, serving=True)
        try:
            channel = container.attach_socket(params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            container.start()
        except Exception:
            container.remove(force=True)
            raise
        self._channel = channel
        return container

    # -- executions ---------------------------------------------------------------------------

    def _run(self, argv: tuple[str, ...], timeout: float, env: Mapping[str, str]) -> ExecResult:
        if os.geteuid() == 0:
            # Files the host wrote since the last execution become writable for the sandbox's group too.
            try:
                docker_mounts.share_workspace_with_group(self.spec.workspace.resolve(), self._gid)
            except OSError as exc:
                raise SandboxError(f"could not share the workspace with the sandbox's group: {exc}") from exc
        try:
            if self.reuse:
                return self._exec_in_reused(argv, timeout, env)
            return self._exec_in_fresh(argv, timeout, env)
        except docker_errors().APIError as exc:
            self._discard_container()
            raise SandboxError(f"the Docker engine failed to run {argv[0]!r}: {exc}") from exc
        finally:
            if os.geteuid() == 0:
                # The supervisor swept the command's processes: the workspace is the harness's alone until the next.
                docker_mounts.reclaim_workspace(self.spec.workspace.resolve())

    def _supervisor_command(self, argv: tuple[str, ...], timeout: float) -> list[str]:
        return [paths.VENV_PYTHON, "-I", "-S", paths.SUPERVISOR, "run", str(self._uid), str(self._gid),
                repr(timeout), str(self.spec.limits.output_bytes), "--", *argv]

    def _exec_in_reused(self, argv: tuple[str, ...], timeout: float, env: Mapping[str, str]) -> ExecResult:
        """One request to the supervisor serving in the sandbox's long-lived container (no `docker exec`)."""
        if self._container is None:
            self._container = self._start_container()
        container, nonce = self._container, secrets.token_hex(16)
        self._running_id = container.id
        request = {"argv": list(argv), "env": dict(env), "timeout_s": timeout, "nonce": nonce}
        started = time.monotonic()
        fd = self._channel.fileno()
        _write_all(fd, (durable.dumps(request) + "\n").encode())
        capture = self._capture(_frames(fd), container, timeout, until_marked=nonce)
        result = self._result(argv, nonce, capture, time.monotonic() - started, lambda: "the container ended")
        if result is None or capture.leftovers or capture.backstop_fired.is_set():
            self._discard_container()  # broken, killed, or processes resisted the sweep: never reuse it
        return self._raise_if_unreported(result, capture)

    def _exec_in_fresh(self, argv: tuple[str, ...], timeout: float, env: Mapping[str, str]) -> ExecResult:
        """A new container whose main process is the supervisor, removed right after (like `docker run --rm`)."""
        nonce = secrets.token_hex(16)
        started = time.monotonic()
        container = self._create_container(self._supervisor_command(argv, timeout), {**env, NONCE_VARIABLE: nonce})
        self._running_id = container.id
        try:
            frames = container.attach(stdout=True, stderr=True, stream=True, demux=True, logs=True)
            container.start()
            capture = self._capture(frames, container, timeout)
            result = self._result(argv, nonce, capture, time.monotonic() - started,
                                  lambda: f"exit {container.wait().get('StatusCode')}")
        finally:
            container.remove(force=True)
        return self._raise_if_unreported(result, capture)

    def _capture(self, frames, container, timeout: float, until_marked: str | None = None) -> _Capture:
        """Read (stdout, stderr) frames to their end, or until both streams carry the `until_marked` nonce's
        closing line (the two streams travel separately through the engine, so both are awaited).
        Kill the container if the supervisor overruns its deadline."""
        capture = _Capture(CappedStream(self.spec.limits.output_bytes), CappedStream(self.spec.limits.output_bytes))
        backstop = threading.Timer(timeout + BACKSTOP_GRACE_S, _backstop, args=(container, capture.backstop_fired))
        backstop.daemon = True
        backstop.start()
        try:
            for out_chunk, err_chunk in frames:
                if out_chunk:
                    capture.stdout.feed(out_chunk)
                if err_chunk:
                    capture.stderr.feed(err_chunk)
                if until_marked and capture.stdout.ends_with_marker(until_marked) \
                        and capture.stderr.ends_with_marker(until_marked):
                    break
        finally:
            backstop.cancel()
            close = getattr(frames, "close", None)
            if close is not None:
                close()  # docker-py leaves the connection open otherwise
        return capture

    def _result(self, argv, nonce: str, capture: _Capture, duration: float, how_it_ended) -> ExecResult | None:
        """The execution's result from the supervisor's status line; None when there is none."""
        _, out_text, out_dropped = split_status(capture.stdout, nonce)  # stdout's closing line carries nothing
        status_text, err_text, err_dropped = split_status(capture.stderr, nonce)
        capture.how_it_ended = "" if status_text is not None or capture.backstop_fired.is_set() else how_it_ended()
        capture.stderr_text = err_text
        if status_text is None:
            if not capture.backstop_fired.is_set():
                return None
            status: dict[str, Any] = {"exit_code": None, "timed_out": True, "oom_kills": 0}  # the host's backstop stopped it
        else:
            status = json.loads(status_text)
        capture.leftovers = int(status.get("leftovers", 0))
        return ExecResult(
            argv=argv,
            exit_code=status["exit_code"],
            stdout=out_text,
            stderr=err_text,
            timed_out=bool(status["timed_out"]),
            oom_killed=bool(status["oom_kills"]),
            duration_s=duration,
            # The supervisor caps output inside the container; the host cap only guards against a broken one.
            stdout_dropped_bytes=out_dropped + int(status.get("stdout_dropped", 0)),
            stderr_dropped_bytes=err_dropped + int(status.get("stderr_dropped", 0)),
            isolation=DOCKER,
            cpu_s=float(status["cpu_s"]) if isinstance(status.get("cpu_s"), int | float) else None,
        )

    @staticmethod
    def _raise_if_unreported(result: ExecResult | None, capture: _Capture) -> ExecResult:
        if result is None:
            raise SandboxError(
                f"the sandbox supervisor ended without a status ({capture.how_it_ended}); "
                f"stderr ends with: {capture.stderr_text[-500:]!r}"
            )
        return result

    def _writable_folders(self) -> list[Path]:
        return [self.spec.workspace] + ([self._deps_dir] if self._deps_dir is not None else [])

    def _stop_running(self) -> None:
        """Kill the command's processes (the sandbox uid's, in this container's cgroup), not the supervisor:
        it then reports the command killed by a signal, as for any other death."""
        if self._running_id is not None:
            kill_container_processes(self._running_id, self._uid)

    # -- lifecycle ----------------------------------------------------------------------------

    def _discard_container(self) -> None:
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.close()
        container, self._container = self._container, None
        if container is None:
            return
        import docker

        try:
            container.remove(force=True)
        except docker.errors.APIError:
            pass  # already gone, or the engine is: nothing more to release here

    def _release(self) -> None:
        self._discard_container()
        docker_mounts.remove_placeholders(self._placeholders)
        if self._deps_dir is not None:
            shutil.rmtree(self._deps_dir, ignore_errors=True)
        if self._supervisor != SUPERVISOR_SOURCE:
            self._supervisor.unlink(missing_ok=True)
        if self._owns_client:
            self._client.close()
