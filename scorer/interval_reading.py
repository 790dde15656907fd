"""Reading one `{"effect", "ci_low", "ci_high"}` result file strictly (a task may name its point estimate
otherwise: `keys`, e.g. `("estimate", "ci_low", "ci_high")`).

Every way a result can be wrong has a stable name (the constants below), reported instead of a
traceback, as for predictions files; records group submissions by these names, so they never change.
The file-level names are shared with the predictions reader.

The JSON is read through durable's reader of untrusted JSON (standard library only, like the scorer):
caps on size, nesting and digits, no NaN or Infinity. A number must also lie within +-MAX_MAGNITUDE, so that
nothing the grader computes from it (a width, a Winkler score, a mean over experiments) can overflow to
infinity: a result with a 401-digit integer or a bound of 1.7e308 is a named error of that result, and the
grade of the others, and its JSON, stay finite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from durable import JsonLimits, JSONNotFinite, JSONNumberTooLong, JSONTooLarge, UntrustedJSON, loads
from scorer.reading import EMPTY_FILE, MISSING_FILE, UNDECODABLE_BYTES, UNREADABLE_FILE, shorten

TOO_LARGE = "too_large"
MALFORMED_JSON = "malformed_json"
NOT_AN_OBJECT = "not_an_object"
MISSING_KEYS = "missing_keys"
BAD_NUMBER = "bad_number"
OUT_OF_RANGE = "out_of_range"
INVERTED_INTERVAL = "inverted_interval"

RESULT_ERROR_NAMES = (
    MISSING_FILE, UNREADABLE_FILE, UNDECODABLE_BYTES, EMPTY_FILE,
    TOO_LARGE, MALFORMED_JSON, NOT_AN_OBJECT, MISSING_KEYS, BAD_NUMBER, OUT_OF_RANGE, INVERTED_INTERVAL,
)
KEYS = ("effect", "ci_low", "ci_high")
MAX_BYTES = 1 << 20  # a result is three numbers; anything this big is not one
MAX_DEPTH = 32  # three numbers, perhaps beside some notes: nothing nests deeper
MAX_DIGITS = 100
# No effect size or bound is this large; below it, widths, Winkler scores (whose penalty 2 / (1 - level) is at
# most about 2e16 for a level below 1) and means over any number of experiments stay far from overflowing.
MAX_MAGNITUDE = 1e100
LIMITS = JsonLimits(max_bytes=MAX_BYTES, max_depth=MAX_DEPTH, max_digits=MAX_DIGITS)


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
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ResultFileError(BAD_NUMBER, f"{path}: {key} is {shorten(repr(value))}, not a finite number")
    number = float(value)  # the reader capped an integer's digits, so this cannot overflow
    if not math.isfinite(number):
        raise ResultFileError(BAD_NUMBER, f"{path}: {key} is {shorten(repr(value))}, not a finite number")
    if abs(number) > MAX_MAGNITUDE:
        raise ResultFileError(OUT_OF_RANGE, f"{path}: {key} is {number:g}, beyond +-{MAX_MAGNITUDE:g}")
    return number


def _parse(text: str, path: Path) -> object:
    try:
        return loads(text, limits=LIMITS, what=str(path))
    except JSONTooLarge as exc:
        raise ResultFileError(TOO_LARGE, str(exc)) from None
    except (JSONNumberTooLong, JSONNotFinite) as exc:
        raise ResultFileError(BAD_NUMBER, shorten(str(exc), 200)) from None
    except UntrustedJSON as exc:  # a syntax error, NaN or Infinity, or nested past the cap
        raise ResultFileError(MALFORMED_JSON, shorten(str(exc), 200)) from None


def read_result(path: Path, keys: tuple[str, str, str] = KEYS) -> IntervalResult:
    """The result in `path`, its (point, low, high) under `keys`; any defect raises ResultFileError."""
    text = _read_text(Path(path))
    data = _parse(text, Path(path))
    if not isinstance(data, dict):
        raise ResultFileError(NOT_AN_OBJECT, f"{path} holds a JSON {type(data).__name__}, not an object")
    missing = [key for key in keys if key not in data]
    if missing:
        raise ResultFileError(MISSING_KEYS, f"{path} lacks {', '.join(missing)}")
    effect, low, high = (_number(data[key], key, path) for key in keys)
    if low > high:
        raise ResultFileError(INVERTED_INTERVAL, f"{path}: {keys[1]} {low} is above {keys[2]} {high}")
    return IntervalResult(effect, low, high)
