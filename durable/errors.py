"""The errors durable raises itself (an OSError from the disk is passed on as it is)."""

from __future__ import annotations


class DurableError(Exception):
    """Base of durable's own errors."""


class JournalDamaged(DurableError):
    """A journal line that is not the last is not valid JSON: the file was changed by something else than an append."""


# --- untrusted JSON (durable.jsonio) -----------------------------------------------------------------------


class UntrustedJSON(DurableError):
    """JSON text that the reader refuses; `cap` names the rule it broke (the subclass says the same)."""

    def __init__(self, message: str, *, cap: str) -> None:
        super().__init__(message)
        self.cap = cap

    def __reduce__(self) -> tuple[object, ...]:  # picklable across processes, keyword and all
        return (_rebuild_untrusted, (type(self), str(self), self.cap))


def _rebuild_untrusted(kind: type[UntrustedJSON], message: str, cap: str) -> UntrustedJSON:
    return kind(message, cap=cap)


class JSONMalformed(UntrustedJSON):
    """Not JSON at all: a syntax error, NaN or Infinity, or bytes that are not UTF-8 (cap "syntax")."""


class JSONTooLarge(UntrustedJSON):
    """Over the size cap (cap "bytes")."""


class JSONTooDeep(UntrustedJSON):
    """Arrays and objects nested past the depth cap (cap "depth")."""


class JSONNumberTooLong(UntrustedJSON):
    """An integer with more digits than the cap, or a longer number literal (cap "digits")."""


class JSONNotFinite(UntrustedJSON):
    """A number too large to be a finite float, such as 1e999 (cap "finite")."""


class JSONUnwritable(DurableError):
    """A value that is not JSON (NaN, Infinity, a circular reference): refused instead of written."""


# --- harness-owned paths (durable.nofollow) ----------------------------------------------------------------


class UnsafePath(DurableError):
    """A path under a trusted root that is not what the harness put there; `path` is the part that was wrong."""

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_unsafe, (type(self), str(self), self.path))


def _rebuild_unsafe(kind: type[UnsafePath], message: str, path: str) -> UnsafePath:
    return kind(message, path=path)


class LinkInTheWay(UnsafePath):
    """A symbolic link where a folder or a file of the harness should be: never followed."""


class NotAFolder(UnsafePath):
    """A file (or a pipe, a socket...) where a folder should be."""


class NotARegularFile(UnsafePath):
    """A folder, a pipe, a device or a socket where a regular file should be."""


class OutsideTheRoot(UnsafePath):
    """A relative path that is absolute, climbs out with '..', or names the root itself."""


class FileTooLarge(UnsafePath):
    """A file that claims more bytes (its apparent size: a sparse file counts all it claims) than its reader's cap."""
