"""What an audit reader is given: the visible part of an item, and labels only for training.

A reader never holds a ReviewItem: it gets `Visible` records (claim, code,
position in the file) to answer, and `Example`s (a visible record with its
verdict and pair) to learn from, so no reader can peek at a key field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bakeoff.review.items import ReviewItem


@dataclass(frozen=True)
class Visible:
    claim: str
    code: str
    position: int  # 0-based, in the items file as it is published


@dataclass(frozen=True)
class Example:
    """A training item: what a reviewer sees, its label, and its pair (the mined rules compare twins)."""

    visible: Visible
    problem: bool
    pair_id: str | None


class Reader(Protocol):
    """A reviewer without understanding. `fit` may be a no-op; `answer` returns True for PROBLEM."""

    name: str
    contrastive: bool  # gives the two twins of a pair opposite verdicts by construction (see bakeoff.review.audit.run)

    def fit(self, examples: Sequence[Example]) -> None: ...

    def answer(self, items: Sequence[Visible], file: Sequence[Visible]) -> list[bool]: ...


def visible(items: Sequence[ReviewItem]) -> dict[str, Visible]:
    """item id -> its visible record, positions taken from `items` in file order."""
    return {item.id: Visible(item.claim, item.code, position) for position, item in enumerate(items)}


def examples(items: Sequence[ReviewItem], seen: dict[str, Visible]) -> list[Example]:
    return [Example(seen[item.id], item.is_problem, item.pair_id) for item in items]
