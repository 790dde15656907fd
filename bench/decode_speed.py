"""Benchmark reading a large batch's records: the hand-written decoders before issue 33 against the library's.

The old decoders are the records package as it was at OLD_REF (git show, copied into a temporary package, so both
run in one process on the same values). The batch is made from the records real batches wrote (tests/data: stage
and run records of both schemas, the batch record) plus an agent's step records built from their parts, repeated
to thousands of records. Both sides decode the same already-parsed JSON values (what durable's capped reader
hands the records); the time to parse the bytes, the same for both, is printed beside them.

Usage: python bench/decode_speed.py [--copies N] [--rounds N] [--old-ref REF] [--json FILE]
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import durable  # noqa: E402
from bakeoff.batchfolder.upgrade import upgrade  # noqa: E402
from bakeoff.records import BatchRecord, RunRecord, StageRecord  # noqa: E402
from bakeoff.scaffolds.agent.records import StepRecord  # noqa: E402

OLD_REF = "98e6ef3"  # main before issue 33: the records' to_json/from_json written by hand
DATA = ROOT / "tests" / "data"
KINDS: dict[str, Any] = {"stage": StageRecord, "run": RunRecord, "batch": BatchRecord, "step": StepRecord}


def old_records(ref: str, into: Path) -> Any:
    """The records package at `ref`, importable as `old_records` (its own imports of itself rewritten)."""
    package = into / "old_records"
    package.mkdir()
    names = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", ref, "bakeoff/records/"],
                           check=True, capture_output=True, text=True).stdout.split()
    for name in names:
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:{name}"], check=True, capture_output=True,
                              text=True).stdout
        (package / Path(name).name).write_text(text.replace("bakeoff.records", "old_records"), encoding="utf-8")
    sys.path.insert(0, str(into))
    return importlib.import_module("old_records")


def sample_records() -> dict[str, list[dict[str, Any]]]:
    """The JSON objects of every record under tests/data, as the current schema (first-schema ones upgraded)."""
    found: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    for path in sorted(DATA.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not str(data.get("schema", "")).startswith("bakeoff."):
            continue
        kind = str(data["schema"]).split(".")[1].split("/")[0]
        if kind in KINDS:
            found[kind].append(dict(upgrade(data)))
    found["step"] = [step_of(stage, n) for n, stage in enumerate(found["stage"], 1) if stage.get("prompt")]
    return found


def step_of(stage: dict[str, Any], number: int) -> dict[str, Any]:
    """An agent's step record made of a stage record's parts: its prompt and answer, a `run` call per command."""
    results = [{"tool": "run", "ok": True, "shown": command["stdout"][-200:], "problem": None, "command": command,
                "files_written": stage["files_written"], "cpu_s": command["duration_s"], "cpu_measured": True}
               for command in stage["commands"]]
    return {"schema": "bakeoff.step/1", "run_id": stage["run_id"], "step": number, "prompt": stage["prompt"],
            "completion": stage["completion"], "capture": stage["capture"], "results": results,
            "files_changed": [f["path"] for f in stage["files_written"]], "commit": stage["commit"],
            "timings": stage["timings"], "usage": {"steps": number, "tokens": 900, "wall_s": 12.5, "cpu_s": 3.0},
            "ended_by": None, "harness_error": None}


def batch_of(samples: dict[str, list[dict[str, Any]]], copies: int) -> list[tuple[str, dict[str, Any]]]:
    """(kind, JSON object) of a large batch: every sample `copies` times, stage, step and run records mixed."""
    return [(kind, data) for _ in range(copies) for kind, records in samples.items() for data in records]


def decode_all(kinds: dict[str, Any], batch: list[tuple[str, dict[str, Any]]]) -> Callable[[], object]:
    return lambda: [kinds[kind].from_json(data) for kind, data in batch]


def best_time(decode: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        decode()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=100, help="how many times each sample record is repeated")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds of each side (the best is kept)")
    parser.add_argument("--old-ref", default=OLD_REF, help="the git revision whose records package is the old code")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    samples = sample_records()
    batch = batch_of(samples, args.copies)
    texts = [durable.dumps(data) for _, data in batch]
    with tempfile.TemporaryDirectory() as folder:
        old = old_records(args.old_ref, Path(folder))
        old_kinds: dict[str, Any] = {"stage": old.StageRecord, "run": old.RunRecord, "batch": old.BatchRecord,
                     "step": old.StepRecord}
        assert [type(KINDS[k].from_json(d)).__name__ for k, d in batch] == \
            [type(old_kinds[k].from_json(d)).__name__ for k, d in batch]
        parse = best_time(lambda: [durable.loads(text) for text in texts], args.rounds)
        figures: dict[str, Any] = {"records": len(batch), "by_kind": {k: len(v) * args.copies for k, v in samples.items()},
                                   "parse_s": parse}
        figures["old_s"] = best_time(decode_all(old_kinds, batch), args.rounds)
        figures["new_s"] = best_time(decode_all(KINDS, batch), args.rounds)
        per_kind = {}
        for kind in KINDS:
            chosen = [(k, d) for k, d in batch if k == kind]
            old_s = best_time(decode_all(old_kinds, chosen), args.rounds)
            new_s = best_time(decode_all(KINDS, chosen), args.rounds)
            per_kind[kind] = {"old_s": old_s, "new_s": new_s, "speedup": old_s / new_s}
        figures["per_kind"] = per_kind
        figures["speedup"] = figures["old_s"] / figures["new_s"]
    print(f"{figures['records']} records {figures['by_kind']}, best of {args.rounds} rounds")
    print(f"  parse (durable.loads, both sides): {figures['parse_s'] * 1000:9.1f} ms")
    print(f"  old hand-written decoders:         {figures['old_s'] * 1000:9.1f} ms")
    print(f"  new msgspec decoders:              {figures['new_s'] * 1000:9.1f} ms")
    print(f"  old/new: {figures['speedup']:.2f}x faster")
    for kind, row in per_kind.items():
        print(f"    {kind:6s} old {row['old_s'] * 1000:8.1f} ms  new {row['new_s'] * 1000:8.1f} ms  {row['speedup']:.2f}x")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
