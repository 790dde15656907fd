"""Rates measured on a written corpus: what the manifest reports, read back from the files."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from generators.spam import noise


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


def read_table(path: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """A corpus CSV with text kept as text (an empty field stays "")."""
    return pd.read_csv(path, usecols=columns, keep_default_na=False, dtype={"subject": str, "body": str})


def _share(mask: np.ndarray) -> float:
    return float(np.mean(mask)) if mask.size else 0.0


def _text_noise_rates(bodies: pd.Series) -> tuple[float, float]:
    moji = np.fromiter((noise.has_mojibake(text) for text in bodies), dtype=bool, count=len(bodies))
    html = np.fromiter((noise.has_html_entity(text) for text in bodies), dtype=bool, count=len(bodies))
    return _share(moji), _share(html)


def measure_corpus(folder: Path) -> MeasuredRates:
    """Read train.csv, holdout.csv, holdout_answers.csv and truth.csv back and measure them."""
    train = read_table(folder / "train.csv", ["id", "body", "moderator_flagged", "label"])
    holdout = read_table(folder / "holdout.csv", ["id", "body", "moderator_flagged"])
    answers = read_table(folder / "holdout_answers.csv")
    truth = pd.read_csv(folder / "truth.csv", dtype={"dup_of": "Int64"}).set_index("id")
    train_truth = truth.loc[train["id"]]
    hold_truth = truth.loc[holdout["id"]]
    flipped = train_truth["flipped"].to_numpy() == 1
    clean = train_truth["clean_label"].to_numpy()
    observed = train["label"].to_numpy()
    moji, html = _text_noise_rates(pd.concat([train["body"], holdout["body"]], ignore_index=True))
    train_ids = set(train["id"].tolist())
    hold_dup_of = hold_truth["dup_of"].dropna()
    return MeasuredRates(
        train_rows=len(train),
        holdout_rows=len(holdout),
        train_spam_rate=_share(observed == 1),
        train_clean_spam_rate=_share(clean == 1),
        holdout_spam_rate=_share(answers["label"].to_numpy() == 1),
        flip_rate=_share(flipped),
        flips_spam_to_ham=int(np.sum(flipped & (clean == 1))),
        flips_ham_to_spam=int(np.sum(flipped & (clean == 0))),
        train_dup_rate=_share(train_truth["dup_of"].notna().to_numpy()),
        holdout_dup_rate=_share(hold_truth["dup_of"].notna().to_numpy()),
        holdout_dups_of_train=int(sum(int(source) in train_ids for source in hold_dup_of)),
        mojibake_rate=moji,
        html_entity_rate=html,
        flag_label_correlation=float(np.corrcoef(train["moderator_flagged"].to_numpy(), observed)[0, 1]),
        holdout_flagged_rows=int(np.sum(holdout["moderator_flagged"].to_numpy() != 0)),
    )
