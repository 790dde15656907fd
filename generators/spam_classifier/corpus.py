"""Building the corpus tables in memory: labels, text, planted imperfections, metadata, the trap.

The training rows come from the seed alone; the holdout (its rows and labels) from the seed and the
corpus secret (generators.secret), so that public code and a guessed seed cannot reproduce it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from generators.secret import Secret
from generators.spam_classifier import metadata, noise, planting
from generators.spam_classifier.params import CorpusParams
from generators.spam_classifier.text import TextPools, build_messages

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
HIDDEN_PURPOSE = "spam holdout"  # names the secret-keyed stream the holdout is drawn from


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


@dataclass(frozen=True)
class PublicRows:
    """What the seed alone decides: every training row, and the text a hidden near-duplicate may copy.

    The seed's stream also draws a stand-in holdout, exactly as the generator always has, so that the
    training rows (whose draws interleave with the holdout's) stay byte-identical to every earlier corpus
    of the same seed. The stand-in is dropped; the real holdout comes from the seed and the secret.
    """

    labels: np.ndarray  # clean labels of the training rows
    sources: np.ndarray  # the row each training near-duplicate copies (global index), or -1
    subjects: np.ndarray  # final training text
    bodies: np.ndarray
    plain_subjects: np.ndarray  # training text before the noise step: what a near-duplicate copies
    plain_bodies: np.ndarray
    flipped: np.ndarray
    observed: np.ndarray
    flagged: np.ndarray
    meta: metadata.Metadata
    times: np.ndarray


@dataclass(frozen=True)
class HiddenRows:
    """The holdout: drawn from the seed and the secret together."""

    labels: np.ndarray
    sources: np.ndarray  # global index of the row each holdout near-duplicate copies, or -1
    subjects: np.ndarray
    bodies: np.ndarray
    meta: metadata.Metadata
    times: np.ndarray


def _slice_meta(meta: metadata.Metadata, rows: slice) -> metadata.Metadata:
    return metadata.Metadata(*(getattr(meta, name)[rows] for name in metadata.Metadata.__dataclass_fields__))


def draw_public_rows(params: CorpusParams, pools: TextPools, rng: np.random.Generator, progress: Progress) -> PublicRows:
    """The seed's own stream, draw for draw as before secrets existed; keeps the training rows."""
    n_train, n_hold = params.rows, params.holdout_rows
    progress("labelling")
    labels = np.concatenate(
        [planting.clean_labels(n_train, params.spam_rate, rng), planting.clean_labels(n_hold, params.spam_rate, rng)]
    )
    progress("writing messages")
    subjects, bodies = build_messages(labels, params.contamination, pools, rng)

    progress("planting near-duplicates")
    train_sources = planting.duplicate_sources(labels[:n_train], 0, params.dup_rate, rng)
    copyable_train = np.where(train_sources >= 0, -1, labels[:n_train])
    stand_in_sources = planting.duplicate_sources(
        labels[n_train:], n_train, params.dup_rate, rng, earlier_labels=copyable_train
    )
    _apply_near_duplicates(subjects, bodies, np.concatenate([train_sources, stand_in_sources]), rng)
    plain_subjects, plain_bodies = subjects[:n_train].copy(), bodies[:n_train].copy()

    progress("planting noise, flips and the trap")
    _apply_text_noise(bodies, n_train, 0, params.noise_rate, rng)
    _apply_text_noise(bodies, n_hold, n_train, params.noise_rate, rng)
    flipped = planting.flip_mask(labels[:n_train], params.flip_rate, rng)
    observed = np.where(flipped, 1 - labels[:n_train], labels[:n_train])
    disagree = planting.disagreement_mask(n_train, params.flag_disagreement, rng)
    flagged = np.where(disagree, 1 - observed, observed)

    progress("drawing metadata")
    meta = metadata.build_metadata(labels, params.metadata_signal, rng)
    times = metadata.arrival_times(n_train, metadata.TRAIN_START, metadata.HOLDOUT_START, rng)
    return PublicRows(
        labels=labels[:n_train], sources=train_sources, subjects=subjects[:n_train], bodies=bodies[:n_train],
        plain_subjects=plain_subjects, plain_bodies=plain_bodies, flipped=flipped, observed=observed,
        flagged=flagged, meta=_slice_meta(meta, slice(0, n_train)), times=times,
    )


def draw_hidden_rows(
    params: CorpusParams, pools: TextPools, public: PublicRows, rng: np.random.Generator, progress: Progress
) -> HiddenRows:
    """The holdout from the secret-keyed stream, made the same way as the training rows (same pools, same
    planted rates, half its near-duplicates copying training originals)."""
    n_train, n_hold = params.rows, params.holdout_rows
    progress("drawing the hidden holdout")
    labels = planting.clean_labels(n_hold, params.spam_rate, rng)
    subjects, bodies = build_messages(labels, params.contamination, pools, rng)
    copyable_train = np.where(public.sources >= 0, -1, public.labels)
    sources = planting.duplicate_sources(labels, n_train, params.dup_rate, rng, earlier_labels=copyable_train)
    all_subjects = np.concatenate([public.plain_subjects, subjects])
    all_bodies = np.concatenate([public.plain_bodies, bodies])
    _apply_near_duplicates(all_subjects, all_bodies, np.concatenate([np.full(n_train, -1), sources]), rng)
    subjects, bodies = all_subjects[n_train:], all_bodies[n_train:]
    _apply_text_noise(bodies, n_hold, 0, params.noise_rate, rng)
    meta = metadata.build_metadata(labels, params.metadata_signal, rng)
    times = metadata.arrival_times(n_hold, metadata.HOLDOUT_START, metadata.HOLDOUT_END, rng)
    return HiddenRows(labels=labels, sources=sources, subjects=subjects, bodies=bodies, meta=meta, times=times)


def _features(ids: np.ndarray, subjects, bodies, meta: metadata.Metadata, times, flagged) -> pd.DataFrame:
    return pd.DataFrame(
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
            "moderator_flagged": flagged,
        }
    )


def build_tables(params: CorpusParams, secret: Secret, progress: Progress = no_progress) -> CorpusTables:
    """Every table of the corpus: the training rows from the seed, the holdout from the seed and `secret`."""
    n_train, n_hold = params.rows, params.holdout_rows
    rng = np.random.default_rng(params.seed)
    progress("rendering text pools")
    pools = TextPools.render(rng)
    public = draw_public_rows(params, pools, rng, progress)
    hidden_rng = np.random.default_rng(secret.seed_sequence(params.seed, HIDDEN_PURPOSE))
    hidden = draw_hidden_rows(params, pools, public, hidden_rng, progress)

    train_ids = np.arange(1, n_train + 1, dtype=np.int64)
    hold_ids = np.arange(n_train + 1, n_train + n_hold + 1, dtype=np.int64)
    train = _features(train_ids, public.subjects, public.bodies, public.meta, public.times, public.flagged)
    train = train.assign(label=public.observed)
    holdout = _features(hold_ids, hidden.subjects, hidden.bodies, hidden.meta, hidden.times,
                        np.zeros(n_hold, dtype=np.int64))
    answers = pd.DataFrame({"id": hold_ids, "label": hidden.labels})
    sources = np.concatenate([public.sources, hidden.sources])
    dup_of = pd.array(np.where(sources >= 0, sources + 1, 0), dtype="Int64")
    dup_of[sources < 0] = pd.NA
    truth = pd.DataFrame(
        {
            "id": np.concatenate([train_ids, hold_ids]),
            "clean_label": np.concatenate([public.labels, hidden.labels]),
            "flipped": np.concatenate([public.flipped, np.zeros(n_hold, dtype=bool)]).astype(np.int64),
            "dup_of": dup_of,
        }
    )
    return CorpusTables(train=train, holdout=holdout, holdout_answers=answers, truth=truth)
