"""How often the ab_test tests that draw a fresh secret would fail by chance: the measurement behind the sizes in
tests/test_ab_calibration.py (its settings are imported from there, so this measures exactly what the tests run).

A test on a fresh secret asserts a paired interval's lower end above zero; on a small corpus that is a random
event. For each of `--secrets` fresh secrets this draws the test's corpus again and prints the lower ends it
would have asserted, then how many were at or under zero and their lowest and low quantiles.

    spread: careful over each cheater that reads no log (the constant, the band) on SPREAD's fresh-secret spread.
    tilted: careful over the per-user average on TILTED's hidden part.
--experiments and --holdout-users measure the same setting at another size (to choose one).

    .venv/bin/python bench/ab_fresh_margins.py spread --secrets 40 [--experiments 16]
    .venv/bin/python bench/ab_fresh_margins.py tilted --secrets 20 [--experiments 192] [--holdout-users 12000]
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def resized(params, sizes: dict[str, int | None]):
    """`params` with the sizes given on the command line (None: the test's own)."""
    return replace(params, **{name: value for name, value in sizes.items() if value is not None})


def spread_lows(sizes: dict[str, int | None], base: Path):
    """Yield, per fresh secret, {cheater: lower end of careful's margin over it on the fresh corpus}."""
    from test_ab_calibration import SPREAD, SPREAD_ROWS

    from generators.ab_test import generate_ab_data
    from generators.ab_test.calibration import calibrate_ab
    from generators.secret import Secret

    params = resized(SPREAD, sizes)
    generate_ab_data(params, base / "public", secret=Secret.public())
    while True:
        shutil.rmtree(base / "fresh", ignore_errors=True)
        generate_ab_data(params, base / "fresh", secret=Secret.fresh())
        calibration = calibrate_ab(base / "public", spread=[base / "fresh"], variants=SPREAD_ROWS, in_process=True)
        yield {row.variant: row.spread_margins[0].low for row in calibration.cheaters}


def tilted_lows(sizes: dict[str, int | None], base: Path):
    """Yield, per fresh secret, {"ab_per_user": lower end of careful's margin over it on TILTED}."""
    from test_ab_calibration import TILTED

    from generators.ab_test import generate_ab_data
    from generators.ab_test.calibration import AB_VARIANTS, calibrate_ab
    from generators.secret import Secret

    params = resized(TILTED, sizes)
    while True:
        shutil.rmtree(base / "fresh", ignore_errors=True)
        generate_ab_data(params, base / "fresh", secret=Secret.fresh())
        calibration = calibrate_ab(base / "fresh", variants=(*AB_VARIANTS, "ab_per_user"), in_process=True)
        per_user = next(r for r in calibration.cheaters if r.variant == "ab_per_user")
        assert per_user.margin is not None
        yield {"ab_per_user": per_user.margin.low}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("test", choices=("spread", "tilted"))
    parser.add_argument("--secrets", type=int, default=20)
    parser.add_argument("--experiments", type=int, default=None, help="another number of hidden experiments")
    parser.add_argument("--holdout-users", type=int, default=None, help="another smallest hidden experiment")
    args = parser.parse_args(argv)
    sizes = {"experiments": args.experiments, "holdout_users": args.holdout_users}
    with tempfile.TemporaryDirectory() as tmp:
        draws = (spread_lows if args.test == "spread" else tilted_lows)(sizes, Path(tmp))
        lowest = []
        for index, lows in enumerate(itertools.islice(draws, args.secrets)):
            lowest.append(min(lows.values()))
            print(f"{index + 1}/{args.secrets}: " + ", ".join(f"{k} {v:+.3f}" for k, v in lows.items()), flush=True)
    values = np.array(lowest)
    q01, q05, q50 = np.quantile(values, [0.01, 0.05, 0.5])
    print(f"{args.test}: lower end at or under zero on {(values <= 0).sum()} of {len(values)} fresh secrets; "
          f"lowest {values.min():+.3f}, quantiles 1% {q01:+.3f} 5% {q05:+.3f} 50% {q50:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
