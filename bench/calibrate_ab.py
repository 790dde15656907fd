"""Full-size calibration of the A/B-test take-home, printed as the Markdown table the README carries.

Generates the default data (a visible experiment of 20,000 users and 48 hidden experiments of 20,000
users each), runs the careless, half and careful reference analyses on every hidden experiment exactly
as `bakeoff calibrate --task ab_test` does, and prints their coverage, error, width and Winkler score.

    .venv/bin/python bench/calibrate_ab.py [--out DIR] [--seed N] [--experiments N] [--jobs N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generators.ab_test import AbParams, generate_ab_data  # noqa: E402
from generators.calibration import ab_test as cal  # noqa: E402
from generators.calibration import write_calibration  # noqa: E402

TARGETS = {
    "ab_careless": f"narrowest; coverage <= {cal.CARELESS_MAX_COVERAGE}",
    "ab_half": "by user, fault missed: biased",
    "ab_careful": f"coverage in [{cal.CAREFUL_COVERAGE_BAND[0]}, {cal.CAREFUL_COVERAGE_BAND[1]}]; best Winkler",
}


def markdown_table(calibration: cal.AbCalibration, seconds: dict[str, float]) -> str:
    p = calibration.params
    zero = round(p.zero_effect_share * p.experiments)
    lines = [
        f"Data: seed {p.seed}, {p.experiments} hidden experiments of {p.holdout_users:,} users ({zero} with no effect, "
        f"the others uniform in [0.001, {p.max_effect}]), base rate {p.base_rate}, visits tail {p.visits_tail}, "
        f"a {p.fault_days}-day duplicated-rows fault per experiment. "
        f"Generation {seconds['generate']:.0f} s, calibration {seconds['calibrate']:.0f} s.",
        "",
        "| reference | coverage of the true effect | mean abs error | mean width | Winkler score (headline) | target |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in calibration.references:
        lines.append(f"| {r.variant} | {r.coverage:.3f} | {r.mean_abs_error:.4f} | {r.mean_width:.4f} | "
                     f"{r.winkler:.4f} | {TARGETS[r.variant]} |")
    checks = calibration.checks.to_dict()
    lines += ["", "Checks: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in checks.items())]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="keep the data folder here (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--experiments", type=int, default=AbParams().experiments)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bakeoff-ab-bench-") as scratch:
        out = args.out or Path(scratch) / "data"
        seconds = {}
        started = time.perf_counter()
        generate_ab_data(AbParams(seed=args.seed, experiments=args.experiments), out, force=True)
        seconds["generate"] = time.perf_counter() - started
        started = time.perf_counter()
        calibration = cal.calibrate_ab(out, jobs=args.jobs, progress=lambda step: print(step, file=sys.stderr))
        seconds["calibrate"] = time.perf_counter() - started
        write_calibration(calibration, out)
        print(markdown_table(calibration, seconds))


if __name__ == "__main__":
    main()
