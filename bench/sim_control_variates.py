"""What the reference simulation's control variates gain, line by line: the measurement behind simulation-2.1
(generators/simulation/reference.py) and its figures in docs/tasks.md.

For every hidden line of a corpus's configurations that has no exact method, one reference run of `--millions`
million orders (seeded apart from any corpus's truth) gives each replication's mean wait, service time and gap;
printed per line: the variance of the replication means over the residuals' once the two controls are fitted
(what the same orders are worth with the controls), and the relative standard error with and without them.

    .venv/bin/python bench/sim_control_variates.py [--secret HEX] [--seed N] [--configurations N] [--millions M]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from generators.simulation.params import SimParams

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--secret", default=None, help="a corpus's secret (hex); default: the public one")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--configurations", type=int, default=SimParams().configurations)
    parser.add_argument("--millions", type=float, default=30.0)
    args = parser.parse_args(argv)
    from generators.simulation.configs import hidden_lines
    from generators.simulation.queueing import Line, exactly_computable
    from generators.simulation.reference import controlled_mean, replicate
    from generators.simulation.secret import SimSecret

    secret = SimSecret(bytes.fromhex(args.secret or SimSecret.PUBLIC_HEX))
    configs = hidden_lines(args.configurations, SimParams().cpu_seconds,
                           secret.seed_sequence(args.seed, "hidden configurations"))
    ratios = []
    for index, config in enumerate(configs):
        line = Line.of(config)
        if exactly_computable(line):
            continue
        started = time.perf_counter()
        run = replicate(line, int(args.millions * 1e6), np.random.default_rng([index, 0xC7]))
        wait, error, ratio = controlled_mean(run.waits, run.controls(line))
        plain, plain_error, _ = controlled_mean(run.waits, [])
        ratios.append(ratio)
        print(f"{config['name']} {line.stations} station(s), load {line.utilisation:.3f}, "
              f"{config['interarrival']['distribution']}/{config['service']['distribution']}: variance ratio "
              f"{ratio:.2f}, relative error {error / wait:.5f} (plain {plain_error / plain:.5f}), "
              f"{time.perf_counter() - started:.1f} s", flush=True)
    print(f"{len(ratios)} simulated lines: variance ratio min {min(ratios):.2f}, median {np.median(ratios):.2f}, "
          f"max {max(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
