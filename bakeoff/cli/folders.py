"""Folders named on the command line that bakeoff writes into: made, or refused with a named error."""

from __future__ import annotations

from pathlib import Path

from bakeoff.errors import BakeoffError


class WheelhouseUnusable(BakeoffError):
    """The wheelhouse folder cannot be made or used (a path under /proc, a file in the way, no permission)."""


def usable_wheelhouse(path: Path) -> Path:
    """`path` resolved and made; WheelhouseUnusable (not a FileNotFoundError traceback) when it cannot be."""
    try:
        path = path.resolve()
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WheelhouseUnusable(f"cannot use {path} as the wheelhouse: {exc.strerror or exc}") from None
    return path
