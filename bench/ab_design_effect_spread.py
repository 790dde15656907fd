"""How far a design effect fixed on the visible experiment misses the hidden ones: the measurement behind
docs/calibration.md ("ab_test", 3.2) and the visits-tail range of generator 3.2.

For each data folder given, careful and ab_fixed_inflation run in this process (generators.ab_test.in_process)
on every hidden experiment. Per experiment, the log of the fixed inflation's interval width over careful's says
how far the one inflation measured on the visible experiment is from what the data say: its mean is the
corpus's offset (a lighter centre makes it positive), its standard deviation the part no single constant can
follow. Printed: that mean and spread, and its correlation with each condition the experiment drew (which knob
moves the design effect most).

    .venv/bin/python bench/ab_design_effect_spread.py DIR [DIR ...]   (folders of `bakeoff generate --task ab_test`)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args(argv)
    from generators.ab_test.design_effect import log_width_ratios

    for folder in args.folders:
        ratios, conditions = log_width_ratios(folder.absolute())
        correlations = ", ".join(f"{knob.removeprefix('drawn_')} {np.corrcoef(ratios, values)[0, 1]:+.2f}"
                                 for knob, values in conditions.items())
        print(f"{folder}: {len(ratios)} experiments, log(fixed width / careful width) mean {ratios.mean():+.2f} "
              f"sd {ratios.std(ddof=1):.2f}; correlation with {correlations}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
