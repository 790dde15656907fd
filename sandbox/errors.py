"""Errors raised by the sandbox drivers: infrastructure failures only.

A command that fails, times out or runs out of memory inside a sandbox is
not an error: it is an `ExecResult`. Only a sandbox that cannot be used
(no engine, no image, a bad mount) raises.
"""


class SandboxError(Exception):
    """Base class: the sandbox itself could not run a command."""


class SandboxUnavailable(SandboxError):
    """The chosen isolation cannot be used on this machine (no engine, no image, no bwrap)."""
