"""Text from records shown to a person: control characters escaped, so they stay data.

A crash message, a model answer or a file name can hold terminal escape sequences
(`\\x1b[2J` clears the screen, `\\x1b]0;...\\x07` retitles the window) or bidirectional
overrides that reorder what the reader sees. Every CLI output and report.md passes
such text through `printable`: each of those characters becomes its visible escape
(`\\x1b`, `\\u202e`; a lone surrogate as `\\ud800`), and newlines and tabs are kept.
"""

from __future__ import annotations

import unicodedata

_KEPT = {"\n", "\t"}
_BIDI = [chr(c) for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))]


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _table() -> dict[int, str]:
    controls = [chr(c) for c in range(0x110) if unicodedata.category(chr(c)) == "Cc" and chr(c) not in _KEPT]
    surrogates = [chr(c) for c in range(0xD800, 0xE000)]  # lone ones (an answer may hold one) cannot be encoded
    return {ord(char): _escape(char) for char in controls + _BIDI + surrogates}


_ESCAPES = _table()


def printable(text: object, keep_newlines: bool = True) -> str:
    """`text` with control characters (C0, DEL, C1) and bidi controls shown as escapes; newlines kept unless told."""
    shown = str(text).translate(_ESCAPES)
    return shown if keep_newlines else shown.replace("\n", "\\n").replace("\t", "\\t")


def markdown_text(text: object) -> str:
    """`text` safe inside Markdown: printable, and HTML markup shown as text (`<script>` stays letters on the page)."""
    return printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def valid_text(text: str) -> str:
    """`text` as valid Unicode: a lone surrogate (a file name of bytes that are not UTF-8, a JSON escape) becomes
    U+FFFD, so it can be encoded, sent to a model and written anywhere."""
    return text.encode("utf-8", errors="surrogatepass").decode("utf-8", errors="replace")
