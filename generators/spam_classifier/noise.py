"""Planted imperfections in the text: near-duplicate edits, mojibake, HTML entities.

These touch a few percent of rows, so plain Python per row is cheap enough.
All randomness is drawn up front from the Generator passed in.
"""

from __future__ import annotations

import re

import numpy as np

_NUMBER = re.compile(r"\d+")

# Marker characters that only mojibake produces in this corpus: the base text is ASCII.
MOJIBAKE_MARKERS = ("\u00c3", "\u00e2\u20ac", "\u00c2")

EDIT_KINDS = ("swap_words", "change_number", "punctuation")
SUBJECT_PREFIXES = ("", "", "Fwd: ", "FW: ", "Re: ")


def _swap_words(text: str, position: float) -> str:
    words = text.split(" ")
    if len(words) < 3:
        return text + "."
    i = 1 + int(position * (len(words) - 2))
    words[i - 1], words[i] = words[i], words[i - 1]
    return " ".join(words)


def _change_number(text: str, position: float, replacement: int) -> str:
    found = list(_NUMBER.finditer(text))
    if not found:
        return _punctuation(text, position)
    match = found[int(position * len(found))]
    # Keep the digit count so that "17:00" stays a time and "$250" a plausible price.
    width = len(match.group())
    new = str(replacement % 10**width).zfill(width)
    if new == match.group():
        new = str((replacement + 1) % 10**width).zfill(width)
    return text[: match.start()] + new + text[match.end() :]


def _punctuation(text: str, position: float) -> str:
    if position < 0.34:
        return text.replace(". ", "! ", 1) if ". " in text else text + "!"
    if position < 0.67:
        return text.replace(",", "", 1) if "," in text else text + "!!"
    return text.replace(". ", ".. ", 1) if ". " in text else text + "..."


def near_duplicate(subject: str, body: str, rng: np.random.Generator) -> tuple[str, str]:
    """A copy of (subject, body) with one to three small edits."""
    n_edits = int(rng.integers(1, 4))
    kinds = rng.integers(0, len(EDIT_KINDS), n_edits)
    positions = rng.random(n_edits)
    replacements = rng.integers(2, 500, n_edits)
    for kind, position, replacement in zip(kinds, positions, replacements, strict=True):
        name = EDIT_KINDS[kind]
        if name == "swap_words":
            body = _swap_words(body, float(position))
        elif name == "change_number":
            body = _change_number(body, float(position), int(replacement))
        else:
            body = _punctuation(body, float(position))
    prefix = SUBJECT_PREFIXES[int(rng.integers(0, len(SUBJECT_PREFIXES)))]
    return prefix + subject, body


def _typographic(text: str) -> str:
    """Curly apostrophes and dashes, as a mail client would write them; always adds at least one."""
    curly = text.replace("'", "\u2019").replace(", ", " \u2013 ", 1)
    return curly if curly != text else text + " \u2013 sent from my phone"


def mojibake(text: str) -> str:
    """Text whose UTF-8 bytes were decoded as cp1252 (the classic 'â€™' garbling)."""
    return _typographic(text).encode("utf-8").decode("cp1252")


def html_entities(text: str) -> str:
    """Text with HTML entities left in, as when a mail body was scraped from HTML."""
    escaped = text.replace("&", "&amp;").replace("'", "&#39;").replace('"', "&quot;")
    if ". " in escaped:
        return escaped.replace(". ", ".&nbsp; ", 1)
    return escaped + "&nbsp;"
