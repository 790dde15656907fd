"""`bakeoff score --task spam_classifier` as a library call: the folder graded alone by every task's path
(bakeoff.taskapi.score.score_folder), its outcome the grading outcome `bakeoff score` has always printed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from bakeoff.taskapi.score import ScoredFolder, ScoreRequest, ScoringUnavailable, score_folder
from bakeoff.tasks.spam.check import SpamGraded
from bakeoff.tasks.spam.outcome import SubmissionOutcome
from bakeoff.tasks.spam.words import WORDS

__all__ = ["ScoreOptions", "ScoringUnavailable", "SubmissionOutcome", "outcome_of", "score_submission"]

ScoreOptions = ScoreRequest  # the options of grading one folder (the repo and corpus given apart)


def outcome_of(folder: ScoredFolder) -> SubmissionOutcome:
    """The holdout's outcome with what grading the folder alone adds: its claim and the copy's notes."""
    graded = folder.graded
    assert isinstance(graded, SpamGraded)  # this task's own grade() made it
    claim = folder.claim
    return dataclasses.replace(graded.holdout, claimed_f1=claim.claimed, claim_source=WORDS.source(claim.source),
                               workspace_notes=folder.notes)


def score_submission(repo: Path, corpus: Path, options: ScoreRequest | None = None,
                     on_stage: Callable[[str], None] | None = None) -> SubmissionOutcome:
    """Grade the submission in `repo` on the corpus's hidden holdout; `repo` itself is never touched."""
    from bakeoff.tasks.spam.plugin import SpamClassifier

    request = dataclasses.replace(options or ScoreRequest(), repo=Path(repo), corpus=Path(corpus))
    return outcome_of(score_folder(SpamClassifier(), request, on_stage))
