"""The review metrics, computed from graded answers.

Every answer is one sample of one item. Uncaptured answers are counted and
left out of everything else; unusable answers are graded as wrong (they have
no verdict). A metric with nothing to compute is None (null in JSON).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bakeoff.records.enums import CaptureStatus
from bakeoff.review.grading import ItemAnswer
from bakeoff.review.items import FAMILIES, OK, PROBLEM, ReviewItem, group_pairs


@dataclass(frozen=True)
class FamilyMetrics:
    family: str
    answers: int  # graded answers to this family's PROBLEM items
    recall: float | None
    localization: float | None
    # On the OK twins of this family's pairs (OK items carry no family of their own).
    specificity: float | None = None
    youden_j: float | None = None  # recall + specificity - 1: 0 for any answer-blind rule, 1 for a perfect reviewer


@dataclass(frozen=True)
class ReviewMetrics:
    items: int
    answers: int  # every sample asked
    captured: int
    uncaptured: int
    unusable: int
    accuracy: float | None
    problem_recall: float | None
    ok_specificity: float | None
    youden_j: float | None  # problem_recall + ok_specificity - 1: punishes crying wolf and gullibility alike
    pair_accuracy: float | None
    pairs_scored: int  # (pair, sample) combinations where both twins were graded
    localization: float | None
    brier: float | None
    brier_answers: int  # usable answers that gave a verdict and a confidence
    agreement: float | None  # None unless some item has two or more graded samples
    per_family: tuple[FamilyMetrics, ...]
    uncaptured_reasons: dict[str, int]
    unusable_reasons: dict[str, int]

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data["per_family"] = {entry["family"]: entry for entry in data["per_family"]}
        for entry in data["per_family"].values():
            del entry["family"]
        return data


def _share(flags: Iterable[bool]) -> float | None:
    values = list(flags)
    return sum(values) / len(values) if values else None


def _pair_accuracy(items: Sequence[ReviewItem], graded: Sequence[ItemAnswer]) -> tuple[float | None, int]:
    """Both twins right, per sample index (sample k of one twin meets sample k of the other)."""
    by_key = {(answer.item_id, answer.sample): answer for answer in graded}
    outcomes = []
    for ok_twin, problem_twin in group_pairs(items).values():
        samples = {s for (item_id, s) in by_key if item_id == ok_twin.id}
        for sample in sorted(samples):
            partner = by_key.get((problem_twin.id, sample))
            if partner is not None:
                outcomes.append(bool(by_key[(ok_twin.id, sample)].correct and partner.correct))
    return _share(outcomes), len(outcomes)


def _brier(items_by_id: dict[str, ReviewItem], graded: Sequence[ItemAnswer]) -> tuple[float | None, int]:
    errors = []
    for answer in graded:
        p_problem = answer.p_problem()
        if p_problem is not None:
            outcome = 1.0 if items_by_id[answer.item_id].verdict == PROBLEM else 0.0
            errors.append((p_problem - outcome) ** 2)
    return (sum(errors) / len(errors) if errors else None), len(errors)


def _agreement(graded: Sequence[ItemAnswer]) -> float | None:
    """Per item, the share of its samples giving the most common verdict (no verdict counts as one); averaged."""
    verdicts: dict[str, list[str | None]] = {}
    for answer in graded:
        verdicts.setdefault(answer.item_id, []).append(answer.graded_verdict)
    shares = [
        Counter(given).most_common(1)[0][1] / len(given) for given in verdicts.values() if len(given) >= 2
    ]
    return sum(shares) / len(shares) if shares else None


def youden(recall: float | None, specificity: float | None) -> float | None:
    return None if recall is None or specificity is None else recall + specificity - 1.0


def _ok_twin_family(items_by_id: dict[str, ReviewItem]) -> dict[str, str]:
    """OK item id -> the family of its PROBLEM twin."""
    return {ok.id: bad.family for ok, bad in group_pairs(items_by_id.values()).values() if bad.family}


def _family_metrics(items_by_id: dict[str, ReviewItem], graded: Sequence[ItemAnswer]) -> tuple[FamilyMetrics, ...]:
    rows = []
    twin_family = _ok_twin_family(items_by_id)
    for family in FAMILIES:
        answers = [a for a in graded if items_by_id[a.item_id].family == family]
        on_twins = [a for a in graded if twin_family.get(a.item_id) == family]
        recall = _share(bool(a.correct) for a in answers)
        specificity = _share(bool(a.correct) for a in on_twins)
        rows.append(
            FamilyMetrics(
                family=family,
                answers=len(answers),
                recall=recall,
                localization=_share(bool(a.localized) for a in answers if a.localized is not None),
                specificity=specificity,
                youden_j=youden(recall, specificity),
            )
        )
    return tuple(rows)


def compute_metrics(items: Sequence[ReviewItem], answers: Sequence[ItemAnswer]) -> ReviewMetrics:
    items_by_id = {item.id: item for item in items}
    graded = [answer for answer in answers if answer.graded]
    on_problems = [a for a in graded if items_by_id[a.item_id].verdict == PROBLEM]
    on_oks = [a for a in graded if items_by_id[a.item_id].verdict == OK]
    pair_accuracy, pairs_scored = _pair_accuracy(items, graded)
    brier, brier_answers = _brier(items_by_id, graded)
    recall = _share(bool(a.correct) for a in on_problems)
    specificity = _share(bool(a.correct) for a in on_oks)
    return ReviewMetrics(
        items=len(items),
        answers=len(answers),
        captured=sum(a.capture == CaptureStatus.CAPTURED for a in answers),
        uncaptured=sum(a.capture == CaptureStatus.UNCAPTURED for a in answers),
        unusable=sum(a.capture == CaptureStatus.UNUSABLE for a in answers),
        accuracy=_share(bool(a.correct) for a in graded),
        problem_recall=recall,
        ok_specificity=specificity,
        youden_j=youden(recall, specificity),
        pair_accuracy=pair_accuracy,
        pairs_scored=pairs_scored,
        localization=_share(bool(a.localized) for a in graded if a.localized is not None),
        brier=brier,
        brier_answers=brier_answers,
        agreement=_agreement(graded),
        per_family=_family_metrics(items_by_id, graded),
        uncaptured_reasons=dict(Counter(a.capture_reason for a in answers if a.capture == CaptureStatus.UNCAPTURED)),
        unusable_reasons=dict(Counter(a.capture_reason for a in answers if a.capture == CaptureStatus.UNUSABLE)),
    )
