"""A month of nights: `bakeoff report` on one large batch and `bakeoff leaderboard` over many, with peak memory.

Synthetic batches are written through the real record types and writers (the records-with-known-answers factory
the tests use: tests/analysis_factory.py), 10 models a batch, seeded outcomes (some crashed, some leaking, repair
turns, retrains). Each command runs as the real CLI in a child process; its wall time and peak RSS (the child's
own, from wait4) are printed at several sizes, so that growth can be read as linear or not:

- `bakeoff report` on one batch of 250, 500 and 1,000 runs;
- `bakeoff leaderboard` over 10, 20 and 30 batches of 100 runs.

Goal (issue 38): each at its largest size within 10 s on the 2-core machine, memory growing linearly.

    .venv/bin/python bench/scale.py [--runs 250,500,1000] [--batches 10,20,30] [--batch-runs 100]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the records-with-known-answers writer the tests use

MODELS = 10
GOAL_S = 10.0


@dataclass(frozen=True)
class Measured:
    """One command at one size: its wall seconds and the child's peak resident memory."""

    size: int
    seconds: float
    peak_mib: float


def fake_runs(total: int, seed: int) -> list:
    """`total` runs over MODELS models, with outcomes drawn from `seed`: scored, crashed and leaking runs."""
    from analysis_factory import KEEPS_DESIGN, FakeRun

    draw = random.Random(seed)
    runs = []
    for index in range(total):
        model, number = f"model-{index % MODELS:02d}", index // MODELS + 1
        if draw.random() < 0.2:
            runs.append(FakeRun(model, number, f1=None, rung=2, status="crashed", crash_class="module_not_found",
                                turns=[(2, None, 5, 0.6, "rescued")] if draw.random() < 0.5 else []))
        else:
            leaks = draw.random() < 0.1
            runs.append(FakeRun(model, number, f1=round(draw.uniform(0.3, 0.85), 4), predicted_rate=draw.uniform(0.1, 0.3),
                                design=KEEPS_DESIGN if leaks else FakeRun.design, retrain_f1s=(0.7, 0.72)))
    return runs


def write_batch(folder: Path, total: int, seed: int) -> Path:
    """A batch of `total` runs that pools with every other batch written here: the same task version, corpus,
    harness and sandbox, and each model the same file (identity) in every batch."""
    from analysis_factory import batch_record, write_json
    from analysis_factory import write_batch as write_records

    from bakeoff.records import BatchRecord, CodeVersion

    runs = fake_runs(total, seed)
    write_records(folder, runs)
    drawn = batch_record(runs)
    poolable = BatchRecord(plan=drawn.plan, plan_sha256=drawn.plan_sha256, order=drawn.order,
                           code_version=CodeVersion("bench"), corpus_sha256={"manifest.json": "bench-corpus"},
                           task_version="bench", identities={m.label: f"sha256:{m.label}" for m in drawn.plan.models})
    write_json(folder / "batch.json", poolable.to_json())
    return folder


def run_cli(*args: str) -> tuple[float, float]:
    """The real `bakeoff` command in a child process: (wall seconds, the child's peak RSS in MiB)."""
    command = [str(Path(sys.executable).parent / "bakeoff"), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    error = child.stderr.read().decode(errors="replace") if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bakeoff {' '.join(args[:1])} failed: {error[-2000:]}")
    return seconds, usage.ru_maxrss / 1024  # Linux reports kilobytes


def measure_report(scratch: Path, sizes: list[int]) -> list[Measured]:
    found = []
    for size in sizes:
        batch = write_batch(scratch / f"report-{size}", size, seed=size)
        seconds, peak = run_cli("report", str(batch), "--out", str(scratch / f"report-{size}-out"))
        found.append(Measured(size, seconds, peak))
        print(f"  report, {size:>5} runs: {seconds:6.2f} s, peak {peak:7.1f} MiB", flush=True)
    return found


def measure_leaderboard(scratch: Path, counts: list[int], batch_runs: int) -> list[Measured]:
    batches = [write_batch(scratch / "nights" / f"night-{n:02d}", batch_runs, seed=n) for n in range(max(counts))]
    found = []
    for count in counts:
        seconds, peak = run_cli("leaderboard", *map(str, batches[:count]), "--out", str(scratch / f"board-{count}"))
        found.append(Measured(count, seconds, peak))
        print(f"  leaderboard, {count:>3} batches of {batch_runs}: {seconds:6.2f} s, peak {peak:7.1f} MiB", flush=True)
    return found


def growth(found: list[Measured]) -> str:
    """Memory above the smallest size, per unit of size, between the smallest and each larger size: a linear
    growth keeps it about constant."""
    first = found[0]
    steps = [(m.peak_mib - first.peak_mib) / (m.size - first.size) for m in found[1:] if m.size != first.size]
    return ", ".join(f"{step:.3f}" for step in steps) or "-"


def verdict(name: str, found: list[Measured], unit: str) -> None:
    """The largest size against the goal, and the memory growth per `unit` (singular)."""
    largest = found[-1]
    met = "met" if largest.seconds <= GOAL_S else "NOT met"
    plural = unit + ("es" if unit.endswith("h") else "s")
    print(f"{name}: {largest.seconds:.2f} s at {largest.size} {plural} (goal {GOAL_S:.0f} s: {met}); "
          f"peak {largest.peak_mib:.0f} MiB; MiB per {unit} beyond the smallest: {growth(found)}")


def sizes(text: str) -> list[int]:
    return sorted(int(part) for part in text.split(","))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=sizes, default=[250, 500, 1000], help="batch sizes for the report")
    parser.add_argument("--batches", type=sizes, default=[10, 20, 30], help="batch counts for the leaderboard")
    parser.add_argument("--batch-runs", type=int, default=100, help="runs in each leaderboard batch")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        scratch = Path(folder)
        print(f"load average at the start: {os.getloadavg()[0]:.1f}")
        report = measure_report(scratch, args.runs)
        board = measure_leaderboard(scratch, args.batches, args.batch_runs)
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")
        verdict("report", report, "run")
        verdict("leaderboard", board, "batch")


if __name__ == "__main__":
    main()
