"""Where a real item's code came from: the `source` record of an item (docs/review.md).

A source names a repository or a URL, the file's path in it, the line ranges the
snippet was taken from (several ranges when the snippet joins cells that are not
next to each other: "12-30,41-47"), and the licence the code is shipped under.
`license` (the spelling of most of the ecosystem's metadata) is read as `licence`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bakeoff.review.errors import ItemsInvalid

SOURCE_FIELDS = ("repository", "url", "path", "lines", "licence")
LICENCE_SPELLINGS = ("licence", "license")
_LINE_RANGE = re.compile(r"(?P<first>[1-9][0-9]*)(?:-(?P<last>[1-9][0-9]*))?")


@dataclass(frozen=True)
class Source:
    """A repository or a URL, a path in it, the line ranges taken, and a licence."""

    path: str
    lines: str  # "A-B" or "A-B,C-D,...": 1-based, inclusive, ascending, in the original file
    licence: str
    repository: str | None = None
    url: str | None = None

    @property
    def ranges(self) -> tuple[tuple[int, int], ...]:
        return parse_ranges(self.lines)

    def to_dict(self) -> dict:
        return {"repository": self.repository, "url": self.url, "path": self.path, "lines": self.lines,
                "licence": self.licence}


class RangesInvalid(ValueError):
    """A text that is not a list of ascending, disjoint line (or cell) ranges."""


def parse_ranges(text: str) -> tuple[tuple[int, int], ...]:
    """ "3-5,8,10-12" -> ((3, 5), (8, 8), (10, 12)); ranges must ascend and not touch one another."""
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        match = _LINE_RANGE.fullmatch(part.strip())
        if not match:
            raise RangesInvalid(f"{part.strip()!r} is not a range A-B (numbers from 1)")
        first, last = int(match.group("first")), int(match.group("last") or match.group("first"))
        if first > last:
            raise RangesInvalid(f"range {first}-{last} runs backwards")
        if ranges and first <= ranges[-1][1]:
            raise RangesInvalid(f"range {first}-{last} does not come after {ranges[-1][0]}-{ranges[-1][1]}")
        ranges.append((first, last))
    return tuple(ranges)


def format_ranges(ranges: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> str:
    return ",".join(f"{first}-{last}" for first, last in ranges)


def _require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise ItemsInvalid(f"{where}: {message}")


def source_from_record(record: object, where: str) -> Source:
    if not isinstance(record, dict):
        raise ItemsInvalid(f"{where}: source must be an object")
    spellings = [name for name in LICENCE_SPELLINGS if name in record]
    _require(len(spellings) <= 1 or record["licence"] == record["license"], where,
            "source gives licence and license with different values")
    record = {("licence" if k == "license" else k): v for k, v in record.items()}
    unknown = sorted(set(record) - set(SOURCE_FIELDS))
    _require(not unknown, where, f"unknown source field(s): {', '.join(unknown)}")
    texts: dict[str, Any] = {}  # each a non-empty string or None, checked as it is read
    for name in SOURCE_FIELDS:
        value = record.get(name)
        _require(value is None or (isinstance(value, str) and value.strip() != ""), where,
                f"source {name} must be a non-empty string")
        texts[name] = value
    _require(bool(texts["repository"] or texts["url"]), where, "source needs a repository or a url")
    for name in ("path", "lines", "licence"):
        _require(texts[name] is not None, where, f"source needs {name}")
    try:
        ranges = parse_ranges(texts["lines"])
    except RangesInvalid as exc:
        raise ItemsInvalid(f"{where}: source lines must read A-B[,C-D...]: {exc}") from None
    return Source(path=texts["path"], lines=format_ranges(ranges), licence=texts["licence"],
                  repository=texts["repository"], url=texts["url"])
