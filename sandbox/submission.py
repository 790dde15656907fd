"""Opening the sandbox a submission runs in: the one seam `run`, `analyze` and `score` share.

A caller says what the submission needs (the kind, its workspace, the corpus
files it may read, the wheelhouse, the caps, its environment, the driver's
own settings with the user's consent among them) and never which driver
that means: the mounts, the wheelhouse at /wheels and the driver's typed
options are worked out here, the same way for every kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sandbox import paths
from sandbox.base import Limits, Mount, Sandbox, SandboxSpec
from sandbox.factory import open_driver
from sandbox.kinds import ISOLATING_KINDS
from sandbox.options import driver_options
from sandbox.scratch import DiskCap


@dataclass(frozen=True)
class SubmissionSandbox:
    """What a submission's sandbox is made of."""

    kind: str  # sandbox.kinds.KINDS
    workspace: Path  # host folder: the submission, writable, every command's current folder
    inputs: tuple[Mount, ...] = ()  # corpus files, read-only (never the answer key: the drivers refuse it)
    wheelhouse: Path | None = None  # shown read-only at paths.WHEELS; pip installs from it alone
    limits: Limits = field(default_factory=Limits)
    env: Mapping[str, str] = field(default_factory=dict)
    disk_cap: DiskCap | None = None  # the workspace's own capped filesystem (sandbox.scratch), if any
    # The driver's own settings by name (an image tag, labels; the consent from sandbox.kinds.consent_settings).
    settings: Mapping[str, object] = field(default_factory=dict)

    def spec(self) -> SandboxSpec:
        return SandboxSpec(workspace=self.workspace, mounts=tuple(self.inputs), limits=self.limits,
                           env=dict(self.env), disk_cap=self.disk_cap)


def open_submission_sandbox(box: SubmissionSandbox) -> Sandbox:
    """Open the sandbox; SandboxError (SandboxUnavailable, UnsafeRefused) when it cannot be had."""
    return open_driver(box.spec(), driver_options(box.kind, box.settings, box.wheelhouse))


def seen_inside(kind: str, workspace: Path, path: Path) -> str:
    """Where a file of the host workspace is for commands in a `kind` sandbox.

    The isolating drivers show the workspace at paths.WORKSPACE; the unisolated one runs in the host folder.
    """
    if kind in ISOLATING_KINDS:
        return paths.in_workspace(path.relative_to(workspace).as_posix())
    return str(path)
