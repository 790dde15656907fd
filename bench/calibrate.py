"""Full-size calibration and difficulty sweep, printed as the Markdown tables the README carries.

Generates the default corpus (208,000 + 50,000 rows), runs the careless, text-only
and careful references exactly as `bakeoff calibrate --sweep` does, and prints:
the calibration table against the targets, and text-only holdout F1 by contamination.
Takes a long time on a small machine (each reference fits TF-IDF + logistic
regression twice on up to 208,000 messages).

    .venv/bin/python bench/calibrate.py [--out DIR] [--rows N] [--holdout-rows N] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generators.calibration import (  # noqa: E402
    Calibration,
    calibrate,
    checks,  # noqa: E402
    write_calibration,
)
from generators.spam import CorpusParams, generate_corpus  # noqa: E402


def markdown_tables(calibration: Calibration, seconds: float) -> str:
    p = calibration.params
    lines = [
        f"Corpus: seed {p.seed}, {p.rows:,} training rows, {p.holdout_rows:,} holdout rows, "
        f"contamination {p.contamination}, metadata signal {p.metadata_signal}.",
        "",
        "| reference | local F1 (80/20) | holdout F1 | holdout precision | holdout recall | predicted spam rate | target |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    targets = {
        "careless": f"best local (>= {checks.CARELESS_MIN_LOCAL}), worst holdout",
        "text_only": f"holdout {checks.TEXT_ONLY_TARGET} +/- {checks.BAND}",
        "careful": f"holdout {checks.CAREFUL_TARGET} +/- {checks.BAND}, >= text-only + {checks.CAREFUL_MIN_MARGIN}",
    }
    for r in calibration.references:
        lines.append(
            f"| {r.variant} | {r.local_f1:.3f} | {r.holdout_f1:.3f} | {r.holdout_precision:.3f} | "
            f"{r.holdout_recall:.3f} | {r.predicted_positive_rate:.3f} | {targets[r.variant]} |"
        )
    lines += ["", "Checks: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in calibration.checks.to_dict().items())]
    if calibration.sweep:
        variants = [r.variant for r in calibration.sweep[0].results]
        lines += ["", "| contamination | " + " | ".join(f"{v} holdout F1" for v in variants) + " |"]
        lines.append("| ---: | " + " | ".join("---:" for _ in variants) + " |")
        for point in calibration.sweep:
            lines.append(f"| {point.contamination:.3f} | " + " | ".join(f"{point.holdout_f1(v):.3f}" for v in variants) + " |")
        lines += ["", f"text-only holdout F1 falls monotonically: {'yes' if calibration.sweep_falls_monotonically else 'NO'}"]
    lines += ["", f"Measured in one run of bench/calibrate.py: {seconds / 60:.1f} minutes in all."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="keep the corpus (and calibration.json) here")
    parser.add_argument("--rows", type=int, default=CorpusParams.rows)
    parser.add_argument("--holdout-rows", type=int, default=CorpusParams.holdout_rows)
    parser.add_argument("--no-sweep", action="store_true")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = parser.parse_args()

    def progress(step: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {step}", file=sys.stderr, flush=True)

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-calibrate-") as scratch:
        corpus = args.out or Path(scratch) / "corpus"
        progress(f"generating {corpus}")
        generate_corpus(CorpusParams(rows=args.rows, holdout_rows=args.holdout_rows), corpus, force=True)
        calibration = calibrate(corpus, sweep=not args.no_sweep, progress=progress)
        write_calibration(calibration, corpus)
    text = markdown_tables(calibration, time.perf_counter() - started)
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
