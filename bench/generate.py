"""Generation cost, measured in one run: time against pandas' own CSV writing, peak memory, growth.

For each size (1x, 2x, 4x the default 208,000 + 50,000 rows) a fresh child
process generates the corpus (timed, then its peak RSS read), rebuilds the same
tables and times pandas writing them to CSV alone. Goals: generation <= 3x the
pandas write time, peak RSS <= 2 GB at 1x, cost growing linearly with rows.

    .venv/bin/python bench/generate.py [--scales 1,2,4] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE_ROWS, BASE_HOLDOUT = 208_000, 50_000


def measure_one(rows: int, holdout_rows: int, seed: int) -> dict[str, float]:
    """Runs inside the child process."""
    import resource
    import time

    from generators.spam_classifier import CorpusParams, generate_corpus
    from generators.spam_classifier.corpus import build_tables

    params = CorpusParams(seed=seed, rows=rows, holdout_rows=holdout_rows)
    with tempfile.TemporaryDirectory(prefix="bench-generate-") as scratch:
        started = time.perf_counter()
        generate_corpus(params, Path(scratch) / "corpus")
        generate_seconds = time.perf_counter() - started
        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tables = build_tables(params)
        started = time.perf_counter()
        for name, frame in vars(tables).items():
            frame.to_csv(Path(scratch) / f"{name}.csv", index=False, lineterminator="\n", encoding="utf-8")
        pandas_seconds = time.perf_counter() - started
    return {"generate_s": generate_seconds, "pandas_write_s": pandas_seconds, "peak_rss_mb": peak_kib / 1024}


def run_child(rows: int, holdout_rows: int, seed: int) -> dict[str, float]:
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]);"
        "from generate import measure_one;"
        "print(json.dumps(measure_one(int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))))"
    )
    argv = [sys.executable, "-c", code, str(ROOT), str(ROOT / "bench"), str(rows), str(holdout_rows), str(seed)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", default="1,2,4", help="multiples of the default corpus size")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    scales = [int(s) for s in args.scales.split(",")]
    header = f"{'scale':>5} {'rows':>9} {'generate s':>11} {'pandas write s':>15} {'ratio':>6} {'peak RSS MB':>12} {'s per 100k rows':>16}"
    print(header)
    base = None
    for scale in scales:
        rows, holdout = BASE_ROWS * scale, BASE_HOLDOUT * scale
        m = run_child(rows, holdout, args.seed)
        per_100k = m["generate_s"] / ((rows + holdout) / 100_000)
        base = base or per_100k
        print(
            f"{scale:>5} {rows + holdout:>9} {m['generate_s']:>11.2f} {m['pandas_write_s']:>15.2f} "
            f"{m['generate_s'] / m['pandas_write_s']:>6.2f} {m['peak_rss_mb']:>12.0f} {per_100k:>16.3f}",
            flush=True,
        )
    print("goals: ratio <= 3 (generation time over pandas writing the same frames), peak RSS <= 2048 MB at scale 1,")
    print("       seconds per 100k rows roughly constant across scales (linear growth)")


if __name__ == "__main__":
    main()
