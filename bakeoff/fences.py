"""Fenced code blocks in a model's text: what a fence line is, and where the closed blocks lie.

One definition, read by the answer parser (bakeoff.answers: which files an answer writes) and the reasoning
split (bakeoff.models.reasoning: a marker inside a closed block is code, not markup). A fence line is up to
3 spaces, 3 or more backticks or tildes, and an info string without backticks; it closes a block opened by the
same character at least as many times, with nothing but blanks after it. Lines are `str.splitlines` lines.
String methods only: each line is examined in one linear pass, whatever it holds.
"""

from __future__ import annotations

import bisect


def fence_of(line: str) -> tuple[str, str] | None:
    """(fence, info) when `line` opens a fenced block, else None."""
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or rest[:1] not in ("`", "~"):
        return None
    after = rest.lstrip(rest[0])
    run = len(rest) - len(after)
    if run < 3:
        return None
    info = after.strip(" \t")
    if "`" in info:
        return None
    return rest[:run], info


def closes_fence(line: str, fence: str) -> bool:
    """True when `line` closes a block opened by `fence`: the same character, at least as many, then blanks."""
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3:
        return False
    after = rest.lstrip(fence[0])
    return len(rest) - len(after) >= len(fence) and not after.strip()


def closed_block_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of every closed fenced block in `text`, opening and closing lines included.

    A block that the text ends inside (never closed) is no span: it protects nothing, so that a stray fence
    line cannot hide every marker after it.
    """
    spans: list[tuple[int, int]] = []
    offset, opened, fence = 0, -1, ""
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        if opened < 0:
            found = fence_of(bare)
            if found is not None:
                opened, fence = offset, found[0]
        elif closes_fence(bare, fence):
            spans.append((opened, offset + len(line)))
            opened = -1
        offset += len(line)
    return spans


def find_unfenced(text: str, needle: str, start: int = 0, spans: list[tuple[int, int]] | None = None) -> int:
    """The first index of `needle` at or after `start` that lies in no closed fenced block (-1 when none does)."""
    spans = closed_block_spans(text) if spans is None else spans
    starts = [begin for begin, _ in spans]
    index = text.find(needle, start)
    while index != -1:
        inside = bisect.bisect_right(starts, index) - 1
        if inside < 0 or index >= spans[inside][1]:
            return index
        index = text.find(needle, spans[inside][1])  # past the end of the block it fell in
    return -1
