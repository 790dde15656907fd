"""How far a design effect fixed on the visible experiment misses the hidden ones (bench/ab_design_effect_spread.py).

Per hidden experiment, the log of ab_fixed_inflation's interval width over careful's: how far the one
inflation measured on the visible experiment is from what that experiment's data say. Its spread over a corpus
is the part no single constant can follow, the reason careful beats a fixed design effect at all.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from generators.ab_test.cheaters import materialize_ab
from generators.ab_test.in_process import run_rows_in_process
from generators.ab_test.writer import HOLDOUT_DIR, read_holdout_truth
from scorer.interval_reading import read_result

KNOBS = ("drawn_visits_tail", "drawn_concentration", "drawn_bot_share", "drawn_engagement", "drawn_base_rate")
ROWS = ("ab_careful", "ab_fixed_inflation")


def log_width_ratios(corpus: Path) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """log(fixed width / careful width) per hidden experiment, and the conditions each drew (none where the corpus
    draws none: condition_spread 0)."""
    truth = read_holdout_truth(corpus)
    names = list(truth["experiment"])
    with tempfile.TemporaryDirectory(prefix="bakeoff-ab-de-spread-") as scratch:
        made = Path(scratch)
        submissions = {row: materialize_ab(row, made / row, corpus=corpus) for row in ROWS}
        inputs = [corpus / HOLDOUT_DIR / f"{name}.csv" for name in names]
        run_rows_in_process(submissions, inputs, made / "results", lambda _: None)
        widths = {row: np.array([_width(made / "results" / row / f"{name}.json") for name in names]) for row in ROWS}
    conditions = {knob: truth[knob].to_numpy(dtype=float) for knob in KNOBS if knob in truth}
    return np.log(widths["ab_fixed_inflation"] / widths["ab_careful"]), conditions


def _width(result: Path) -> float:
    interval = read_result(result)  # the graders' reader: capped, links not followed, defects named
    return interval.ci_high - interval.ci_low
