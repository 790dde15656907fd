"""ab_test's data folder and what a run's sandbox sees of it: the visible sessions at data/sessions.csv, the
hidden experiments at /holdout (one CSV each), their truth (holdout_truth.csv) and the visible experiment's
(truth.json) never."""

from __future__ import annotations

from bakeoff.taskapi.corpus import CorpusLayout
from bakeoff.taskapi.workspace import DATA_DIR
from generators.secret import SECRET_FILE  # keys the hidden part: never mounted, never brought in
from sandbox.paths import HOLDOUT_DIR as HOLDOUT_IN_SANDBOX

SESSIONS_PART, HOLDOUT_PART, TRUTH_PART = "sessions.csv", "holdout", "holdout_truth.csv"
VISIBLE_TRUTH_PART = "truth.json"
SESSIONS_IN_SANDBOX = f"{DATA_DIR}/sessions.csv"

__all__ = ["HOLDOUT_IN_SANDBOX", "HOLDOUT_PART", "LAYOUT", "SESSIONS_IN_SANDBOX", "SESSIONS_PART", "TRUTH_PART",
           "VISIBLE_TRUTH_PART"]

LAYOUT = CorpusLayout(
    required=(SESSIONS_PART, HOLDOUT_PART, TRUTH_PART),
    mounts=((SESSIONS_PART, SESSIONS_IN_SANDBOX), (HOLDOUT_PART, HOLDOUT_IN_SANDBOX)),
    hidden=(HOLDOUT_PART,),
    truth=(TRUTH_PART, VISIBLE_TRUTH_PART, SECRET_FILE),
    excerpt_of=SESSIONS_IN_SANDBOX,
    hint="make one with `bakeoff generate --task ab_test`",
)
