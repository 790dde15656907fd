"""Rules mined mechanically from the n-grams the flawed twins add.

For every training pair, the token n-grams (1 to 3 tokens, within a line, numbers
folded to one token) that the flawed twin has and its sound twin lacks are the
candidates. A candidate seen added in at least MIN_SUPPORT pairs becomes a rule
"this n-gram present -> PROBLEM"; rules are taken greedily, best training
accuracy first, while each one raises the training accuracy of the rule list.
This is the reader a benchmark auditor writes first: if a bank's flawed twins
share a phrase, these rules find it.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence

from bakeoff.review.audit.view import Example, Visible

MAX_N = 5
MIN_SUPPORT = 1  # pairs in which the flawed twin adds the n-gram
MIN_PRECISION = 0.85  # of the training items holding the n-gram, the share that are PROBLEM
MAX_RULES = 30
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|[^\sA-Za-z0-9_]")
_NUMBER = re.compile(r"\d")


_ROLES = (("test", "<test>"), ("train", "<train>"), ("val", "<val>"), ("fit", "<fit>"))


def tokens(line: str) -> list[str]:
    """A line's tokens, numbers folded to 0, after a marker of where the line starts (top level or indented)."""
    start = "<in>" if line[:1].isspace() else "<top>"
    return [start, *("0" if _NUMBER.match(token) else token for token in _TOKEN.findall(line))]


def roles(words: list[str]) -> list[str]:
    """The same tokens with a variable named for a split replaced by its role: X_test, y_test, test -> <test>."""
    out = []
    for word in words:
        role = next((r for part, r in _ROLES if part in word.lower() and word.isidentifier()), None)
        out.append(role or word)
    return out


@functools.lru_cache(maxsize=4096)
def ngrams(code: str) -> frozenset[str]:
    grams: set[str] = set()
    for line in code.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        raw = tokens(line)
        for words in (raw, roles(raw)):
            for n in range(1, MAX_N + 1):
                grams.update(" ".join(words[i:i + n]) for i in range(len(words) - n + 1))
        # Two words on one line, in any order and at any distance: "y_test" on an indented line, "fit" with "df".
        named = sorted({w for w in (*raw, *roles(raw)) if w.isidentifier() or w.startswith("<")})
        grams.update(f"{a} & {b}" for i, a in enumerate(named) for b in named[i + 1:])
    return frozenset(grams)


class MinedRulesReader:
    name = "mined n-gram rules"
    contrastive = False

    def __init__(self) -> None:
        self.rules: tuple[str, ...] = ()

    def fit(self, examples: Sequence[Example]) -> None:
        grams = [ngrams(e.visible.code) for e in examples]
        labels = [e.problem for e in examples]
        support: Counter[str] = Counter()
        twins: dict[str, dict[bool, frozenset[str]]] = {}
        for example, found in zip(examples, grams, strict=True):
            if example.pair_id is not None:
                twins.setdefault(example.pair_id, {})[example.problem] = found
        for pair in twins.values():
            if True in pair and False in pair:
                support.update(pair[True] - pair[False])
        candidates = [g for g, count in support.items() if count >= MIN_SUPPORT and _precision(g, grams, labels) >= MIN_PRECISION]
        self.rules = _greedy(candidates, grams, labels)

    def answer(self, items: Sequence[Visible], file: Sequence[Visible]) -> list[bool]:
        return [bool(self.rules) and any(rule in ngrams(item.code) for rule in self.rules) for item in items]


def _precision(gram: str, grams: list[frozenset[str]], labels: list[bool]) -> float:
    holding = [label for found, label in zip(grams, labels, strict=True) if gram in found]
    return sum(holding) / len(holding)


def _greedy(candidates: list[str], grams: list[frozenset[str]], labels: list[bool]) -> tuple[str, ...]:
    """Rules added one at a time, each the one that raises training accuracy most (ties: the shorter n-gram).

    Item sets are bit masks (bit i: item i), so a trial is one OR and two bit counts.
    """
    everyone = (1 << len(labels)) - 1
    problems = sum(1 << i for i, label in enumerate(labels) if label)
    masks = {gram: sum(1 << i for i, found in enumerate(grams) if gram in found) for gram in candidates}

    def correct(fired: int) -> int:
        return (fired & problems).bit_count() + (~fired & everyone & ~problems).bit_count()

    fired, chosen = 0, []
    best_so_far = correct(fired)
    for _ in range(MAX_RULES):
        scored = [(correct(fired | mask), -len(gram), gram) for gram, mask in masks.items()]
        if not scored:
            break
        score, _, gram = max(scored)
        if score <= best_so_far:
            break
        chosen.append(gram)
        fired, best_so_far = fired | masks.pop(gram), score
    return tuple(chosen)
