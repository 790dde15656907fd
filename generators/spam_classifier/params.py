"""The knobs of the spam corpus, validated once, passed down explicitly."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from generators.errors import InvalidParameter

# 2.0: the holdout is drawn from the seed and a secret; the training rows are those of 1.0, byte for byte.
GENERATOR_VERSION = "spam-2.0"

# Rows are at least this many per split: below it the planted rates cannot be
# placed at the requested fractions (a 3% flip rate needs a few dozen rows).
MIN_ROWS = 100


@dataclass(frozen=True)
class CorpusParams:
    """Everything that determines a corpus with its secret. Same params => byte-identical training files;
    same params and secret => byte-identical files."""

    seed: int = 0
    rows: int = 208_000
    holdout_rows: int = 50_000
    contamination: float = 0.245  # chance that a piece of a message is written in the other class's voice
    spam_rate: float = 0.18
    flip_rate: float = 0.03
    dup_rate: float = 0.04
    noise_rate: float = 0.01  # share of messages with mojibake, and (separately) with HTML entities
    metadata_signal: float = 0.85  # how strongly the metadata columns separate spam from ham
    flag_disagreement: float = 0.008  # share of training rows where moderator_flagged != observed label

    def __post_init__(self) -> None:
        validate(self)

    def to_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def validate(params: CorpusParams) -> None:
    """Raise InvalidParameter naming the first bad field."""
    _check_int("seed", params.seed, minimum=0)
    _check_int("rows", params.rows, minimum=MIN_ROWS)
    _check_int("holdout_rows", params.holdout_rows, minimum=MIN_ROWS)
    _check_rate("spam_rate", params.spam_rate, allow_zero=False)
    for name in ("flip_rate", "dup_rate", "noise_rate", "flag_disagreement"):
        _check_rate(name, getattr(params, name), allow_zero=True)
    _check_rate("contamination", params.contamination, allow_zero=True)
    if params.contamination > 0.5:
        raise InvalidParameter(
            f"contamination must be at most 0.5 (above it spam reads more like ham than ham does), got {params.contamination}"
        )
    if not (0.0 <= params.metadata_signal <= 5.0):
        raise InvalidParameter(f"metadata_signal must be in [0, 5], got {params.metadata_signal}")
    minority = min(params.spam_rate, 1.0 - params.spam_rate)
    if params.flip_rate / 2 > minority:
        raise InvalidParameter(
            f"flip_rate {params.flip_rate} needs more rows of the rarer class than spam_rate {params.spam_rate} gives"
        )


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameter(f"{name} must be a whole number, got {value!r}")
    if value < minimum:
        raise InvalidParameter(f"{name} must be at least {minimum}, got {value}")


def _check_rate(name: str, value: object, allow_zero: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidParameter(f"{name} must be a number in [0, 1), got {value!r}")
    low_ok = value >= 0 if allow_zero else value > 0
    if not low_ok or value >= 1:
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise InvalidParameter(f"{name} must be in {interval}, got {value}")
