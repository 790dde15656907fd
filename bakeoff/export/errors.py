"""Errors of `bakeoff export`: the CLI shows them as `error: Name: message`."""

from __future__ import annotations

from bakeoff.errors import BakeoffError


class ExportError(BakeoffError):
    """An export could not be made."""


class ExportExtraMissing(ExportError):
    """The optional libraries an export format needs are not installed."""


class ExportRefused(ExportError):
    """The batch is still running or has unfinished runs, and --partial was not given."""


class ExportOutputInvalid(ExportError):
    """The output folder is taken, lies inside the batch folder, or what was written does not read back."""
