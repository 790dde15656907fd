"""The Python environment that the bwrap sandbox shows at /opt/venv.

Docker images carry their own interpreter; bubblewrap has none, so the host
builds one: a virtual environment with the data-science stack, cached under
~/.cache/bakeoff/ and bound read-only into every bwrap sandbox.

A venv points at the interpreter it was made from by absolute host paths
(its `bin/python` symlink and `pyvenv.cfg`). Binding that interpreter's
prefix at its host path would show the sandbox part of the host's tree
(for example /root/.pyenv), so after installing we *retarget* the venv:
its pointers name the prefix where the sandbox sees it (`BASE_MOUNT`).
A retargeted venv only runs inside the sandbox; host-side work (pip) is
finished before the retarget, and the folder is renamed into place only
when complete, so a half-built environment never looks usable.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import durable
from sandbox.errors import SandboxUnavailable
from sandbox.image import IMAGE_STACK
from sandbox.paths import PYTHON_BASE as BASE_MOUNT
from sandbox.paths import VENV as VENV_MOUNT

# The Docker image's pinned stack: a submission meets the same versions under either isolation.
SANDBOX_PACKAGES: tuple[str, ...] = IMAGE_STACK
METADATA_FILE = "bakeoff-hostenv.json"
# Prefixes the bwrap sandbox binds anyway: an interpreter living there needs no extra bind.
SYSTEM_PREFIXES = ("/usr",)


class HostEnvError(SandboxUnavailable):
    """The sandbox's Python environment could not be built or is broken."""


@dataclass(frozen=True)
class HostEnv:
    """A built environment and what the sandbox must bind for it to run."""

    venv_dir: Path  # host folder, bound read-only at VENV_MOUNT
    base_prefix: Path  # host prefix of the interpreter the venv was made from
    base_mount: str  # where base_prefix is seen inside the sandbox
    python_version: str  # "3.11"
    packages: tuple[str, ...]

    @property
    def needs_base_bind(self) -> bool:
        return self.base_mount != str(self.base_prefix)

    @property
    def library_path(self) -> str | None:
        """LD_LIBRARY_PATH for a moved interpreter whose libpython is found by an absolute RUNPATH."""
        return f"{self.base_mount}/lib" if self.needs_base_bind else None


def default_cache_dir() -> Path:
    """$BAKEOFF_CACHE, else $XDG_CACHE_HOME/bakeoff, else ~/.cache/bakeoff (as the wheelhouse's)."""
    if os.environ.get("BAKEOFF_CACHE"):
        return Path(os.environ["BAKEOFF_CACHE"])
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "bakeoff"


def current_base_python() -> Path:
    """The base interpreter behind the running Python (not a venv's symlink)."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    candidate = Path(sys.base_prefix) / "bin" / f"python{version}"
    return candidate if candidate.exists() else Path(getattr(sys, "_base_executable", sys.executable))


def env_key(base_python: Path, packages: Sequence[str]) -> str:
    """A folder name that changes when the interpreter or the package set changes."""
    text = durable.dumps([str(base_python.resolve()), sorted(packages)])
    return "sandbox-env-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def locate_host_env(cache_dir: Path, base_python: Path, packages: Sequence[str] = SANDBOX_PACKAGES) -> HostEnv | None:
    """The cached environment for this interpreter and package set, or None if it is not built."""
    venv_dir = cache_dir / env_key(base_python, packages)
    meta_path = venv_dir / METADATA_FILE
    if not meta_path.is_file():
        return None
    return _read_metadata(venv_dir, meta_path)


def ensure_host_env(
    cache_dir: Path | None = None,
    *,
    base_python: Path | None = None,
    packages: Sequence[str] = SANDBOX_PACKAGES,
    wheelhouse: Path | None = None,
    report: Callable[[str], None] = lambda message: None,
) -> HostEnv:
    """Return the cached environment, building it first if needed.

    With `wheelhouse`, packages are installed offline from it (pip --no-index),
    and from the package index pip is configured for if that fails (the
    wheelhouse holds wheels for the image's Python, which the host's may not
    be); without, from the index.
    """
    cache_dir = cache_dir or default_cache_dir()
    base_python = base_python or current_base_python()
    found = locate_host_env(cache_dir, base_python, packages)
    if found is not None:
        _let_everyone_read(found.venv_dir)
        return found
    cache_dir.mkdir(parents=True, exist_ok=True)
    final_dir = cache_dir / env_key(base_python, packages)
    build_dir = durable.new_staging(final_dir, label="building")  # 0o755: the sandbox's uid must get in
    try:
        report(f"creating the sandbox Python environment from {base_python}")
        _run([str(base_python), "-m", "venv", str(build_dir)], "create the virtual environment")
        if packages:
            _install(build_dir, packages, wheelhouse, report)
        env = _retarget(build_dir, final_dir, base_python, packages)
        # KEEP: another process that finished the same environment first wins, and we use theirs.
        published = durable.publish_folder(build_dir, final_dir, durable.IfExists.KEEP)
        found = locate_host_env(cache_dir, base_python, packages)
        if not published and found is None:
            raise FileExistsError(errno.EEXIST, "a folder that is not a built environment is in the way", str(final_dir))
        return found or env
    finally:
        if build_dir.exists():
            shutil.rmtree(build_dir, ignore_errors=True)


def _let_everyone_read(venv_dir: Path) -> None:
    """The sandbox runs commands as an unprivileged uid: the environment's folder must let it in.

    mkdtemp makes folders 0700; everything pip writes inside is already world-readable.
    """
    mode = venv_dir.stat().st_mode & 0o777
    if mode & 0o055 != 0o055:
        venv_dir.chmod(mode | 0o055)


def _install(venv_dir: Path, packages: Sequence[str], wheelhouse: Path | None, report) -> None:
    if wheelhouse is not None:
        report(f"installing {', '.join(packages)} from {wheelhouse}")
        try:
            _run(_pip_install_argv(venv_dir, packages, wheelhouse), "install the sandbox packages")
            return
        except HostEnvError as exc:
            report(f"the wheelhouse could not serve them ({str(exc)[-200:]}); trying the package index")
    report(f"installing {', '.join(packages)} from the package index")
    _run(_pip_install_argv(venv_dir, packages, None), "install the sandbox packages")


def _pip_install_argv(venv_dir: Path, packages: Sequence[str], wheelhouse: Path | None) -> list[str]:
    argv = [str(venv_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if wheelhouse is not None:
        argv += ["--no-index", "--find-links", str(wheelhouse)]
    return argv + list(packages)


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip()[-2000:]
        raise HostEnvError(f"could not {what} (exit {done.returncode}): {tail}")


def _base_prefix_of(base_python: Path) -> tuple[Path, str]:
    """The interpreter's prefix and its version, asked of the interpreter itself."""
    probe = "import sys; print(sys.base_prefix); print(f'{sys.version_info[0]}.{sys.version_info[1]}')"
    done = subprocess.run([str(base_python), "-I", "-c", probe], capture_output=True, text=True)
    if done.returncode != 0:
        raise HostEnvError(f"cannot run {base_python}: {done.stderr.strip()[-500:]}")
    prefix, version = done.stdout.split()
    return Path(prefix), version


def _sandbox_view_of(prefix: Path) -> str:
    """Where the sandbox sees `prefix`: in place under a system prefix, else at BASE_MOUNT."""
    for system in SYSTEM_PREFIXES:
        if prefix == Path(system) or Path(system) in prefix.parents:
            return str(prefix)
    return BASE_MOUNT


def _retarget(venv_dir: Path, final_dir: Path, base_python: Path, packages: Sequence[str]) -> HostEnv:
    """Point the venv's interpreter links, pyvenv.cfg and script shebangs at sandbox paths."""
    prefix, version = _base_prefix_of(base_python)
    base_mount = _sandbox_view_of(prefix)
    sandbox_python = f"{base_mount}/bin/python{version}"
    bin_dir = venv_dir / "bin"
    for entry in bin_dir.iterdir():
        if entry.is_symlink() and os.path.isabs(os.readlink(entry)):
            entry.unlink()
            entry.symlink_to(sandbox_python)
        elif entry.is_file():
            _rewrite_shebang(entry, str(venv_dir))
    (venv_dir / "pyvenv.cfg").write_text(
        f"home = {base_mount}/bin\ninclude-system-site-packages = false\n"
        f"version = {version}\nexecutable = {sandbox_python}\n"
    )
    env = HostEnv(final_dir, prefix, base_mount, version, tuple(packages))
    meta = {"base_prefix": str(prefix), "base_mount": base_mount, "python_version": version, "packages": list(packages)}
    (venv_dir / METADATA_FILE).write_text(durable.dumps(meta, indent=2) + "\n")
    return env


# How pip's launcher opens a script whose interpreter path is too long for `#!` (a shell trampoline).
TRAMPOLINE_EXEC = b"'''exec'"


def _rewrite_shebang(script: Path, host_venv: str) -> None:
    """`#!<host venv>/bin/python` -> `#!/opt/venv/bin/python`, so pip's scripts run inside. A host path too long
    for a shebang line (127 bytes) gets pip's `/bin/sh` trampoline instead: its three lines are replaced too."""
    data = script.read_bytes()
    prefix = f"#!{host_venv}/".encode()
    if data.startswith(prefix):
        script.write_bytes(f"#!{VENV_MOUNT}/".encode() + data[len(prefix):])
        return
    lines = data.split(b"\n", 3)
    if len(lines) == 4 and lines[0] == b"#!/bin/sh" and lines[1].startswith(TRAMPOLINE_EXEC + b" "):
        target = lines[1][len(TRAMPOLINE_EXEC) + 1:].lstrip(b'"')  # quoted by some pip versions, not others
        venv = f"{host_venv}/".encode()
        if target.startswith(venv):
            interpreter = target[len(venv):].split(b'"', 1)[0].split(b" ", 1)[0]  # bin/python3.11
            script.write_bytes(f"#!{VENV_MOUNT}/".encode() + interpreter + b"\n" + lines[3])


def _read_metadata(venv_dir: Path, meta_path: Path) -> HostEnv:
    try:
        meta = json.loads(meta_path.read_text())
        env = HostEnv(
            venv_dir=venv_dir,
            base_prefix=Path(meta["base_prefix"]),
            base_mount=meta["base_mount"],
            python_version=meta["python_version"],
            packages=tuple(meta["packages"]),
        )
    except (OSError, ValueError, KeyError) as exc:
        raise HostEnvError(f"broken sandbox environment at {venv_dir} ({exc}); delete it to rebuild") from exc
    if not env.base_prefix.is_dir():
        raise HostEnvError(
            f"the interpreter behind {venv_dir} is gone ({env.base_prefix}); delete the folder to rebuild"
        )
    return env
