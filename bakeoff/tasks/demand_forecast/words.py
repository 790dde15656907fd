"""The demand-forecasting take-home's vocabulary: its headline, the mean MASE over series on the hidden
horizon (lower is better; a run that wrote no usable forecast has no score to count)."""

from __future__ import annotations

from bakeoff.records import Rung
from bakeoff.taskapi.headline import HeadlineSpec, TaskWords

# A change of the mean MASE within this is noise: careful scores about 0.8, seasonal naive about 1.
MASE_TOLERANCE = 0.01
HEADLINE = HeadlineSpec("mase", "mean MASE", higher_is_better=False, tolerance=MASE_TOLERANCE, failed_value=None,
                        fmt="{:.4f}", lowest=0.0)
WORDS = TaskWords(
    rungs={Rung.VISIBLE_STEP_RAN: "backtest_forecast_ran", Rung.HIDDEN_STEP_RAN: "horizon_forecast_ran"},
    claim="MASE",
    visible_output="backtest forecast output",
)
