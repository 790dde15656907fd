"""The spam take-home's vocabulary: its headline (holdout F1) and the words its pages have always used.

Its visible step is training (train.py) and its hidden step prediction (predict.py) on the holdout, so the
rungs and the visible output keep those names on its pages (the records say them in every task's words).
"""

from __future__ import annotations

from bakeoff.records import ClaimSource, Rung
from bakeoff.taskapi.headline import HeadlineSpec, TaskWords

F1_TOLERANCE = 0.01  # an F1 change within this is noise, not an effect
HEADLINE = HeadlineSpec("f1", "F1", higher_is_better=True, tolerance=F1_TOLERANCE, failed_value=0.0, lowest=0.0,
                        highest=1.0)
WORDS = TaskWords(
    rungs={Rung.INSTALLED: "requirements_installed", Rung.VISIBLE_STEP_RAN: "training_completed",
           Rung.HIDDEN_STEP_RAN: "prediction_completed"},
    claim="F1",
    visible_output="training output",
    sources={ClaimSource.VISIBLE_OUTPUT: "train_output"},
)
