"""Choosing an isolation by name. There is no silent fallback between kinds."""

from __future__ import annotations

import importlib

from sandbox.base import Sandbox, SandboxSpec
from sandbox.kinds import BWRAP, DOCKER, UNSAFE
from sandbox.options import DriverOptions, driver_options, keywords

# kind -> "module:Class"; imported on demand so that docker-py is only loaded when used.
SANDBOX_KINDS = {
    DOCKER: "sandbox.docker:DockerSandbox",
    BWRAP: "sandbox.bwrap:BwrapSandbox",
    UNSAFE: "sandbox.unsafe:UnsafeSandbox",  # no isolation: needs the explicit consent (sandbox.kinds)
}


def open_driver(spec: SandboxSpec, options: DriverOptions) -> Sandbox:
    """Open the sandbox whose driver `options` belongs to."""
    module_name, class_name = SANDBOX_KINDS[options.kind].split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    sandbox: Sandbox = cls(spec, **keywords(options))
    return sandbox


def open_sandbox(kind: str, spec: SandboxSpec, **settings: object) -> Sandbox:
    """Open a sandbox of the named kind with its driver's settings by name (tests, tools, benches).

    SandboxError for an unknown kind or setting. A submission's sandbox is opened through
    sandbox.submission.open_submission_sandbox instead.
    """
    return open_driver(spec, driver_options(kind, settings))
