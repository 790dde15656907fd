"""JSON that someone else may have written, read within caps; JSON that we write, valid for any reader.

Reading (`loads`, `loads_prefix`, `read_json`): the text is refused before it is parsed when it is over `max_bytes`; while it
is parsed when an integer has more than `max_digits` digits (or any number literal is longer than that), when it
holds NaN or Infinity (not JSON, though Python's reader takes them), or a number so large that it reads as
infinity (`1e999`); after it is parsed when it nests deeper
than `max_depth` (an iterative walk; the standard library's C parser raises RecursionError, caught here, long
before a deep text could exhaust the stack). Every refusal is an `UntrustedJSON` whose subclass (and `cap`) says which rule
it broke; nothing else escapes, whatever the bytes.

Writing (`dumps`): `allow_nan=False`, so NaN and Infinity, which are not JSON, are `JSONUnwritable` instead of
text that a strict reader (ours included) refuses later.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from durable.errors import (
    JSONMalformed,
    JSONNotFinite,
    JSONNumberTooLong,
    JSONTooDeep,
    JSONTooLarge,
    JSONUnwritable,
)


@dataclass(frozen=True)
class JsonLimits:
    """The caps one reading applies. The defaults fit every record and result the harness writes."""

    max_bytes: int = 64 << 20
    max_depth: int = 100
    max_digits: int = 100  # digits of an integer, characters of any number literal


DEFAULT_LIMITS = JsonLimits()


def nesting_depth(value: Any) -> int:
    """How deeply lists and dicts nest in a parsed value (a scalar is 0); iterative, so any depth is safe."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))
    return deepest


class _Parser:
    """json.loads with the number hooks that enforce the digit cap and finiteness."""

    def __init__(self, limits: JsonLimits, what: str) -> None:
        self.limits, self.what = limits, what

    def _check_length(self, literal: str) -> None:
        digits = len(literal.lstrip("-"))
        if digits > self.limits.max_digits:
            raise JSONNumberTooLong(
                f"{self.what}: a number of {digits} digits (the cap is {self.limits.max_digits})", cap="digits")

    def integer(self, literal: str) -> int:
        self._check_length(literal)
        return int(literal)

    def number(self, literal: str) -> float:
        self._check_length(literal)
        value = float(literal)
        if value in (float("inf"), float("-inf")):
            raise JSONNotFinite(f"{self.what}: {literal[:40]} is too large for a finite number", cap="finite")
        return value

    def constant(self, name: str) -> Any:
        # NaN, Infinity and -Infinity are not JSON at all (Python's reader takes them unless told otherwise).
        raise JSONMalformed(f"{self.what} is not valid JSON: {name} is not a JSON number", cap="syntax")


def loads(data: bytes | str, *, limits: JsonLimits = DEFAULT_LIMITS, what: str = "JSON text") -> Any:
    """The value in `data` (UTF-8 bytes, a BOM allowed, or text); UntrustedJSON when any cap or rule is broken."""
    if len(data) > limits.max_bytes:
        raise JSONTooLarge(f"{what} is over {limits.max_bytes} bytes", cap="bytes")
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JSONMalformed(f"{what} is not UTF-8 (byte {exc.start}: {exc.reason})", cap="syntax") from None
    else:
        text = data
    if len(text.encode("utf-8", errors="surrogatepass")) > limits.max_bytes:
        raise JSONTooLarge(f"{what} is over {limits.max_bytes} bytes", cap="bytes")
    parser = _Parser(limits, what)
    value = _parsed(lambda: json.loads(text, parse_int=parser.integer, parse_float=parser.number,
                                       parse_constant=parser.constant), limits, what)
    return _within_depth(value, limits, what)


def loads_prefix(text: str, start: int = 0, *, limits: JsonLimits = DEFAULT_LIMITS,
                 what: str = "JSON text") -> tuple[Any, int]:
    """The one JSON value that begins at `start` of `text`, and the index just past it (text may follow it: a
    model's reply with a call in it); the caps and rules of `loads`, the size cap counted from `start`."""
    if len(text) - start > limits.max_bytes:
        raise JSONTooLarge(f"{what} is over {limits.max_bytes} bytes", cap="bytes")
    parser = _Parser(limits, what)
    decoder = json.JSONDecoder(parse_int=parser.integer, parse_float=parser.number, parse_constant=parser.constant)
    value, end = _parsed(lambda: decoder.raw_decode(text, start), limits, what)
    return _within_depth(value, limits, what), end


def _parsed(parse: Callable[[], Any], limits: JsonLimits, what: str) -> Any:
    """What `parse` returns; its syntax error, or its nesting past the C parser's own guard, as an UntrustedJSON."""
    try:
        return parse()
    except json.JSONDecodeError as exc:
        raise JSONMalformed(f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                            cap="syntax") from None
    except RecursionError:  # the C parser's own guard: nested far past any cap
        raise JSONTooDeep(f"{what} nests too deeply to parse (the cap is {limits.max_depth})", cap="depth") from None


def _within_depth(value: Any, limits: JsonLimits, what: str) -> Any:
    depth = nesting_depth(value)
    if depth > limits.max_depth:
        raise JSONTooDeep(f"{what} nests {depth} levels deep (the cap is {limits.max_depth})", cap="depth")
    return value


def read_json(path: Path, *, limits: JsonLimits = DEFAULT_LIMITS) -> Any:
    """`loads` of a file, of which at most `max_bytes` + 1 bytes are ever read (OSError passes as it is)."""
    with open(path, "rb") as handle:
        data = handle.read(limits.max_bytes + 1)
    return loads(data, limits=limits, what=str(path))


def dumps(value: Any, *, indent: int | None = None, sort_keys: bool = False, ensure_ascii: bool = True,
          separators: tuple[str, str] | None = None) -> str:
    """`json.dumps` that refuses NaN and Infinity (JSONUnwritable): what we write, any JSON reader accepts."""
    try:
        return json.dumps(value, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii,
                          separators=separators, allow_nan=False)
    except ValueError as exc:  # "Out of range float values are not JSON compliant", and circular references
        raise JSONUnwritable(f"not written: {exc}") from None
