"""Choosing an isolation by name. There is no silent fallback between kinds."""

from __future__ import annotations

import importlib

from sandbox.base import Sandbox, SandboxSpec
from sandbox.errors import SandboxError

# name -> "module:Class"; imported on demand so that docker-py is only loaded when used.
SANDBOX_KINDS = {
    "docker": "sandbox.docker:DockerSandbox",
    "bwrap": "sandbox.bwrap:BwrapSandbox",
    "none": "sandbox.unsafe:UnsafeSandbox",  # no isolation: needs an explicit unsafe flag upstream
}


def open_sandbox(kind: str, spec: SandboxSpec, **options: object) -> Sandbox:
    """Open a sandbox of the named kind; raise SandboxError for an unknown kind."""
    try:
        target = SANDBOX_KINDS[kind]
    except KeyError:
        known = ", ".join(sorted(SANDBOX_KINDS))
        raise SandboxError(f"unknown sandbox kind {kind!r}; choose one of: {known}") from None
    module_name, class_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(spec, **options)
