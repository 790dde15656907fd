"""Cheater: a cheap analysis's interval, shrunk toward zero under the distribution of effects the public
parameters state.

base.py beside this file is the cheap analysis (another cheater's own analyze.py, with the file it carries),
posterior.py the shrinkage of ab_shrink and prior.json its distribution. The base's interval gives an estimate
(its centre) and a standard error (its half-width over 1.96); the posterior under the prior gives the median and
the central 95%. It shows what a prior adds to an analysis that skipped the variance: the prior narrows the
interval where the effect is likely zero, but cannot supply the spread the base never measured.
"""

import argparse
import json
import runpy
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
Z95 = 1.959963984540054


def base_interval(source: str) -> dict:
    """The base analysis's answer on `source`: its own script, run in this process with its own arguments."""
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "base.json"
        argv = sys.argv
        sys.argv = [str(HERE / "base.py"), "--input", source, "--output", str(output)]
        try:
            runpy.run_path(str(HERE / "base.py"), run_name="__main__")
        finally:
            sys.argv = argv
        return json.loads(output.read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    prior = json.loads((HERE / "prior.json").read_text(encoding="utf-8"))
    posterior_interval = runpy.run_path(str(HERE / "posterior.py"))["posterior_interval"]
    base = base_interval(args.input)
    estimate = (base["ci_low"] + base["ci_high"]) / 2
    se = max((base["ci_high"] - base["ci_low"]) / (2 * Z95), 1e-12)
    median, low, high = posterior_interval(estimate, se, prior)
    result = {"effect": median, "ci_low": low, "ci_high": high}
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
