"""Full-size calibration of any registered task, by name: the task's own bench (generators/<generator>/bench.py,
`main(argv) -> exit status`) generates its default data with the public secret, runs its references and
cheaters exactly as `bakeoff calibrate` does, and prints the tables docs/calibration.md carries and a verdict.

    .venv/bin/python bench/calibrate.py TASK [the task's own options; TASK --help lists them]
    .venv/bin/python bench/calibrate.py TASK --control [--seed N] [--size NAME=VALUE ...]   (bench/control.py: the
        negative control's row, every reference and cheater on the corpus and on its control, side by side)
"""

from __future__ import annotations

import sys
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str]) -> int:
    from bakeoff.errors import BakeoffError
    from bakeoff.tasks.registry import task_names, task_plugin

    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip() + f"\n\ntasks: {', '.join(task_names())}")
        return 0 if argv else 2
    try:
        task = task_plugin(argv[0])
    except BakeoffError as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if "--control" in argv[1:]:
        from control import main as control_main  # bench/control.py, beside this file

        return control_main(task.name, [a for a in argv[1:] if a != "--control"])
    bench = import_module(f"generators.{task.generator}.bench")  # the task's data folder: generators/<generator>/
    return int(bench.main(argv[1:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
