"""Measure `bakeoff demo` on this machine: total time, harness overhead, prefix reuse.

Runs the real command once in a fresh folder, then reads its records and prints,
from that one run:
- wall time of the whole command (goal: <= 10 minutes on a 2-core machine without a GPU,
  after the one-time setup);
- harness overhead: wall time minus model time minus sandbox execution time, as a share
  of the run (goal: <= 10%), for the whole command and for the run's stages alone;
- the share of prompt tokens served from the reused prefix (goal: >= 60%).

Usage: .venv/bin/python bench/demo.py [--out DIR] [--keep] [--model SPEC]
(--model: another model for the same measurement, e.g. a scripted one whose code runs in the sandbox)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def model_calls(stage: dict) -> list[dict]:
    calls = [stage.get("completion")] + [turn.get("completion") for turn in stage.get("turns", ())]
    return [call for call in calls if call]


def summarize(batch: Path) -> dict:
    totals = {"model_s": 0.0, "sandbox_s": 0.0, "scoring_s": 0.0, "stages_wall_s": 0.0}
    prompt = cached = 0
    for path in sorted(batch.glob("runs/*/stages/*.json")):
        stage = json.loads(path.read_text())
        timings = stage["timings"]
        totals["model_s"] += timings["model_s"]
        totals["sandbox_s"] += timings["sandbox_s"]
        totals["scoring_s"] += timings["scoring_s"]
        totals["stages_wall_s"] += timings["wall_s"]
        for call in model_calls(stage):
            prompt += call["prompt_tokens"]
            cached += call["cached_prompt_tokens"]
    totals["prompt_tokens"], totals["cached_prompt_tokens"] = prompt, cached
    runs = [json.loads(p.read_text()) for p in batch.glob("runs/*/run.json")]
    totals["outcomes"] = [(r["run_id"], r["outcome"]["status"], r["outcome"]["f1"]) for r in runs]
    return totals


def share(part: float, whole: float) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "  n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="batch folder (default: a fresh temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--model", default="default", help="model spec passed to `bakeoff demo` (default: default)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bakeoff-bench-demo-")) / "demo"
    bakeoff = Path(sys.executable).parent / "bakeoff"
    started = time.monotonic()
    done = subprocess.run([str(bakeoff), "demo", "--out", str(out), "--model", args.model], capture_output=True, text=True)
    wall = time.monotonic() - started
    if done.returncode != 0:
        print(done.stdout, done.stderr, sep="\n", file=sys.stderr)
        return 1
    t = summarize(out)
    outside = wall - t["model_s"] - t["sandbox_s"]
    inside = t["stages_wall_s"] - t["model_s"] - t["sandbox_s"]
    print(f"bakeoff demo --model {args.model}, measured once on this machine ({out})")
    print(f"  wall time of the command      {wall:8.1f} s   goal <= 600 s   {'met' if wall <= 600 else 'NOT met'}")
    print(f"  of which the run's stages     {t['stages_wall_s']:8.1f} s   (the rest: corpus, start-up, model load)")
    print(f"  model time                    {t['model_s']:8.1f} s   {share(t['model_s'], wall)} of the command")
    print(f"  sandbox execution time        {t['sandbox_s']:8.1f} s   {share(t['sandbox_s'], wall)}")
    print(f"  harness overhead, command     {outside:8.1f} s   {share(outside, wall)}   goal <= 10%")
    print(f"  harness overhead, stages only {inside:8.1f} s   {share(inside, t['stages_wall_s'])}   goal <= 10%")
    print(f"  prompt tokens                 {t['prompt_tokens']:8d}")
    print(f"  served from reused prefix     {t['cached_prompt_tokens']:8d}     {share(t['cached_prompt_tokens'], t['prompt_tokens'])}   goal >= 60%")
    for run_id, status, f1 in t["outcomes"]:
        print(f"  outcome {run_id}: {status}" + (f", holdout F1 {f1:.3f}" if f1 is not None else ""))
    if args.out is None and not args.keep:
        shutil.rmtree(out.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
