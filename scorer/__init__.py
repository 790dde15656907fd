"""The grader: standard library only, runnable on its own as `python -m scorer`.

`score_files(predictions, answers) -> Score` compares an `id,label` predictions
CSV with the answer key. Nothing here may import anything outside the standard
library: the scorer must run in any Python, with nothing installed.
"""

from scorer.reading import ERROR_NAMES, LabelsFileError
from scorer.score import AnswerKeyError, Score, failed_score, score_files, score_from_confusion

__all__ = [
    "ERROR_NAMES",
    "AnswerKeyError",
    "LabelsFileError",
    "Score",
    "failed_score",
    "score_files",
    "score_from_confusion",
]
