"""The simulation take-home's vocabulary: its headline, the mean relative Winkler score over the hidden
configurations (the Winkler score of each interval over the true mean wait; lower is better; a run that
never graded every configuration has no score to count)."""

from __future__ import annotations

from bakeoff.records import Rung
from bakeoff.taskapi.headline import HeadlineSpec, TaskWords

# A change of the mean relative Winkler score within this is noise: a careful submission scores about 0.1.
RELATIVE_WINKLER_TOLERANCE = 0.005
HEADLINE = HeadlineSpec("relative_winkler", "relative Winkler score", higher_is_better=False,
                        tolerance=RELATIVE_WINKLER_TOLERANCE, failed_value=None, fmt="{:.4f}",
                        lowest=0.0)
WORDS = TaskWords(
    rungs={Rung.VISIBLE_STEP_RAN: "visible_simulation_ran", Rung.HIDDEN_STEP_RAN: "hidden_simulations_ran"},
    claim="mean wait",
    visible_output="visible simulation output",
)
