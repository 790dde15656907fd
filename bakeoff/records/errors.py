"""What a reader of a batch folder says when a record is not one it can read."""

from __future__ import annotations

from bakeoff.errors import BakeoffError


class DamagedRecord(BakeoffError):
    """A record of a batch folder is not what the runner writes (cut short, random bytes, wrong shape)."""


class UnknownRecordSchema(BakeoffError):
    """A record's `schema` tag is not one this version of bakeoff reads (written by a newer one, or not a record).

    Not a DamagedRecord on purpose: a resumed batch re-does a damaged stage, but must never overwrite a
    record it cannot read because a newer bakeoff wrote it.
    """

    def __init__(self, found: object, known: tuple[str, ...], where: str = "") -> None:
        self.found = found
        self.known = known
        place = f"{where}: " if where else ""
        super().__init__(f"{place}record schema {found!r} is not one bakeoff reads (known: {', '.join(known)})")
