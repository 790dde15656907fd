"""Errors of the review benchmark (all are bakeoff errors, shown as one line by the CLI)."""

from __future__ import annotations

from bakeoff.errors import BakeoffError


class ReviewError(BakeoffError):
    """Base class: the review benchmark cannot go on."""


class ItemsInvalid(ReviewError):
    """An items file is missing, unreadable, or has an item that breaks the format."""


class ItemCodeFailed(ReviewError):
    """An item's code raised, or finished without setting `reported`."""


class ReviewOutputExists(ReviewError):
    """The output folder already holds results; bakeoff never overwrites them."""


class ReviewSettingsInvalid(ReviewError):
    """The review settings file or a command-line setting is out of range."""


class ReviewResumeMismatch(ReviewError):
    """An unfinished review at this --out was started with other settings or items; its answers are kept."""
