"""The claim-review sections: one row per review result found in the batch folder, and what each cost.

A result folder is what `bakeoff review --out DIR` writes (docs/review.md); the report reads its review.json
as a typed record (bakeoff.review.records.ReviewSummary) and shows the headline cuts, each flaw family's
recall and, for reviews that recorded it, the cost in the take-homes' words. Figures it lacks show as blanks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bakeoff.report.tables import Column, Table
from bakeoff.review.pool import PooledReview
from bakeoff.review.records import ReviewNumbers, ReviewSummary, summary_from

REVIEW_FIELDS = (
    ("accuracy", "pct"),
    ("problem_recall", "pct"),
    ("ok_specificity", "pct"),
    ("youden_j", "f3"),
    ("pair_accuracy", "pct"),
    ("localization", "pct"),
    ("brier", "f3"),
    ("captured", "int"),
    ("uncaptured", "int"),
    ("unusable", "int"),
)
BASELINE_LABEL = "baseline:cues (reading without understanding)"
Reviews = Sequence[tuple[str, ReviewSummary]]


def typed_reviews(found: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[tuple[str, ReviewSummary], ...]:
    """The batch folder's review.json files as records (bakeoff.batchfolder.read hands them over parsed);
    one of another kind is not a review's and is left out, a damaged one is refused by name."""
    typed = ((source, summary_from(data, f"{source}/review.json")) for source, data in found)
    return tuple((source, summary) for source, summary in typed if summary is not None)


def review_tables(found: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Table]:
    """A batch report's claim-review tables, from the review folders its reader found."""
    return summary_tables(typed_reviews(found))


def summary_tables(reviews: Reviews) -> list[Table]:
    """The figures, each flaw family's, and (for reviews that recorded it) the cost; none without a review."""
    if not reviews:
        return []
    columns = (Column("model"), Column("source"), *(Column(name, kind) for name, kind in REVIEW_FIELDS))
    rows = []
    baselines: dict[str, tuple[str, ReviewNumbers]] = {}
    for source, summary in reviews:
        rows.append((summary.model or source, source, *_values(summary.metrics)))
        if summary.baseline_cues is not None:  # one floor row per item set: reviews of the same items share it
            baselines.setdefault(summary.items_sha256 or source, (source, summary.baseline_cues.metrics))
    for source, numbers in baselines.values():
        rows.append((BASELINE_LABEL, source, *_values(numbers)))
    tables = [Table("claim_review", "Claim-versus-code review", columns, tuple(rows)), _families(reviews)]
    return tables + _cost(reviews)


def _values(numbers: ReviewNumbers) -> tuple:
    return tuple(getattr(numbers, name) for name, _ in REVIEW_FIELDS)


def _families(reviews: Reviews) -> Table:
    columns = (Column("model"), Column("family"), Column("answers", "int"), Column("recall", "pct"),
               Column("specificity", "pct"), Column("youden_j", "f3"), Column("localization", "pct"))
    rows = [(summary.model or source, family, entry.answers, entry.recall, entry.specificity, entry.youden_j,
             entry.localization)
            for source, summary in reviews for family, entry in sorted(summary.metrics.per_family.items())]
    return Table("claim_review_families", "Claim review: PROBLEM recall per flaw family", columns, tuple(rows))


def _cost(reviews: Reviews) -> list[Table]:
    """Tokens in and out per answer, model and wall time: none for reviews written before they were recorded."""
    costed = [(source, summary, summary.cost) for source, summary in reviews if summary.cost is not None]
    if not costed:
        return []
    columns = (Column("model"), Column("source"), Column("answers", "int"), Column("tokens_in_per_answer", "n1"),
               Column("tokens_out_per_answer", "n1"), Column("reasoning_tokens", "int"), Column("model_s", "n1"),
               Column("wall_s", "n1"), Column("tokens_per_s", "n1"))
    rows = [(summary.model or source, source, cost.answers, _per(cost.prompt_tokens, cost.answers),
             _per(cost.completion_tokens, cost.answers), cost.reasoning_tokens, cost.model_seconds, cost.wall_seconds,
             cost.tokens_per_s) for source, summary, cost in costed]
    return [Table("claim_review_cost", "Claim review: what it cost", columns, tuple(rows))]


def _per(total: int, answers: int) -> float | None:
    return total / answers if answers else None


def pooled_review_table(rows: Sequence[PooledReview]) -> Table:
    """`bakeoff leaderboard`'s claim-review board: reviews pooled across folders (bakeoff.review.pool)."""
    columns = (Column("rank", "int"), Column("model"), Column("youden_j", "f3"), Column("accuracy", "pct"),
               Column("problem_recall", "pct"), Column("ok_specificity", "pct"), Column("reviews", "int"),
               Column("answers", "int"), Column("graded", "int"), Column("tokens_in_per_answer", "n1"),
               Column("tokens_out_per_answer", "n1"), Column("model_s", "n1"), Column("wall_s", "n1"),
               Column("tokens_per_s", "n1"), Column("items_sha256"), Column("identity"), Column("folders"))
    body = tuple((place, row.model, row.youden_j, row.accuracy, row.problem_recall, row.ok_specificity,
                  len(row.folders), row.answers, row.graded, _per(row.prompt_tokens, row.answers),
                  _per(row.completion_tokens, row.answers), row.model_seconds, row.wall_seconds, row.tokens_per_s,
                  (row.items_sha256 or "")[:12], row.identity, " ".join(row.folders))
                 for place, row in enumerate(rows, 1))
    short = ("rank", "model", "youden_j", "accuracy", "problem_recall", "ok_specificity", "reviews", "answers",
             "tokens_in_per_answer", "tokens_out_per_answer", "wall_s")
    return Table("leaderboard-claim_review", "claim_review: reviews pooled by reviewer and item set (Youden's J, "
                 "higher is better)", columns, body, short=short)
