"""Careful beats the cheap formula methods on a fresh secret (issue 34), by a paired interval above zero; the
secret is printed on failure so the corpus can be made again (`bakeoff generate --secret-file`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generators.simulation import Secret, SimParams, generate_sim_data
from generators.simulation.calibration import paired_margin, run_cheaters, run_sim_reference
from generators.simulation.cheaters import FORMULA_CHEATERS

pytestmark = pytest.mark.slow
EXACT_OR_FIT = "cheat_exact_or_fit"


# 20 lines, not 9: over 9 the formula rows' paired intervals straddled zero on 2 of 10 fresh secrets (Allen-Cunneen
# +0.041 [-0.026], +0.077 [-0.256]; Kingman on 1), a test failing by chance one run in four or five (a whole-suite
# run caught it); over 20, on 6 fresh secrets, the lowest lower ends were Allen-Cunneen +0.220, Kingman +0.315
# (exact-or-fit +0.054); over 26 more (bench/fresh_margins.py sim): none under zero, lowest exact-or-fit mean
# +0.143, Allen-Cunneen +0.226, Kingman +0.287. Two CPU seconds a line: at one, careful overran its budget on one
# line of 20 (SIGXCPU after its estimate) in a whole-suite run on a busy machine. About a minute on the 2-core
# machine.
LINES = 20
SETTING = SimParams(seed=1, configurations=LINES, cpu_seconds=2, reference_millions=20)


def held_margins(folder: Path) -> tuple[dict[str, float], float, float]:
    """What the test holds above zero, per formula cheater (its paired margin's lower end; the exact-or-fit chain's
    mean), with careful's relative Winkler and the best formula row's: bench/fresh_margins.py sim measures the same."""
    careful = run_sim_reference("sim_careful", folder)
    rows = {r.variant: r for r in run_cheaters(folder)}
    margins = {name: paired_margin(rows[name], careful) for name in FORMULA_CHEATERS}
    # Exact on the three exact families in ten (a score of 0 there, where careful pays its width): over 9 lines its
    # paired interval straddled zero on 4 fresh secrets of 11 (d88e3fd2..., mean +0.027), so here it is held to
    # careful's mean; the full-size bench holds it to the interval (docs/tasks.md).
    held = {name: m.mean if name == EXACT_OR_FIT else m.low for name, m in margins.items()}
    return held, careful.relative_winkler, min(rows[name].relative_winkler for name in FORMULA_CHEATERS)


def test_careful_beats_every_formula_cheater_on_a_fresh_secret(tmp_path):
    secret = Secret.fresh()
    folder = tmp_path / "data"
    generate_sim_data(SETTING, folder, secret=secret)
    held, careful, best_formula = held_margins(folder)
    for name, margin in held.items():
        assert margin > 0, f"{name} vs careful {margin:+.4f} on the secret {secret.hex()}"
    assert careful < best_formula, secret.hex()
