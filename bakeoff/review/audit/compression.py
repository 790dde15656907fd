"""A compression-distance reader: which class's code does this code compress best with?

No tokens, no features: the normalised compression distance (zlib, taken both
ways round and averaged) from an item's code to every training item's, averaged
over each class. An item closer to the PROBLEM items than to the OK items leans
PROBLEM. The reader is contrastive: twins share their claim word for word, so
of two items with one claim the one that leans further towards PROBLEM is
answered PROBLEM and the other OK (an item alone with its claim is answered by
its own lean). Twins differ only around the flaw, so the contrast reads exactly
the text a flaw adds; when a template's flawed twins repeat that text, this
reader finds it in the pairs it learned from.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Sequence

from bakeoff.review.audit.view import Example, Visible

LEVEL = 9


@functools.lru_cache(maxsize=65536)
def _size(text: str) -> int:
    return len(zlib.compress(text.encode("utf-8"), LEVEL))


def distance(a: str, b: str) -> float:
    """Normalised compression distance: near 0 for texts that say the same, near 1 for unrelated ones.

    zlib reads a concatenation in one direction, so both orders are taken and averaged (the stronger
    reader on the v3 bank: halves 0.671 against 0.642 for one order)."""
    small, large = sorted((_size(a), _size(b)))
    return (_size(a + "\n" + b) + _size(b + "\n" + a) - 2 * small) / (2 * large)


def _mean_distance(code: str, others: Sequence[str]) -> float:
    return sum(distance(code, other) for other in others) / len(others) if others else 1.0


class CompressionReader:
    name = "compression distance (zlib, twins contrasted)"
    contrastive = True

    def __init__(self) -> None:
        self._problem: list[str] = []
        self._ok: list[str] = []

    def fit(self, examples: Sequence[Example]) -> None:
        self._problem = [e.visible.code for e in examples if e.problem]
        self._ok = [e.visible.code for e in examples if not e.problem]

    def lean(self, code: str) -> float:
        """Positive when the code sits nearer the PROBLEM items it learned from than the OK ones."""
        return _mean_distance(code, self._ok) - _mean_distance(code, self._problem)

    def answer(self, items: Sequence[Visible], file: Sequence[Visible]) -> list[bool]:
        leans = [self.lean(item.code) for item in items]
        by_claim: dict[str, list[int]] = {}
        for index, item in enumerate(items):
            by_claim.setdefault(item.claim, []).append(index)
        verdicts = [lean > 0 for lean in leans]
        for members in by_claim.values():
            if len(members) == 2:
                first, second = members
                verdicts[first] = leans[first] > leans[second]
                verdicts[second] = not verdicts[first]
        return verdicts
