"""Comparing predictions with the answer key: the confusion matrix and its metrics."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scorer import reading
from scorer.reading import LabelsFileError

_EXAMPLES = 3  # ids quoted in an error message


class AnswerKeyError(Exception):
    """The answer key itself cannot be used: a fault of the grader's input, never of a submission."""


@dataclass(frozen=True)
class Score:
    """The grade of one predictions file; `error` is a stable name, or None when it was scored."""

    f1: float
    precision: float
    recall: float
    accuracy: float
    predicted_positive_rate: float
    n: int
    tp: int
    fp: int
    fn: int
    tn: int
    error: str | None = None
    message: str | None = None  # human-readable detail of the error
    actual_positive_rate: float = 0.0  # share of positives in the answer key

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, object]:
        return {
            "f1": self.f1,
            "precision": self.precision,
            "recall": self.recall,
            "accuracy": self.accuracy,
            "predicted_positive_rate": self.predicted_positive_rate,
            "actual_positive_rate": self.actual_positive_rate,
            "n": self.n,
            "confusion": {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn},
            "error": self.error,
            "message": self.message,
        }


def failed_score(error: str, message: str) -> Score:
    """A zero score carrying the name of what was wrong."""
    return Score(0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0, error=error, message=message)


def score_from_confusion(tp: int, fp: int, fn: int, tn: int) -> Score:
    """Metrics of the positive class; a ratio with a zero denominator is 0 (as scikit-learn's zero_division=0)."""
    n = tp + fp + fn + tn
    return Score(
        f1=_ratio(2 * tp, 2 * tp + fp + fn),
        precision=_ratio(tp, tp + fp),
        recall=_ratio(tp, tp + fn),
        accuracy=_ratio(tp + tn, n),
        predicted_positive_rate=_ratio(tp + fp, n),
        n=n,
        tp=tp,
        fp=fp,
        fn=fn,
        tn=tn,
        actual_positive_rate=_ratio(tp + fn, n),
    )


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def score_files(predictions: Path, answers: Path) -> Score:
    """Grade a predictions CSV against the answer key.

    A defective predictions file gives a zero Score naming the defect;
    a defective answer key raises AnswerKeyError (the grader's fault).
    """
    try:
        key = reading.read_answer_key(Path(answers))
    except LabelsFileError as exc:
        raise AnswerKeyError(f"{exc.name}: {exc}") from None
    try:
        return _compare(Path(predictions), key)
    except LabelsFileError as exc:
        return failed_score(exc.name, str(exc))


def _compare(predictions: Path, key: dict[str, int]) -> Score:
    # One pass: each id is taken out of `remaining` when first seen, so what is
    # left at the end is the missing ids and a second sighting is a duplicate.
    remaining = dict(key)
    counts = [[0, 0], [0, 0]]  # counts[truth][predicted]
    bad_labels: list[str] = []
    duplicates: list[str] = []
    extras: list[str] = []
    for line, row_id, raw_label in reading.iter_rows(predictions):
        label = reading.parse_label(raw_label)
        if label is None:
            bad_labels.append(f"line {line}: {reading.shorten(raw_label, 20)!r}")
            continue
        truth = remaining.pop(row_id, None)
        if truth is not None:
            counts[truth][label] += 1
        elif row_id in key:
            duplicates.append(row_id)
        else:
            extras.append(row_id)
    _raise_first_defect(predictions, bad_labels, duplicates, extras, list(remaining))
    return score_from_confusion(tp=counts[1][1], fp=counts[0][1], fn=counts[1][0], tn=counts[0][0])


def _raise_first_defect(
    path: Path, bad_labels: list[str], duplicates: list[str], extras: list[str], missing: list[str]
) -> None:
    # Fixed precedence, so a file with several defects always gets the same name.
    checks = (
        (reading.BAD_LABEL, bad_labels, "label(s) other than 0 or 1"),
        (reading.DUPLICATE_IDS, duplicates, "repeated id(s)"),
        (reading.EXTRA_IDS, extras, "id(s) not in the answer key"),
        (reading.MISSING_IDS, missing, "id(s) of the answer key without a prediction"),
    )
    for name, found, what in checks:
        if found:
            examples = ", ".join(repr(item) for item in found[:_EXAMPLES])
            raise LabelsFileError(name, f"{path}: {len(found)} {what} (e.g. {examples})")
