"""A host-side wheelhouse: wheels fetched with `pip download` for the sandbox's platform.

Containers reach no package index, so every Python package a sandbox needs
(the image's data-science stack, a submission's declared requirements) is
downloaded on the host, for the sandbox's interpreter (CPython 3.11 on
manylinux x86_64), into one cached folder, then installed inside with
`pip install --no-index --find-links`.

A download of a given requirement set is remembered in a stamp file, so a
second request for the same set costs no network and no pip run.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import durable
from sandbox.errors import SandboxError

STAMP_FOLDER = ".stamps"
LOG_TAIL_CHARS = 4000
POLL_S = 0.2  # how often a running download's clock and size are checked
GROUP_EXIT_WAIT_S = 5.0  # how long a killed download's processes are given to disappear
# Why a download was stopped before pip finished (DownloadResult.stopped).
STOPPED_TIMEOUT = "timeout"
STOPPED_TOO_LARGE = "too_large"


def _manylinux_tags(newest_glibc_minor: int, oldest_glibc_minor: int = 17) -> tuple[str, ...]:
    """Every manylinux tag a glibc 2.<newest> system accepts, newest first (plus the legacy aliases)."""
    tags = [f"manylinux_2_{minor}_x86_64" for minor in range(newest_glibc_minor, oldest_glibc_minor - 1, -1)]
    tags += ["manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64"]
    return tuple(tags)


@dataclass(frozen=True)
class TargetPlatform:
    """The interpreter and platform the wheels are for: the sandbox's, not the host's."""

    python_version: str = "3.11"
    implementation: str = "cp"
    abi: str = "cp311"
    # Debian bookworm (both image bases) has glibc 2.36.
    platforms: tuple[str, ...] = field(default_factory=lambda: _manylinux_tags(36))

    def pip_arguments(self) -> list[str]:
        arguments = [
            "--python-version", self.python_version,
            "--implementation", self.implementation,
            "--abi", self.abi,
            "--only-binary=:all:",  # pip requires it when the platform is not the host's
        ]
        for platform in self.platforms:
            arguments += ["--platform", platform]
        return arguments


@dataclass(frozen=True)
class DownloadResult:
    """What one `pip download` of a requirement set gave."""

    requirements: tuple[str, ...]
    ok: bool
    files: tuple[str, ...]  # wheel file names now in the wheelhouse for this set (empty when not ok)
    cached: bool  # True when a stamp answered and pip did not run
    log_tail: str = ""  # the end of pip's output, for a failure's reason
    stopped: str = ""  # STOPPED_TIMEOUT or STOPPED_TOO_LARGE when bakeoff stopped pip; "" otherwise


def default_wheelhouse(environ: dict[str, str] | None = None) -> Path:
    """Where the wheelhouse lives unless told otherwise: $BAKEOFF_CACHE/wheelhouse or the XDG cache."""
    environ = dict(os.environ if environ is None else environ)
    if environ.get("BAKEOFF_CACHE"):
        return Path(environ["BAKEOFF_CACHE"]) / "wheelhouse"
    cache_home = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache_home) / "bakeoff" / "wheelhouse"


def requirement_set_key(requirements: Sequence[str], target: TargetPlatform) -> str:
    """A stable name for 'these requirements for this platform' (order and blank lines do not matter)."""
    payload = durable.dumps(
        {"requirements": sorted({r.strip() for r in requirements if r.strip()}), "target": target.pip_arguments()},
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _stamp_path(wheelhouse: Path, key: str) -> Path:
    return wheelhouse / STAMP_FOLDER / f"{key}.json"


def _read_stamp(wheelhouse: Path, key: str) -> tuple[str, ...] | None:
    """The files a previous download of this set produced, if they are all still there."""
    try:
        files = tuple(json.loads(_stamp_path(wheelhouse, key).read_text())["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if all((wheelhouse / name).is_file() for name in files):
        return files
    return None


@dataclass(frozen=True)
class _PipRun:
    returncode: int | None  # None when pip was stopped
    log: str
    stopped: str = ""


def _pip_download_argv(
    requirements: Sequence[str], into: Path, wheelhouse: Path, target: TargetPlatform, with_deps: bool, python: str
) -> list[str]:
    argv = [python, "-m", "pip", "download", "--disable-pip-version-check", "--no-input", "--progress-bar", "off"]
    argv += target.pip_arguments()
    # Wheels already in the wheelhouse are taken from it instead of the network.
    argv += ["--find-links", str(wheelhouse), "--dest", str(into)]
    if not with_deps:
        argv.append("--no-deps")
    return argv + list(requirements)


def _run_pip_download(argv: list[str], into: Path, timeout_s: float | None, max_bytes: int | None) -> _PipRun:
    """Run pip, stopping it (and everything it started) past `timeout_s` or once `into` holds over `max_bytes`."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    env = dict(os.environ)
    if max_bytes is not None:
        # Every byte pip fetches then passes through `into`, where it is counted: its temporary
        # files (a wheel is downloaded there first) and no second copy in its own cache.
        (into / ".pip-tmp").mkdir(exist_ok=True)
        env.update(TMPDIR=str(into / ".pip-tmp"), PIP_NO_CACHE_DIR="1")
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as log:
        try:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        except OSError as exc:
            return _PipRun(returncode=-1, log=f"could not start pip: {exc}")
        stopped = ""
        while stopped == "":
            try:
                proc.wait(timeout=POLL_S)
                break
            except subprocess.TimeoutExpired:
                pass
            if deadline is not None and time.monotonic() >= deadline:
                stopped = STOPPED_TIMEOUT
            elif max_bytes is not None and _folder_bytes(into) > max_bytes:
                stopped = STOPPED_TOO_LARGE
        if stopped:
            _kill_session(proc)
        elif max_bytes is not None and _folder_bytes(into) > max_bytes:
            stopped = STOPPED_TOO_LARGE  # finished between two looks, but too large all the same
        log.seek(0)
        text = log.read()[-LOG_TAIL_CHARS:]
    return _PipRun(returncode=None if stopped else proc.returncode, log=text, stopped=stopped)


def _kill_session(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # pip's own children (a build backend, a subprocess) too
    except ProcessLookupError:
        pass
    proc.wait()
    _wait_for_group_gone(proc.pid)


def _wait_for_group_gone(group: int) -> None:
    """Return once no process of `group` is left (a killed child takes a moment to die), or after a bound.

    The bound is there because an orphan's zombie is reaped by whatever runs as PID 1,
    and a container's PID 1 may never reap it.
    """
    give_up = time.monotonic() + GROUP_EXIT_WAIT_S
    while time.monotonic() < give_up:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(POLL_S / 10)


def _folder_bytes(folder: Path) -> int:
    total = 0
    for dirpath, _, filenames in os.walk(folder):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                continue  # pip renamed or removed it while we looked
    return total


def download_wheels(
    requirements: Sequence[str],
    wheelhouse: Path,
    *,
    target: TargetPlatform = TargetPlatform(),
    with_deps: bool = True,
    python: str | None = None,
    timeout_s: float | None = None,
    max_bytes: int | None = None,
) -> DownloadResult:
    """Fetch wheels for `requirements` (pip requirement specifiers) and their dependencies into `wheelhouse`.

    Files land in the wheelhouse one by one with an atomic rename, so a
    wheelhouse never holds a half-written wheel. A failed download is data
    (`ok=False` with pip's reason), not an exception: a requirement that cannot
    be had is an outcome for the caller to record. `timeout_s` and `max_bytes`
    bound the download (pip and all it started are killed; `stopped` says why):
    a submission's requirements must not stall or fill the host.
    """
    requirements = tuple(r.strip() for r in requirements if r.strip())
    key = requirement_set_key(requirements, target)
    wheelhouse.mkdir(parents=True, exist_ok=True)
    cached_files = _read_stamp(wheelhouse, key)
    if cached_files is not None:
        return DownloadResult(requirements, ok=True, files=cached_files, cached=True)
    if not requirements:
        return DownloadResult(requirements, ok=True, files=(), cached=False)

    with tempfile.TemporaryDirectory(dir=wheelhouse, prefix=".incoming-") as incoming:
        argv = _pip_download_argv(requirements, Path(incoming), wheelhouse, target, with_deps, python or sys.executable)
        completed = _run_pip_download(argv, Path(incoming), timeout_s, max_bytes)
        log_tail = completed.log
        if completed.returncode != 0:
            return DownloadResult(
                requirements, ok=False, files=(), cached=False, log_tail=log_tail, stopped=completed.stopped
            )
        files = tuple(sorted(p.name for p in Path(incoming).iterdir() if p.suffix == ".whl"))
        for name in files:
            durable.move_file(Path(incoming) / name, wheelhouse / name)
    stamp = durable.dumps({"requirements": list(requirements), "files": list(files)})
    durable.write_text(_stamp_path(wheelhouse, key), stamp, mode=0o644)  # sandboxes read the wheelhouse as another uid
    return DownloadResult(requirements, ok=True, files=files, cached=False, log_tail=log_tail)


def require_wheels(requirements: Sequence[str], wheelhouse: Path, **options: object) -> DownloadResult:
    """`download_wheels`, but a failure raises: for the image's own stack, which must be complete."""
    result = download_wheels(requirements, wheelhouse, **options)  # type: ignore[arg-type]
    if not result.ok:
        raise SandboxError(
            f"could not download wheels for {', '.join(requirements)} into {wheelhouse}:\n{result.log_tail}"
        )
    return result
