"""The spam take-home's data folder and what a run's sandbox sees of it: the training file at data/train.csv,
the holdout's features at the sandbox's holdout path; its answers (holdout_answers.csv) and the generator's
truth (truth.csv) never."""

from __future__ import annotations

from bakeoff.taskapi.corpus import CorpusLayout
from bakeoff.taskapi.workspace import DATA_DIR
from generators.secret import SECRET_FILE  # keys the hidden part: never mounted, never brought in
from sandbox.paths import HOLDOUT as HOLDOUT_IN_SANDBOX  # the holdout features (bakeoff score: the same)

TRAIN_PART, HOLDOUT_PART, ANSWERS_PART = "train.csv", "holdout.csv", "holdout_answers.csv"
TRUTH_PART = "truth.csv"  # the generator's hidden truth: never mounted, never brought in by a submission

__all__ = ["ANSWERS_PART", "HOLDOUT_IN_SANDBOX", "HOLDOUT_PART", "LAYOUT", "TRAIN_PART", "TRUTH_PART"]

LAYOUT = CorpusLayout(
    required=(TRAIN_PART, HOLDOUT_PART, ANSWERS_PART),
    mounts=((TRAIN_PART, f"{DATA_DIR}/train.csv"), (HOLDOUT_PART, HOLDOUT_IN_SANDBOX)),
    hidden=(HOLDOUT_PART,),
    truth=(ANSWERS_PART, TRUTH_PART, SECRET_FILE),
    excerpt_of=f"{DATA_DIR}/train.csv",
)
