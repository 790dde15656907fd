"""`bakeoff score --task spam_classifier` as a library call: the folder graded alone by every task's path
(bakeoff.taskapi.score.score_folder), its outcome the grading outcome `bakeoff score` has always printed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from bakeoff.taskapi.score import ScoreRequest, ScoringUnavailable, score_folder
from bakeoff.tasks.spam_classifier.outcome import SubmissionOutcome
from bakeoff.tasks.spam_classifier.plugin import TASK
from bakeoff.tasks.spam_classifier.score_report import outcome_of

__all__ = ["ScoreOptions", "ScoringUnavailable", "SubmissionOutcome", "outcome_of", "score_submission"]

ScoreOptions = ScoreRequest  # the options of grading one folder (the repo and corpus given apart)


def score_submission(repo: Path, corpus: Path, options: ScoreRequest | None = None,
                     on_stage: Callable[[str], None] | None = None) -> SubmissionOutcome:
    """Grade the submission in `repo` on the corpus's hidden holdout; `repo` itself is never touched."""
    request = dataclasses.replace(options or ScoreRequest(), repo=Path(repo), corpus=Path(corpus))
    return outcome_of(score_folder(TASK, request, on_stage))
