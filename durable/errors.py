"""The errors durable raises itself (an OSError from the disk is passed on as it is)."""

from __future__ import annotations


class DurableError(Exception):
    """Base of durable's own errors."""


class JournalDamaged(DurableError):
    """A journal line that is not the last is not valid JSON: the file was changed by something else than an append."""
