"""Reading one `{"effect", "ci_low", "ci_high"}` result file strictly (a task may name its point estimate
otherwise: `keys`, e.g. `("estimate", "ci_low", "ci_high")`).

Every way a result can be wrong has a stable name (the constants below), reported instead of a
traceback, as for predictions files; records group submissions by these names, so they never change.
The file-level names are shared with the predictions reader.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from scorer.reading import EMPTY_FILE, MISSING_FILE, UNDECODABLE_BYTES, UNREADABLE_FILE, shorten

TOO_LARGE = "too_large"
MALFORMED_JSON = "malformed_json"
NOT_AN_OBJECT = "not_an_object"
MISSING_KEYS = "missing_keys"
BAD_NUMBER = "bad_number"
INVERTED_INTERVAL = "inverted_interval"

RESULT_ERROR_NAMES = (
    MISSING_FILE, UNREADABLE_FILE, UNDECODABLE_BYTES, EMPTY_FILE,
    TOO_LARGE, MALFORMED_JSON, NOT_AN_OBJECT, MISSING_KEYS, BAD_NUMBER, INVERTED_INTERVAL,
)
KEYS = ("effect", "ci_low", "ci_high")
MAX_BYTES = 1 << 20  # a result is three numbers; anything this big is not one


class ResultFileError(Exception):
    """A result file that cannot be graded; `name` is one of RESULT_ERROR_NAMES."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


@dataclass(frozen=True)
class IntervalResult:
    effect: float  # the point estimate, whatever the result file calls it
    ci_low: float
    ci_high: float


def _reject_constant(token: str) -> float:
    raise ValueError(f"{token} is not a finite number")


def _read_text(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise ResultFileError(MISSING_FILE, f"{path} does not exist") from None
    except OSError as exc:  # a folder given as the file, no permission ...
        raise ResultFileError(UNREADABLE_FILE, f"{path} cannot be read: {exc.strerror}") from None
    if len(raw) > MAX_BYTES:
        raise ResultFileError(TOO_LARGE, f"{path} is over {MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ResultFileError(UNDECODABLE_BYTES, f"{path} is not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    if not text.strip():
        raise ResultFileError(EMPTY_FILE, f"{path} is empty")
    return text


def _number(value: object, key: str, path: Path) -> float:
    # bool is an int in Python, but `true` is not an effect size.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ResultFileError(BAD_NUMBER, f"{path}: {key} is {shorten(repr(value))}, not a finite number")
    return float(value)


def read_result(path: Path, keys: tuple[str, str, str] = KEYS) -> IntervalResult:
    """The result in `path`, its (point, low, high) under `keys`; any defect raises ResultFileError."""
    text = _read_text(Path(path))
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ResultFileError(MALFORMED_JSON, f"{path} is not valid JSON: {shorten(str(exc), 120)}") from None
    if not isinstance(data, dict):
        raise ResultFileError(NOT_AN_OBJECT, f"{path} holds a JSON {type(data).__name__}, not an object")
    missing = [key for key in keys if key not in data]
    if missing:
        raise ResultFileError(MISSING_KEYS, f"{path} lacks {', '.join(missing)}")
    effect, low, high = (_number(data[key], key, path) for key in keys)
    if low > high:
        raise ResultFileError(INVERTED_INTERVAL, f"{path}: {keys[1]} {low} is above {keys[2]} {high}")
    return IntervalResult(effect, low, high)
