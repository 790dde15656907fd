"""The negative control's calibration row for any task (`bench/calibrate.py TASK --control`): the task's data at
its demo size (or the sizes given) drawn twice from one seed and one fresh secret, once as usual and once as a
negative control (`bakeoff generate --control`: the hidden answers permuted across the hidden units), every
reference and cheater run on both as `bakeoff calibrate` does, and each row's headline printed side by side.
On the control, careful should fall to the level of the data-free cheaters: nothing there can be learnt.

    .venv/bin/python bench/calibrate.py TASK --control [--seed N] [--out DIR] [--size NAME=VALUE ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def _rows(record: object, headline: str) -> dict[str, float]:
    """variant -> headline of every reference and cheater row in a calibration's record (its to_dict)."""
    found = record.to_dict()  # type: ignore[attr-defined]
    rows = {}
    for row in [row for part in ("references", "cheaters", "baselines") if part in found for row in found[part]]:
        value = next((row[key] for key in (headline, f"holdout_{headline}") if key in row), None)
        if isinstance(value, (int, float)):
            rows[str(row["variant"])] = float(value)
    return rows


def _sizes(given: list[str], demo: dict) -> dict:
    sizes = dict(demo)
    for pair in given:
        name, _, value = pair.partition("=")
        sizes[name.replace("-", "_")] = float(value) if "." in value else int(value)
    return sizes


def markdown(task: str, label: str, sizes: dict, normal: dict[str, float], control: dict[str, float],
             seconds: float) -> str:
    lines = [f"{task}, sizes {sizes}: {label} per row on the corpus and on its negative control (same seed, same "
             f"secret; the control's hidden answers permuted across its hidden units). {seconds:.0f} s.", "",
             f"| row | {label} | {label} on the control |", "| --- | ---: | ---: |"]
    lines += [f"| {row} | {normal[row]:.4f} | {control[row] if row in control else float('nan'):.4f} |" for row in normal]
    return "\n".join(lines)


def main(task_name: str, argv: list[str]) -> int:
    from bakeoff.taskapi.plugin import GenerateRequest
    from bakeoff.tasks.registry import task_plugin
    from generators.secret import Secret

    parser = argparse.ArgumentParser(prog=f"calibrate.py {task_name} --control", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="keep both data folders here")
    parser.add_argument("--size", action="append", default=[], help="a generate option as NAME=VALUE (repeatable)")
    args = parser.parse_args(argv)
    task = task_plugin(task_name)
    if task.calibration is None or task.control is None:
        print(f"error: the task {task_name} has no calibration or no control", file=sys.stderr)
        return 2
    sizes = _sizes(args.size, dict(task.options.demo))
    progress = lambda step: print(f"[{time.strftime('%H:%M:%S')}] {step}", file=sys.stderr, flush=True)  # noqa: E731
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bakeoff-control-bench-") as scratch:
        root = args.out or Path(scratch)
        secret = Path(scratch) / "secret.hex"
        secret.write_text(Secret.fresh().hex() + "\n", encoding="ascii")
        figures = []
        for control in (False, True):
            folder = root / ("control" if control else "corpus")
            task.generate(GenerateRequest(folder, args.seed, sizes, True, secret, control), progress)
            done = task.calibration.calibrate(folder, progress, {})
            figures.append(_rows(done.record, task.headline.name))
    print(markdown(task_name, task.headline.label, sizes, figures[0], figures[1], time.perf_counter() - started))
    return 0
