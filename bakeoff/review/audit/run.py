"""Running the readers on a bank, each scored only on items it did not learn from, against the bounds.

Protocols:
  halves                  pairs split in two at random; learn on one half, answer the other, both ways, for each
                          of HALF_SEEDS splits (each split answers every item once: one "sample" per split)
  leave-one-template-out  every pair template in turn: learn on the others, answer its pairs
  leave-pair-out          `baseline:cues`' own protocol: each item answered by a reader trained without its pair
  as published            readers that learn nothing (order, dead code) answer the whole file as it is
  trained on the bank     real items, answered by readers that learned from the whole bank (the others: as published)

A bank passes when every reader on it has accuracy <= ACCURACY_BOUND, pair
accuracy <= PAIR_BOUND, and on every family's pairs Youden's J <= FAMILY_J_BOUND or a J that chance
reaches at the family's pair count (a reader may not read one family even when the others hide it overall).
"Chance reaches" is judged by J's exact null (bakeoff.review.audit.chance): a family cell fails when its J is past
FAMILY_J_BOUND and a reader blind to which twin is flawed reaches that J with probability below FAMILY_CHANCE.
With 10 pairs a family's J at chance has standard deviation 0.32 for a contrastive reader, so 0.3 alone
would fail a blind reader's cell one time in six; the chance test keeps 0.3 where the pairs are enough to
tell it from noise and asks for more where they are not. A contrastive reader (one that gives the twins of a pair
opposite verdicts by construction, like "the twin that comes first is sound")
has pair accuracy equal to its accuracy, 0.5 at chance; it is held to the
accuracy bound alone, and the bank is built so that it scores exactly 0.5.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bakeoff.models.base import Completion
from bakeoff.review.audit.chance import chance_at_least, pair_terms
from bakeoff.review.audit.compression import CompressionReader
from bakeoff.review.audit.features import FeatureReader
from bakeoff.review.audit.ngrams import MinedRulesReader
from bakeoff.review.audit.surface import AdjacentTwinReader, DeadCodeReader, FirstSeenReader, ParityReader
from bakeoff.review.audit.view import Example, Reader, Visible, examples, visible
from bakeoff.review.grading import grade
from bakeoff.review.items import FAMILIES, OK, PROBLEM, ReviewItem
from bakeoff.review.metrics import ReviewMetrics, compute_metrics

ACCURACY_BOUND = 0.62
PAIR_BOUND = 0.25
FAMILY_J_BOUND = 0.3
# 0.05 shared over the families a reader's row is judged on (Bonferroni): a clean bank fails one reader's row by
# chance at most one time in twenty. Where the null moves in coarse steps a cell's real size is smaller (a
# contrastive reader answering 10 pairs once fails only at 10 of 10, which chance gives 1 time in 1024).
FAMILY_CHANCE = 0.05 / len(FAMILIES)
_ROUNDING = 1e-9  # a J of exactly the bound, computed in floating point, is within it
HALF_SEEDS = (0, 1, 2, 3, 4)
LEARNING: tuple[Callable[[], Reader], ...] = (MinedRulesReader, FeatureReader, CompressionReader)
# Positions mean nothing across templates: the parity reader learns on halves only.
POSITIONAL: tuple[Callable[[], Reader], ...] = (ParityReader,)
FIXED: tuple[Callable[[], Reader], ...] = (AdjacentTwinReader, FirstSeenReader, DeadCodeReader)


@dataclass(frozen=True)
class AuditRow:
    items: str  # "bank" or "real"
    reader: str
    protocol: str
    contrastive: bool
    metrics: ReviewMetrics
    worst: tuple[float | None, float | None] = (None, None)  # halves: the highest accuracy and pair accuracy of one split
    # family -> the probability that a reader blind to which twin is flawed reaches this row's J on its pairs
    # (a family missing here is held to FAMILY_J_BOUND alone)
    chance: dict[str, float] = field(default_factory=dict)

    @property
    def families_over(self) -> tuple[str, ...]:
        """The families on whose pairs this reader's Youden's J passes FAMILY_J_BOUND by more than chance allows
        (the bank only: the real items hold 1 to 4 pairs of a family, where J moves in steps of 0.25 to 1)."""
        if self.items != "bank":
            return ()
        return tuple(f.family for f in self.metrics.per_family
                     if f.youden_j is not None and f.youden_j > FAMILY_J_BOUND + _ROUNDING
                     and (self.chance[f.family] if f.family in self.chance else 0.0) < FAMILY_CHANCE)

    @property
    def within_bounds(self) -> bool:
        accuracy, pairs = self.metrics.accuracy, self.metrics.pair_accuracy
        return (accuracy is None or accuracy <= ACCURACY_BOUND) and (
            self.contrastive or pairs is None or pairs <= PAIR_BOUND) and not self.families_over

    def to_dict(self) -> dict:
        m = self.metrics
        return {"items": self.items, "reader": self.reader, "protocol": self.protocol, "contrastive": self.contrastive,
                "within_bounds": self.within_bounds, "answers": m.answers, "accuracy": m.accuracy,
                "pair_accuracy": m.pair_accuracy, "pairs_scored": m.pairs_scored, "problem_recall": m.problem_recall,
                "ok_specificity": m.ok_specificity, "youden_j": m.youden_j,
                "worst_split": {"accuracy": self.worst[0], "pair_accuracy": self.worst[1]},
                "youden_j_per_family": {f.family: f.youden_j for f in m.per_family},
                "chance_per_family": dict(self.chance),
                "families_over": list(self.families_over)}


class CuesReader:
    """`baseline:cues` as an audit reader: its keyword rules, then its bag of words trained leave-pair-out on `bank`."""

    name = "baseline:cues"
    contrastive = False

    def __init__(self, bank: Sequence[ReviewItem]) -> None:
        from bakeoff.review.cues import CuesBackend

        self._backend = CuesBackend(bank)

    def fit(self, examples: Sequence[Example]) -> None:
        pass

    def answer(self, items: Sequence[Visible], file: Sequence[Visible]) -> list[bool]:
        return [self._backend.judge(item.claim, item.code)[0] == PROBLEM for item in items]


def score(items: Sequence[ReviewItem], *runs: dict[str, bool]) -> ReviewMetrics:
    """The review metrics of the verdicts (run k is sample k), graded as any model's answers are."""
    answers = []
    for sample, problem in enumerate(runs):
        for item in items:
            text = f"VERDICT: {PROBLEM if problem[item.id] else OK}\nLINE: none\nCONFIDENCE: 100\nREASON: audit reader"
            completion = Completion(text=text, finish_reason="stop", prompt_tokens=0, completion_tokens=0,
                                    prompt_seconds=0.0, generation_seconds=0.0, backend="audit")
            answers.append(grade(item, sample, f"audit/{item.id}#{sample + 1}", completion))
    return compute_metrics(items, answers)


def audit_row(items_name: str, reader: Reader, protocol: str, items: Sequence[ReviewItem], *runs: dict[str, bool],
        worst: tuple[float | None, float | None] = (None, None)) -> AuditRow:
    """One reader's row: its metrics over the runs, and what chance allows it on each family."""
    chance = {family: chance_at_least(pair_terms(items, runs, family)) for family in FAMILIES}
    return AuditRow(items_name, reader.name, protocol, reader.contrastive, score(items, *runs), worst, chance)


def _held_out(make: Callable[[], Reader], items: Sequence[ReviewItem], folds: Sequence[set[str]],
              seen: dict[str, Visible]) -> tuple[Reader, dict[str, bool]]:
    """Each fold answered by a fresh reader trained on every item outside it."""
    file = sorted(seen.values(), key=lambda v: v.position)
    answered: dict[str, bool] = {}
    reader = make()
    for fold in folds:
        reader = make()
        reader.fit(examples([i for i in items if i.id not in fold], seen))
        held = [i for i in items if i.id in fold]
        answered.update(zip((i.id for i in held), reader.answer([seen[i.id] for i in held], file), strict=True))
    return reader, answered


def halves(items: Sequence[ReviewItem], seed: int) -> list[set[str]]:
    """Item ids of two halves of the pairs (an item without a twin is a pair of its own), seeded."""
    groups = sorted({item.pair_id or item.id for item in items})
    random.Random(seed).shuffle(groups)
    first = set(groups[: len(groups) // 2])
    a = {item.id for item in items if (item.pair_id or item.id) in first}
    return [a, {item.id for item in items} - a]


def templates(items: Sequence[ReviewItem]) -> list[set[str]]:
    groups: dict[str, set[str]] = {}
    for item in items:
        groups.setdefault(item.template or item.pair_id or item.id, set()).add(item.id)
    return [groups[name] for name in sorted(groups)]


def audit_bank(bank: Sequence[ReviewItem], seeds: Sequence[int] = HALF_SEEDS) -> list[AuditRow]:
    seen = visible(bank)
    file = sorted(seen.values(), key=lambda v: v.position)
    rows = []
    for reader in (CuesReader(bank), *(make() for make in FIXED)):
        protocol = "leave-pair-out" if isinstance(reader, CuesReader) else "as published"
        answered = dict(zip((i.id for i in bank), reader.answer([seen[i.id] for i in bank], file), strict=True))
        rows.append(audit_row("bank", reader, protocol, bank, answered))
    for make in (*LEARNING, *POSITIONAL):
        runs = [_held_out(make, bank, halves(bank, seed), seen)[1] for seed in seeds]
        each = [score(bank, run) for run in runs]
        worst = (max(m.accuracy or 0.0 for m in each), max(m.pair_accuracy or 0.0 for m in each))
        rows.append(audit_row("bank", make(), f"halves ({len(runs)} splits, both ways)", bank, *runs, worst=worst))
        if make in LEARNING:
            reader, answered = _held_out(make, bank, templates(bank), seen)
            rows.append(audit_row("bank", reader, "leave-one-template-out", bank, answered))
    return rows


def audit_real(bank: Sequence[ReviewItem], real: Sequence[ReviewItem]) -> list[AuditRow]:
    """Every reader, having learned from the whole bank, on the real items in their own file's order."""
    bank_seen, real_seen = visible(bank), visible(real)
    file = sorted(real_seen.values(), key=lambda v: v.position)
    rows = []
    readers: list[Reader] = [CuesReader(bank), *(make() for make in (*FIXED, *LEARNING, *POSITIONAL))]
    for reader in readers:
        reader.fit(examples(bank, bank_seen))
        answered = dict(zip((i.id for i in real), reader.answer([real_seen[i.id] for i in real], file), strict=True))
        learns = type(reader) not in FIXED
        rows.append(audit_row("real", reader, "trained on the bank" if learns else "as published", real, answered))
    return rows
