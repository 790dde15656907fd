"""Which rows get which planted imperfection: exact counts, chosen with the seeded Generator.

Counts are exact (round(rate * rows)) rather than per-row coin flips, so the
measured rates sit on the requested ones up to rounding.
"""

from __future__ import annotations

import numpy as np


def exact_count(rate: float, rows: int) -> int:
    return int(round(rate * rows))


def choose_rows(candidates: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` distinct entries of `candidates`, sorted."""
    if count <= 0 or candidates.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    return np.sort(rng.choice(candidates, size=min(count, candidates.shape[0]), replace=False))


def clean_labels(rows: int, spam_rate: float, rng: np.random.Generator) -> np.ndarray:
    """0/1 labels with exactly round(spam_rate * rows) spam rows, in random order."""
    labels = np.zeros(rows, dtype=np.int64)
    labels[choose_rows(np.arange(rows), exact_count(spam_rate, rows), rng)] = 1
    return labels


def flip_mask(labels: np.ndarray, flip_rate: float, rng: np.random.Generator) -> np.ndarray:
    """Rows whose observed label is flipped: as many spam-to-ham as ham-to-spam, so the spam rate stays."""
    per_direction = exact_count(flip_rate, labels.shape[0]) // 2
    mask = np.zeros(labels.shape[0], dtype=bool)
    for value in (0, 1):
        mask[choose_rows(np.flatnonzero(labels == value), per_direction, rng)] = True
    return mask


def _pick_sources(targets: np.ndarray, pool: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each target position, a random earlier entry of the sorted `pool` (any entry if none is earlier)."""
    earlier = np.searchsorted(pool, targets)
    available = np.where(earlier > 0, earlier, pool.shape[0])
    return pool[(rng.random(targets.shape[0]) * available).astype(np.int64)]


def duplicate_sources(
    labels: np.ndarray,
    offset: int,
    dup_rate: float,
    rng: np.random.Generator,
    earlier_labels: np.ndarray | None = None,
    earlier_share: float = 0.5,
) -> np.ndarray:
    """The row each near-duplicate copies (global index), or -1; one entry per row of this split.

    Rows are in arrival order and `offset` is this split's first global index. A
    near-duplicate copies an earlier original (never another duplicate) with the
    same clean label. With `earlier_labels` (the split before this one, at global
    indices 0.., with -1 marking rows that may not be copied), a share of the
    duplicates copy rows of that split instead.
    """
    rows = labels.shape[0]
    dup_rows = choose_rows(np.arange(rows), exact_count(dup_rate, rows), rng)
    is_dup = np.zeros(rows, dtype=bool)
    is_dup[dup_rows] = True
    from_earlier = np.zeros(dup_rows.shape[0], dtype=bool)
    if earlier_labels is not None:
        from_earlier = np.asarray(rng.random(dup_rows.shape[0]) < earlier_share)
    sources = np.full(rows, -1, dtype=np.int64)
    for value in (0, 1):
        own = dup_rows[(labels[dup_rows] == value) & ~from_earlier]
        originals = np.flatnonzero((labels == value) & ~is_dup)
        sources[own] = _pick_sources(own, originals, rng) + offset
        if earlier_labels is not None:
            borrowed = dup_rows[(labels[dup_rows] == value) & from_earlier]
            earlier_pool = np.flatnonzero(earlier_labels == value)
            sources[borrowed] = earlier_pool[rng.integers(0, earlier_pool.shape[0], borrowed.shape[0])]
    return sources


def disagreement_mask(rows: int, rate: float, rng: np.random.Generator) -> np.ndarray:
    mask = np.zeros(rows, dtype=bool)
    mask[choose_rows(np.arange(rows), exact_count(rate, rows), rng)] = True
    return mask
