"""Reading a submission's requirements.txt line by line, before anything is downloaded.

Each line gets a first verdict: skipped (blank, comment), ignored (a pip
option, a standard-library module), invalid, or a requirement to resolve.
Nothing here touches the network or the sandbox.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

# The fates a requirement line can meet; a stable vocabulary written into records.
INSTALLED = "installed"
PROVIDED_BY_IMAGE = "provided_by_image"
UNAVAILABLE = "unavailable"
INVALID_LINE = "invalid_line"
IGNORED = "ignored"
PENDING = "pending"  # parsed, not yet resolved; never left in a finished report

FATES = (INSTALLED, PROVIDED_BY_IMAGE, UNAVAILABLE, INVALID_LINE, IGNORED)

# Bounds on what a submission may declare. Each requirement costs a host-side `pip download`, and
# the line becomes one command-line argument (Linux refuses a single argument over 128 KiB).
MAX_REQUIREMENT_LINES = 200
MAX_LINE_CHARS = 4096
MAX_FILE_BYTES = 256 * 1024
SHOWN_CHARS = 200  # how much of a refused long line is kept in the record

# Names that are not on PyPI under that name but mean a package the image has.
IMAGE_ALIASES = {"sklearn": "scikit-learn"}

_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_VERSION_CLAUSE = r"(?:~=|===|==|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+"
_REQUIREMENT = re.compile(
    rf"^(?P<name>{_NAME})\s*"
    rf"(?P<extras>\[\s*(?:{_NAME}\s*(?:,\s*{_NAME}\s*)*)?\])?\s*"
    rf"(?P<spec>\(?\s*{_VERSION_CLAUSE}\s*(?:,\s*{_VERSION_CLAUSE}\s*)*\)?)?\s*"
    rf"(?P<marker>;.*)?$"
)
_DIRECT_REFERENCE = re.compile(r"(://|^\.{0,2}/|@\s*\S|\.whl$|\.tar\.gz$|\.zip$)")
_PINNED = re.compile(r"^\(?\s*===?\s*([A-Za-z0-9.*+!_-]+)\s*\)?$")


@dataclass(frozen=True)
class RequirementLine:
    """One line of requirements.txt and what became of it."""

    line_number: int
    text: str  # the line as written, comment stripped
    name: str  # normalized project name ("" when the line names none)
    fate: str  # one of FATES (PENDING only while resolving)
    reason: str = ""
    wheels: tuple[str, ...] = ()  # wheel files installed for this line

    def with_fate(self, fate: str, reason: str = "", wheels: tuple[str, ...] = ()) -> RequirementLine:
        return RequirementLine(self.line_number, self.text, self.name, fate, reason, wheels)

    def to_dict(self) -> dict:
        return {
            "line": self.line_number,
            "text": self.text,
            "name": self.name,
            "fate": self.fate,
            "reason": self.reason,
            "wheels": list(self.wheels),
        }


def normalize_name(name: str) -> str:
    """PEP 503 normalization: case and runs of -_. do not distinguish projects."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_requirements(text: str) -> tuple[RequirementLine, ...]:
    """A first verdict for every meaningful line; blank lines and comments are dropped.

    More than MAX_REQUIREMENT_LINES meaningful lines are refused as a whole:
    one invalid line (number 0) says so, and nothing is downloaded.
    """
    parsed = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw) if len(raw) <= MAX_LINE_CHARS or raw.lstrip().startswith("#") else raw.strip()
        if line:
            parsed.append(parse_line(number, line))
        if len(parsed) > MAX_REQUIREMENT_LINES:
            return (refuse_file(f"more than {MAX_REQUIREMENT_LINES} requirement lines; at most "
                                f"{MAX_REQUIREMENT_LINES} are accepted"),)
    return tuple(parsed)


def refuse_file(reason: str) -> RequirementLine:
    """The verdict on a requirements.txt refused as a whole (line 0)."""
    return RequirementLine(0, "requirements.txt", "", INVALID_LINE, reason)


def parse_line(number: int, line: str) -> RequirementLine:
    if len(line) > MAX_LINE_CHARS:
        # Checked before any pattern is tried: the patterns are cheap on short lines only.
        shown = line[:SHOWN_CHARS] + f"... ({len(line)} characters)"
        return RequirementLine(number, shown, "", INVALID_LINE, f"longer than {MAX_LINE_CHARS} characters")
    if line.startswith("-"):
        return RequirementLine(number, line, "", IGNORED, "pip options are not followed; packages come from PyPI")
    requirement, _, options = line.partition(" --")
    requirement = requirement.strip()
    if _DIRECT_REFERENCE.search(requirement):
        return RequirementLine(
            number, line, "", UNAVAILABLE, "URL and path requirements cannot be fetched: only PyPI names are resolved"
        )
    match = _REQUIREMENT.match(requirement)
    if match is None:
        return RequirementLine(number, line, "", INVALID_LINE, "not a valid requirement (pip would reject this line)")
    name = normalize_name(match.group("name"))
    if name in IMAGE_ALIASES:
        alias_of = IMAGE_ALIASES[name]
        return RequirementLine(number, line, alias_of, PROVIDED_BY_IMAGE, f"{name!r} stands for {alias_of}")
    if _is_standard_library(match.group("name")):
        return RequirementLine(number, line, name, IGNORED, "a standard-library module, not a package to install")
    note = " (per-line pip options dropped)" if options else ""
    return RequirementLine(number, requirement, name, PENDING, note.strip())


def pinned_version(line: RequirementLine) -> str | None:
    """The version a line pins with ==, if it pins one."""
    match = _REQUIREMENT.match(line.text)
    spec = (match.group("spec") or "").strip() if match else ""
    pinned = _PINNED.match(spec)
    return pinned.group(1) if pinned else None


def _strip_comment(raw: str) -> str:
    # pip treats "#" as a comment at the start of a line or after whitespace.
    line = re.sub(r"(^|\s)#.*$", "", raw)
    return line.strip()


def _is_standard_library(name: str) -> bool:
    # Installing a PyPI backport of a standard module (typing, dataclasses...) into a
    # folder on PYTHONPATH would shadow the real one, so such lines are never installed.
    return name in sys.stdlib_module_names or name.lower() in sys.stdlib_module_names
