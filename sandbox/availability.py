"""Which isolation is usable on this machine, and why not: the sandbox rows of `bakeoff check`."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sandbox.base import SandboxSpec
from sandbox.errors import SandboxError
from sandbox.paths import HARNESS_PYTHON


@dataclass(frozen=True)
class Availability:
    kind: str
    usable: bool
    detail: str  # what works, or what is missing and how to fix it


def check_docker(image: str, *, run_command: bool = True) -> Availability:
    """Engine reachable, image present and current, and (with `run_command`) a real command runs in a real
    sandbox; a batch's preflight asks for the first two only."""
    from docker.errors import DockerException

    from sandbox.docker import DockerSandbox, connect
    from sandbox.image import SYSTEM_LIBRARIES, BuildOptions, image_status

    try:
        client = connect()
    except SandboxError as exc:
        return Availability("docker", False, str(exc))
    try:
        version = client.version().get("Version", "?")
        status = image_status(client, BuildOptions(image_tag=image))
        if not status.present:
            return Availability("docker", False, f"engine {version} runs, but {status.detail}: run `bakeoff sandbox build --bootstrap`")
        if not run_command:
            return Availability("docker", True, f"engine {version}; {status.detail}")
        with tempfile.TemporaryDirectory(prefix="bakeoff-check-") as workspace:
            with DockerSandbox(SandboxSpec(workspace=Path(workspace)), image=image, client=client) as box:
                probe = box.exec([*HARNESS_PYTHON, "-c", _stack_and_libraries_probe(SYSTEM_LIBRARIES)], timeout_s=120)
    except (SandboxError, DockerException) as exc:  # an engine that answers with an error is "not usable", not a crash
        return Availability("docker", False, f"{type(exc).__name__}: {exc}")
    finally:
        client.close()
    if not probe.ok:
        return Availability("docker", False, f"the image cannot import its stack: {probe.stderr.strip()[-300:]}")
    missing = [name for name in SYSTEM_LIBRARIES if f"lacks {name}" in probe.stdout]
    if missing:
        return Availability("docker", False, f"the image lacks {', '.join(missing)} (submissions that declare lightgbm "
                                             "or xgboost would crash on import): run `bakeoff sandbox build --bootstrap --force`")
    provides = "; ".join(f"{name} ({why})" for name, why in SYSTEM_LIBRARIES.items())
    return Availability("docker", True, f"engine {version}; {status.detail}; a test command ran; provides {provides}")


def _stack_and_libraries_probe(libraries: dict[str, str]) -> str:
    """Python that imports the stack and prints `lacks NAME` for each shared library that does not load."""
    return ("import ctypes, numpy, pandas, sklearn, scipy, joblib\n"
            f"for name in {sorted(libraries)!r}:\n"
            "    try:\n        ctypes.CDLL(name)\n    except OSError:\n        print('lacks', name)\n")


def check_bwrap() -> Availability:
    """bubblewrap installed, a cgroup hierarchy to cap it with, and namespaces that open."""
    binary = shutil.which("bwrap")
    if binary is None:
        return Availability("bwrap", False, "bubblewrap is not installed (apt-get install bubblewrap)")
    try:
        from sandbox.cgroups import find_tree

        find_tree()
    except SandboxError as exc:
        return Availability("bwrap", False, str(exc))
    except ImportError:
        return Availability("bwrap", False, "this bakeoff has no bwrap driver")
    # Namespaces only: this probe runs `true`, nothing else, so binding the root read-only is harmless.
    argv = [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "true"]
    probe = subprocess.run(argv, capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return Availability("bwrap", False, f"bwrap cannot create namespaces here: {probe.stderr.strip()[-300:]}")
    return Availability("bwrap", True, f"{binary}; cgroups and namespaces work")
