"""Report cost: `bakeoff report` on a batch of 2 models x 5 runs, against merely reading its records.

The batch is written in the record format of docs/records.md with record sizes like a real
run's (prompts, completions and command output of several kilobytes each), or taken from
a real batch folder given as an argument. Both measurements run in one process, interleaved
(read, report, read, report...), medians shown side by side. Goal: the report takes a few
seconds at most; the ratio says how much of it is more than reading.

    .venv/bin/python bench/report.py [BATCH_DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the records-with-known-answers writer the tests use

FILLER = "x = compute_features(frame)  # a line of model-written code or output\n"


def make_batch(folder: Path) -> Path:
    """2 models x 5 runs, varied outcomes, each stage record padded to a realistic size."""
    from analysis_factory import KEEPS_DESIGN, FakeRun, write_batch

    from bakeoff.records import Command, CompletionRecord, Prompt, PromptMessage, StageRecord

    runs = []
    for i in range(1, 6):
        runs.append(FakeRun("model-a", i, f1=0.70 + 0.02 * i, predicted_rate=0.15 + 0.01 * i, retrain_f1s=(0.7, 0.72)))
        crashed = i % 2 == 0
        runs.append(FakeRun("model-b", i, f1=None if crashed else 0.6, rung=2 if crashed else 5,
                            status="crashed" if crashed else "scored", crash_class="module_not_found" if crashed else None,
                            design=KEEPS_DESIGN, turns=[(5, 0.6, 2, None, "regressed")] if crashed else []))
    write_batch(folder, runs)
    for path in folder.glob("runs/*/stages/*.json"):
        record = StageRecord.from_json(json.loads(path.read_text()))
        prompt = Prompt(f"{record.stage}#1", (PromptMessage("user", FILLER * 150),), chars=len(FILLER) * 150,
                        shared_prefix_chars=0)
        answer = record.completion or CompletionRecord(text="", finish_reason="stop", prompt_tokens=0, completion_tokens=0,
                                                       prompt_seconds=0.0, generation_seconds=0.0, backend="scripted")
        train = Command(purpose="train", argv=("python", "train.py"), exit_code=0, timed_out=False, oom_killed=False,
                        duration_s=1.0, stdout=FILLER * 200, stderr=FILLER * 50)
        padded = replace(record, prompt=prompt, completion=replace(answer, text=answer.text or FILLER * 40),
                         commands=(*record.commands, train))
        path.write_text(json.dumps(padded.to_json(), indent=2))
    return folder


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("batch", nargs="?", type=Path, help="a real batch folder (default: a generated one)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from bakeoff.batchfolder.read import read_batch
    from bakeoff.scaffolds.registry import step_readers
    from bakeoff.tasks import report_batch as write_report

    with tempfile.TemporaryDirectory(prefix="bench-report-") as scratch:
        batch = args.batch or make_batch(Path(scratch) / "batch")
        out = Path(scratch) / "report"
        records = read_batch(batch, step_readers=step_readers)
        size = sum(p.stat().st_size for p in batch.rglob("*.json"))
        reads, reports = [], []
        for _ in range(args.repeat):
            reads.append(timed(lambda: read_batch(batch, step_readers=step_readers)))
            reports.append(timed(lambda: write_report(batch, out)))
        read_s, report_s = statistics.median(reads), statistics.median(reports)
        print(f"batch: {len(records.runs)} runs, {len(records.model_labels())} models, {size / 1e6:.2f} MB of JSON records")
        print(f"{'read the records':<28}{read_s * 1000:>10.1f} ms")
        print(f"{'write the full report':<28}{report_s * 1000:>10.1f} ms")
        print(f"{'report / read':<28}{report_s / read_s:>10.1f} x   (median of {args.repeat}, interleaved)")
        print(f"goal: the report in a few seconds: {'met' if report_s < 5 else 'NOT met'} ({report_s:.2f} s)")


if __name__ == "__main__":
    main()
