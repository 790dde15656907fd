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


def did_you_mean(given: object, choices: object) -> str:
    """' (did you mean 'x'?)' for the choice closest to a mistyped name, '' when none is close.

    `given` may be one name or several (the unknown keys of a table): each gets its nearest choice."""
    import difflib

    names = [str(choice) for choice in choices]  # type: ignore[attr-defined]
    typed = [str(given)] if isinstance(given, str) else [str(g) for g in given]  # type: ignore[attr-defined]
    close = [(word, found[0]) for word in typed if (found := difflib.get_close_matches(word, names, n=1, cutoff=0.6))]
    if not close:
        return ""
    if len(typed) == 1:
        return f" (did you mean {close[0][1]!r}?)"
    return " (did you mean " + ", ".join(f"{right!r} for {wrong!r}" for wrong, right in close) + "?)"
