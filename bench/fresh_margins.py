"""How often the tests that draw a fresh secret would fail by chance: the measurement behind the sizes in
tests/test_ab_calibration.py and tests/test_sim_fresh_secret.py (their settings are imported from there, so this
measures exactly what the tests run).

A test on a fresh secret asserts a paired margin (an interval's lower end, or a mean) above zero; on a small
corpus that is a random event. For each of `--secrets` fresh secrets this draws the test's corpus again and prints
the margins it would have asserted, then how many were at or under zero and their lowest and low quantiles.

    ab-spread: careful over each ab_test cheater that reads no log (the constant, the band) on the fresh-secret
               spread (lower ends).
    ab-tilted: careful over the per-user average on the tilted ab_test hidden part (lower end).
    sim:       careful over each formula cheater on a fresh simulation corpus (lower ends; the exact-or-fit chain's
               mean, as the test holds it).
--experiments and --holdout-users (ab-*) measure the same setting at another size (to choose one).

    .venv/bin/python bench/fresh_margins.py ab-spread --secrets 40 [--experiments 16]
    .venv/bin/python bench/fresh_margins.py ab-tilted --secrets 20 [--holdout-users 4000]
    .venv/bin/python bench/fresh_margins.py sim --secrets 20
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

Margins = dict[str, float]


def resized(params, sizes: dict[str, int | None]):
    """`params` with the sizes given on the command line (None: the test's own)."""
    return replace(params, **{name: value for name, value in sizes.items() if value is not None})


def ab_spread(sizes: dict[str, int | None], base: Path) -> Iterator[Margins]:
    """Per fresh secret, {cheater: lower end of careful's margin over it on the fresh corpus}, and the same on the
    public corpus with the reference checks the test holds there."""
    from test_ab_calibration import REFERENCE_CHECKS, SPREAD, SPREAD_ROWS

    from generators.ab_test import generate_ab_data
    from generators.ab_test.calibration import calibrate_ab
    from generators.secret import Secret

    params = resized(SPREAD, sizes)
    generate_ab_data(params, base / "public", secret=Secret.public())
    while True:
        shutil.rmtree(base / "fresh", ignore_errors=True)
        generate_ab_data(params, base / "fresh", secret=Secret.fresh())
        calibration = calibrate_ab(base / "public", spread=[base / "fresh"], variants=SPREAD_ROWS, in_process=True)
        lows = {row.variant: row.spread_margins[0].low for row in calibration.cheaters}
        # the public corpus's margins and checks are asserted too (the same on every draw; a failed check is -1)
        lows |= {f"{row.variant} (public)": row.margin.low for row in calibration.cheaters if row.margin}
        lows |= {f"{name} (public)": -1.0 for name in REFERENCE_CHECKS if not calibration.checks.to_dict()[name]}
        yield lows


def ab_tilted(sizes: dict[str, int | None], base: Path) -> Iterator[Margins]:
    """Per fresh secret, {"ab_per_user": lower end of careful's margin over it on TILTED}."""
    from test_ab_calibration import TILTED, per_user_margin

    from generators.ab_test import generate_ab_data
    from generators.secret import Secret

    params = resized(TILTED, sizes)
    while True:
        shutil.rmtree(base / "fresh", ignore_errors=True)
        generate_ab_data(params, base / "fresh", secret=Secret.fresh())
        margin = per_user_margin(base / "fresh")
        assert margin is not None
        yield {"ab_per_user": margin.low}


def sim(sizes: dict[str, int | None], base: Path) -> Iterator[Margins]:
    """Per fresh secret, careful's margin over each formula cheater as tests/test_sim_fresh_secret.py holds it."""
    from test_sim_fresh_secret import SETTING, held_margins

    from generators.secret import Secret
    from generators.simulation import generate_sim_data

    if any(value is not None for value in sizes.values()):
        raise SystemExit("sim takes no sizes: change LINES in tests/test_sim_fresh_secret.py")
    while True:
        shutil.rmtree(base / "fresh", ignore_errors=True)
        generate_sim_data(SETTING, base / "fresh", secret=Secret.fresh())
        yield held_margins(base / "fresh")[0]


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive count")
    return value


MEASURES = {"ab-spread": ab_spread, "ab-tilted": ab_tilted, "sim": sim}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("test", choices=sorted(MEASURES))
    parser.add_argument("--secrets", type=positive, default=20, help="how many fresh secrets (at least 1)")
    parser.add_argument("--experiments", type=int, default=None, help="ab-*: another number of hidden experiments")
    parser.add_argument("--holdout-users", type=int, default=None, help="ab-*: another smallest hidden experiment")
    args = parser.parse_args(argv)
    sizes = {"experiments": args.experiments, "holdout_users": args.holdout_users}
    lowest = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, margins in enumerate(itertools.islice(MEASURES[args.test](sizes, Path(tmp)), args.secrets)):
            lowest.append(min(margins.values()))
            print(f"{index + 1}/{args.secrets}: " + ", ".join(f"{k} {v:+.3f}" for k, v in margins.items()),
                  flush=True)
    values = np.array(lowest)
    q01, q05, q50 = np.quantile(values, [0.01, 0.05, 0.5])
    print(f"{args.test}: a margin at or under zero on {(values <= 0).sum()} of {len(values)} fresh secrets; "
          f"lowest {values.min():+.3f}, quantiles 1% {q01:+.3f} 5% {q05:+.3f} 50% {q50:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
