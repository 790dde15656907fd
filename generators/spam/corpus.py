"""Building the corpus tables in memory: labels, text, planted imperfections, metadata, the trap."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from generators.spam import metadata, noise, planting
from generators.spam.params import CorpusParams
from generators.spam.text import TextPools, build_messages

TRAIN_COLUMNS = (
    "id",
    "subject",
    "body",
    "sender",
    "sender_domain_age_days",
    "n_links",
    "n_attachments",
    "n_replies",
    "received_at",
    "moderator_flagged",
    "label",
)
HOLDOUT_COLUMNS = TRAIN_COLUMNS[:-1]
TRUTH_COLUMNS = ("id", "clean_label", "flipped", "dup_of")

Progress = Callable[[str], None]


@dataclass(frozen=True)
class CorpusTables:
    """The four tables written as CSV files."""

    train: pd.DataFrame
    holdout: pd.DataFrame
    holdout_answers: pd.DataFrame
    truth: pd.DataFrame


def no_progress(_: str) -> None:
    pass


def _apply_near_duplicates(
    subjects: np.ndarray, bodies: np.ndarray, sources: np.ndarray, rng: np.random.Generator
) -> None:
    """Overwrite each duplicate row's text with an edited copy of its source (sources are originals)."""
    for row in np.flatnonzero(sources >= 0):
        source = sources[row]
        subjects[row], bodies[row] = noise.near_duplicate(subjects[source], bodies[source], rng)


def _apply_text_noise(bodies: np.ndarray, rows: int, offset: int, rate: float, rng: np.random.Generator) -> None:
    """Mojibake on one exact share of a split's bodies, HTML entities on another (chosen independently)."""
    for damage in (noise.mojibake, noise.html_entities):
        for row in planting.choose_rows(np.arange(rows), planting.exact_count(rate, rows), rng) + offset:
            bodies[row] = damage(bodies[row])


def build_tables(params: CorpusParams, progress: Progress = no_progress) -> CorpusTables:
    """Every table of the corpus, from one seeded Generator threaded through each step."""
    rng = np.random.default_rng(params.seed)
    n_train, n_hold = params.rows, params.holdout_rows
    progress("rendering text pools")
    pools = TextPools.render(rng)

    progress("labelling")
    labels = np.concatenate(
        [planting.clean_labels(n_train, params.spam_rate, rng), planting.clean_labels(n_hold, params.spam_rate, rng)]
    )
    progress("writing messages")
    subjects, bodies = build_messages(labels, params.contamination, pools, rng)

    progress("planting near-duplicates")
    train_sources = planting.duplicate_sources(labels[:n_train], 0, params.dup_rate, rng)
    copyable_train = np.where(train_sources >= 0, -1, labels[:n_train])
    hold_sources = planting.duplicate_sources(
        labels[n_train:], n_train, params.dup_rate, rng, earlier_labels=copyable_train
    )
    sources = np.concatenate([train_sources, hold_sources])
    _apply_near_duplicates(subjects, bodies, sources, rng)

    progress("planting noise, flips and the trap")
    _apply_text_noise(bodies, n_train, 0, params.noise_rate, rng)
    _apply_text_noise(bodies, n_hold, n_train, params.noise_rate, rng)
    flipped = planting.flip_mask(labels[:n_train], params.flip_rate, rng)
    observed = np.where(flipped, 1 - labels[:n_train], labels[:n_train])
    disagree = planting.disagreement_mask(n_train, params.flag_disagreement, rng)
    flagged = np.where(disagree, 1 - observed, observed)

    progress("drawing metadata")
    meta = metadata.build_metadata(labels, params.metadata_signal, rng)
    times = np.concatenate(
        [
            metadata.arrival_times(n_train, metadata.TRAIN_START, metadata.HOLDOUT_START, rng),
            metadata.arrival_times(n_hold, metadata.HOLDOUT_START, metadata.HOLDOUT_END, rng),
        ]
    )
    ids = np.arange(1, n_train + n_hold + 1, dtype=np.int64)
    features = pd.DataFrame(
        {
            "id": ids,
            "subject": subjects,
            "body": bodies,
            "sender": meta.sender,
            "sender_domain_age_days": meta.sender_domain_age_days,
            "n_links": meta.n_links,
            "n_attachments": meta.n_attachments,
            "n_replies": meta.n_replies,
            "received_at": metadata.format_times(times),
            "moderator_flagged": np.concatenate([flagged, np.zeros(n_hold, dtype=np.int64)]),
        }
    )
    train = features.iloc[:n_train].assign(label=observed)
    holdout = features.iloc[n_train:].reset_index(drop=True)
    answers = pd.DataFrame({"id": ids[n_train:], "label": labels[n_train:]})
    dup_of = pd.array(np.where(sources >= 0, sources + 1, 0), dtype="Int64")
    dup_of[sources < 0] = pd.NA
    truth = pd.DataFrame(
        {
            "id": ids,
            "clean_label": labels,
            "flipped": np.concatenate([flipped, np.zeros(n_hold, dtype=bool)]).astype(np.int64),
            "dup_of": dup_of,
        }
    )
    return CorpusTables(train=train, holdout=holdout, holdout_answers=answers, truth=truth)
