"""Each driver's options as a typed dataclass, and the one function that builds the right one for a kind.

Plans, commands and the Ray executor carry a driver's settings as plain data
(`{"image": ...}`: it travels to worker nodes and into batch.json); they
become the driver's own options here, where an unknown name is a
SandboxError naming it rather than a TypeError deep in a constructor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from sandbox.docker_engine import IMAGE_TAG
from sandbox.errors import SandboxError
from sandbox.kinds import BWRAP, DOCKER, KINDS, UNSAFE

if TYPE_CHECKING:
    from sandbox.cgroups import CgroupTree
    from sandbox.hostenv import HostEnv


@dataclass(frozen=True)
class DockerOptions:
    """sandbox.docker.DockerSandbox: a locked-down container per sandbox (or per command)."""

    kind: ClassVar[str] = DOCKER
    image: str = IMAGE_TAG
    reuse: bool = True  # one container for every command; False: a fresh one each time
    client: Any = None  # a docker-py client to share; None: connect to the local engine
    run_as: tuple[int, int] | None = None  # uid, gid; None: the caller's, or an unprivileged one for root
    wheelhouse: Path | None = None  # shown read-only at sandbox.paths.WHEELS
    labels: Mapping[str, str] = field(default_factory=dict)  # more container labels (batch and run names)


@dataclass(frozen=True)
class BwrapOptions:
    """sandbox.bwrap.BwrapSandbox: bubblewrap namespaces in a capped cgroup per command."""

    kind: ClassVar[str] = BWRAP
    host_env: HostEnv | None = None  # the Python environment to bind; None: built or found in the cache
    wheelhouse: Path | None = None
    cache_dir: Path | None = None
    bwrap_path: str | None = None
    cgroups: CgroupTree | None = None
    report: Callable[[str], None] | None = None  # told why the first use waits (building the environment)


@dataclass(frozen=True)
class UnsafeOptions:
    """sandbox.unsafe.UnsafeSandbox: no isolation; opens only with the explicit acknowledgement."""

    kind: ClassVar[str] = UNSAFE
    i_understand_this_is_unsafe: bool = False  # sandbox.kinds.consent_settings sets it
    wheelhouse: Path | None = None
    python_bin_dir: Path | None = None


DriverOptions = DockerOptions | BwrapOptions | UnsafeOptions
OPTIONS: dict[str, type[DockerOptions] | type[BwrapOptions] | type[UnsafeOptions]] = {
    DOCKER: DockerOptions,
    BWRAP: BwrapOptions,
    UNSAFE: UnsafeOptions,
}


def driver_options(kind: str, settings: Mapping[str, object] = {}, wheelhouse: Path | None = None) -> DriverOptions:
    """The options of `kind`'s driver from plain settings; `wheelhouse`, when given, is shown at /wheels by any kind."""
    cls = OPTIONS.get(kind)
    if cls is None:
        raise SandboxError(f"unknown sandbox kind {kind!r}; choose one of: {', '.join(sorted(KINDS))}")
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise SandboxError(f"the {kind} sandbox has no option {', '.join(map(repr, unknown))}; "
                           f"its options are {', '.join(sorted(known))}")
    values = dict(settings)
    if wheelhouse is not None:
        values.setdefault("wheelhouse", wheelhouse)
    return cls(**values)  # type: ignore[arg-type]  # checked against the fields above


def keywords(options: DriverOptions) -> dict[str, Any]:
    """The options as the driver's constructor takes them (a shallow copy: a shared client stays shared)."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
