"""The simulation take-home's data folder and what a run's sandbox sees of it: the visible example
configurations at data/examples/, the hidden configurations at /holdout (one JSON file each), their truth
(holdout_truth.csv), the examples' truth (truth.json) and the secret that keyed them (secret.hex) never."""

from __future__ import annotations

from bakeoff.taskapi.corpus import CorpusLayout
from bakeoff.taskapi.workspace import DATA_DIR
from sandbox.paths import HOLDOUT_DIR as HOLDOUT_IN_SANDBOX

EXAMPLES_PART, HOLDOUT_PART, TRUTH_PART = "examples", "holdout", "holdout_truth.csv"
VISIBLE_TRUTH_PART, SECRET_PART = "truth.json", "secret.hex"
EXAMPLES_IN_SANDBOX = f"{DATA_DIR}/examples"
VISIBLE_CONFIG = f"{EXAMPLES_IN_SANDBOX}/example_1.json"  # what the visible step simulates

__all__ = ["EXAMPLES_IN_SANDBOX", "EXAMPLES_PART", "HOLDOUT_IN_SANDBOX", "HOLDOUT_PART", "LAYOUT", "SECRET_PART",
           "TRUTH_PART", "VISIBLE_CONFIG", "VISIBLE_TRUTH_PART"]

LAYOUT = CorpusLayout(
    required=(EXAMPLES_PART, HOLDOUT_PART, TRUTH_PART),
    mounts=((EXAMPLES_PART, EXAMPLES_IN_SANDBOX), (HOLDOUT_PART, HOLDOUT_IN_SANDBOX)),
    hidden=(HOLDOUT_PART,),
    truth=(TRUTH_PART, VISIBLE_TRUTH_PART, SECRET_PART),
    excerpt_of=VISIBLE_CONFIG,
    hint="make one with `bakeoff generate --task simulation`",
)
