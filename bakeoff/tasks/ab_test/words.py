"""The ab_test take-home's vocabulary: its headline, the mean Winkler interval score over the hidden
experiments (lower is better; a run that never graded every experiment has no score to count)."""

from __future__ import annotations

from bakeoff.records import Rung
from bakeoff.taskapi.headline import HeadlineSpec, TaskWords

# A change of the mean Winkler score within this is noise (the score is in effect units: 0.001 = 0.1 point).
WINKLER_TOLERANCE = 0.0005
HEADLINE = HeadlineSpec("winkler", "Winkler score", higher_is_better=False, tolerance=WINKLER_TOLERANCE,
                        failed_value=None, fmt="{:.4f}", lowest=0.0)
WORDS = TaskWords(
    rungs={Rung.VISIBLE_STEP_RAN: "visible_analysis_ran", Rung.HIDDEN_STEP_RAN: "hidden_analyses_ran"},
    claim="effect",
    visible_output="visible analysis output",
)
