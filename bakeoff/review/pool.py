"""Reviews pooled across nights: one row per reviewer (by its model file's sha256, else its spec) and item set,
its figures recomputed from every answer of every review folder it has, and what they cost together.

Reviews of different item sets are different rows: a figure on other items is another measurement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bakeoff.batchfolder.layout import ReviewLayout
from bakeoff.review.items import OK, PROBLEM
from bakeoff.review.metrics import youden
from bakeoff.review.records import AnswerRecord, ReviewSummary, read_answer_lines, read_summary


@dataclass(frozen=True)
class ReviewFolderRecords:
    folder: Path
    summary: ReviewSummary
    answers: tuple[AnswerRecord, ...]


@dataclass(frozen=True)
class PooledReview:
    model: str
    identity: str
    items_sha256: str | None
    folders: tuple[str, ...]
    answers: int
    graded: int
    accuracy: float | None
    problem_recall: float | None
    ok_specificity: float | None
    youden_j: float | None
    prompt_tokens: int
    completion_tokens: int
    model_seconds: float
    wall_seconds: float | None  # summed over the folders that recorded it

    @property
    def tokens_per_s(self) -> float | None:
        return self.completion_tokens / self.model_seconds if self.model_seconds > 0 else None


def is_review_folder(path: Path) -> bool:
    return ReviewLayout(path).summary.is_file()


def read_review_folder(folder: Path) -> ReviewFolderRecords:
    """A finished review folder's summary and answers (a damaged one refused by name: ReviewRecordDamaged)."""
    layout = ReviewLayout(folder)
    answers, unreadable = read_answer_lines(layout.answers)
    if unreadable:
        from bakeoff.review.records import ReviewRecordDamaged

        raise ReviewRecordDamaged(f"{folder} cannot be pooled: {'; '.join(unreadable[:3])}")
    return ReviewFolderRecords(folder, read_summary(layout.summary), answers)


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _pooled(group: Sequence[ReviewFolderRecords]) -> PooledReview:
    answers = [a for review in group for a in review.answers]
    graded = [a for a in answers if a.graded]
    recall = _share([bool(a.correct) for a in graded if a.expected == PROBLEM])
    specificity = _share([bool(a.correct) for a in graded if a.expected == OK])
    walls = [r.summary.cost.wall_seconds for r in group if r.summary.cost is not None and r.summary.cost.wall_seconds]
    first = group[0].summary
    return PooledReview(
        model=" / ".join(dict.fromkeys(r.summary.model for r in group)), identity=first.identity,
        items_sha256=first.items_sha256, folders=tuple(str(r.folder) for r in group), answers=len(answers),
        graded=len(graded), accuracy=_share([bool(a.correct) for a in graded]), problem_recall=recall,
        ok_specificity=specificity, youden_j=youden(recall, specificity),
        prompt_tokens=sum(a.prompt_tokens for a in answers), completion_tokens=sum(a.completion_tokens for a in answers),
        model_seconds=sum(a.prompt_seconds + a.generation_seconds for a in answers),
        wall_seconds=sum(walls) if walls else None,
    )


def pool_reviews(reviews: Sequence[ReviewFolderRecords]) -> tuple[PooledReview, ...]:
    """One row per (reviewer, item set), best Youden's J first (rows with none last)."""
    groups: dict[tuple[str, str | None], list[ReviewFolderRecords]] = {}
    for review in reviews:
        groups.setdefault((review.summary.identity, review.summary.items_sha256), []).append(review)
    rows = [_pooled(group) for group in groups.values()]
    return tuple(sorted(rows, key=lambda r: (r.youden_j is None, -(r.youden_j or 0.0))))
