"""The measurement behind generator 3.2's visits-tail range (generators.ab_test.design_effect): where every hidden
experiment shares the visible one's conditions (condition_spread 0, as in 2.0) the design effect measured on the
visible experiment fits them all, so the fixed inflation's width follows careful's; with the conditions drawn per
experiment it misses them by a spread that follows the drawn visits tail (the cluster sizes)."""

from __future__ import annotations

import numpy as np
import pytest

from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test.design_effect import log_width_ratios
from generators.secret import Secret

SMALL = dict(seed=3, users=3000, experiments=20, holdout_users=3000, holdout_size_spread=2.0)


@pytest.mark.slow  # about 6 s on the 2-core machine (two small corpora, two rows)
def test_a_fixed_design_effect_fits_shared_conditions_and_misses_drawn_ones_by_their_visits_tail(tmp_path):
    spreads = {}
    for spread in (0.0, 1.0):
        out = tmp_path / f"spread-{spread}"
        generate_ab_data(AbParams(condition_spread=spread, **SMALL), out, secret=Secret.public())
        spreads[spread] = log_width_ratios(out)
    shared, nothing_drawn = spreads[0.0]
    drawn, conditions = spreads[1.0]
    assert len(shared) == len(drawn) == 20 and nothing_drawn == {}
    # One inflation fits them all: what is left is careful's own width noise (0.06 and 0.16 here).
    assert abs(shared.mean()) < 0.15 and shared.std(ddof=1) < 0.25, shared
    # Drawn conditions: mean 0.40 (a lighter centre), spread 0.41, correlation with the visits tail 0.74 here.
    assert drawn.std(ddof=1) > 1.8 * shared.std(ddof=1) and drawn.std(ddof=1) > 0.3, (drawn, shared)
    assert np.corrcoef(drawn, conditions["drawn_visits_tail"])[0, 1] > 0.4
