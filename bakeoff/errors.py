"""The error classes the CLI turns into messages.

Every component keeps its own base error (so that none of them imports
`bakeoff`); this module names them all in one place for the CLI edge.
"""

from __future__ import annotations


class BakeoffError(Exception):
    """A failure of bakeoff itself that the user can act on (bad input, missing engine...)."""

    exit_code = 2


def user_facing_errors() -> tuple[type[Exception], ...]:
    """The exception types the CLI reports as a one-line message instead of a traceback."""
    from durable import DurableError
    from generators.errors import GeneratorError
    from sandbox.errors import SandboxError

    return (BakeoffError, DurableError, GeneratorError, SandboxError)
