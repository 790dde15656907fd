"""Rates measured on a written corpus: what the manifest reports, read back from the files."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from generators.spam_classifier import noise


@dataclass(frozen=True)
class MeasuredRates:
    """The planted properties as they came out, recomputed from the CSV files."""

    train_rows: int
    holdout_rows: int
    train_spam_rate: float  # observed (possibly flipped) labels
    train_clean_spam_rate: float
    holdout_spam_rate: float  # the answer key
    flip_rate: float
    flips_spam_to_ham: int
    flips_ham_to_spam: int
    train_dup_rate: float
    holdout_dup_rate: float
    holdout_dups_of_train: int
    mojibake_rate: float  # share of all messages (both splits)
    html_entity_rate: float
    flag_label_correlation: float  # train: moderator_flagged vs the observed label
    holdout_flagged_rows: int  # must be 0: the trap

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


_MOJIBAKE_BYTES = re.compile(b"|".join(re.escape(marker.encode("utf-8")) for marker in noise.MOJIBAKE_MARKERS))
_ENTITY_BYTES = re.compile(rb"&(?:[a-z]+|#\d+);")
_NEWLINE, _COMMA, _ZERO = ord("\n"), ord(","), ord("0")


@dataclass(frozen=True)
class RawTable:
    """A corpus CSV as bytes plus where each data row starts and ends.

    Every field of this corpus is on one line and the last columns are single
    digits, so the ids, the flag and the label can be read straight from the bytes:
    far cheaper than parsing the text columns with a CSV reader.
    """

    raw: bytes
    data: np.ndarray  # the same bytes as uint8
    starts: np.ndarray  # first byte of each data row
    ends: np.ndarray  # the newline that ends it

    @classmethod
    def read(cls, path: Path) -> RawTable:
        raw = path.read_bytes()
        data = np.frombuffer(raw, dtype=np.uint8)
        newlines = np.flatnonzero(data == _NEWLINE)
        if newlines.size == 0 or newlines[-1] != data.size - 1:
            raise ValueError(f"{path} does not end with a newline")
        return cls(raw=raw, data=data, starts=newlines[:-1] + 1, ends=newlines[1:])

    @property
    def rows(self) -> int:
        return int(self.starts.size)

    def digit_from_end(self, field: int) -> np.ndarray:
        """The single-digit field `field` places from the end of each row (0 = last field)."""
        at = self.ends - 1 - 2 * field
        if field and not np.all(self.data[at + 1] == _COMMA):
            raise ValueError("a trailing field is not a single digit")
        return self.data[at].astype(np.int64) - _ZERO

    def ids(self) -> np.ndarray:
        commas = np.flatnonzero(self.data == _COMMA)
        lengths = commas[np.searchsorted(commas, self.starts)] - self.starts
        ids = np.zeros(self.rows, dtype=np.int64)
        for k in range(int(lengths.max(initial=0))):
            inside = k < lengths
            digit = self.data[np.minimum(self.starts + k, self.data.size - 1)].astype(np.int64) - _ZERO
            ids = np.where(inside, ids * 10 + digit, ids)
        return ids

    def share_of_rows_matching(self, pattern: re.Pattern) -> float:
        positions = np.fromiter((m.start() for m in pattern.finditer(self.raw)), dtype=np.int64)
        rows = np.unique(np.searchsorted(self.starts, positions, side="right") - 1)
        return float(np.sum(rows >= 0)) / self.rows if self.rows else 0.0


def _share(mask: np.ndarray) -> float:
    return float(np.mean(mask)) if mask.size else 0.0


def measure_corpus(folder: Path) -> MeasuredRates:
    """Read train.csv, holdout.csv, holdout_answers.csv and truth.csv back and measure them."""
    train, holdout = RawTable.read(folder / "train.csv"), RawTable.read(folder / "holdout.csv")
    train_ids, hold_ids = train.ids(), holdout.ids()
    observed, flags = train.digit_from_end(0), train.digit_from_end(1)
    answers = pd.read_csv(folder / "holdout_answers.csv")
    truth = pd.read_csv(folder / "truth.csv", dtype={"dup_of": "Int64"}).set_index("id")
    train_truth, hold_truth = truth.loc[train_ids], truth.loc[hold_ids]
    flipped = train_truth["flipped"].to_numpy() == 1
    clean = train_truth["clean_label"].to_numpy()
    hold_dup_of = hold_truth["dup_of"].dropna().to_numpy(dtype=np.int64)
    messages = train.rows + holdout.rows

    def noise_share(pattern: re.Pattern) -> float:
        # Only bodies are ever damaged, and no other field can hold these markers.
        hits = train.share_of_rows_matching(pattern) * train.rows + holdout.share_of_rows_matching(pattern) * holdout.rows
        return hits / messages

    return MeasuredRates(
        train_rows=train.rows,
        holdout_rows=holdout.rows,
        train_spam_rate=_share(observed == 1),
        train_clean_spam_rate=_share(clean == 1),
        holdout_spam_rate=_share(answers["label"].to_numpy() == 1),
        flip_rate=_share(flipped),
        flips_spam_to_ham=int(np.sum(flipped & (clean == 1))),
        flips_ham_to_spam=int(np.sum(flipped & (clean == 0))),
        train_dup_rate=_share(train_truth["dup_of"].notna().to_numpy()),
        holdout_dup_rate=_share(hold_truth["dup_of"].notna().to_numpy()),
        holdout_dups_of_train=int(np.isin(hold_dup_of, train_ids).sum()),
        mojibake_rate=noise_share(_MOJIBAKE_BYTES),
        html_entity_rate=noise_share(_ENTITY_BYTES),
        flag_label_correlation=float(np.corrcoef(flags, observed)[0, 1]),
        holdout_flagged_rows=int(np.sum(holdout.digit_from_end(0) != 0)),
    )
