"""Full-size calibration and difficulty sweep, printed as the Markdown tables docs/calibration.md carries.

Generates the default corpus (208,000 + 50,000 rows) with the public secret
(generators.secret.PUBLIC_SECRET_HEX: anyone can reproduce the figures) and its holdout
with several fresh secrets (the same training file), runs the careless, text-only and
careful references and the cheaters exactly as `bakeoff calibrate --sweep` does, each
trained once and predicting every holdout, and prints: the calibration table against the
targets with careful's paired F1 margin over every row and each row's holdout F1 over
the fresh secrets, and text-only holdout F1 by contamination.
Takes a long time on a small machine (each reference fits TF-IDF + logistic
regression twice on up to 208,000 messages).

    .venv/bin/python bench/calibrate.py spam_classifier [--out DIR] [--rows N] [--holdout-rows N] [--fresh K] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from generators.common.calibration_file import write_calibration
from generators.common.verdict import failures, report
from generators.secret import PUBLIC_SECRET_HEX, Secret
from generators.spam_classifier import CorpusParams, generate_corpus
from generators.spam_classifier.calibration import Calibration, calibrate, checks


def _margin(row) -> str:
    return f"{row.margin.estimate:+.3f} [{row.margin.low:+.3f}, {row.margin.high:+.3f}]" if row.margin else ""


def _spread(row) -> str:
    return f"{min(row.spread):.3f} - {max(row.spread):.3f}" if row.spread else ""


def _spread_margin(row) -> str:
    return f"{min(m.low for m in row.spread_margins):+.3f}" if row.spread_margins else ""


def markdown_tables(calibration: Calibration, seconds: float) -> str:
    p = calibration.params
    lines = [
        f"Corpus: seed {p.seed}, public secret (id {calibration.secret_id}), {p.rows:,} training rows, "
        f"{p.holdout_rows:,} holdout rows, contamination {p.contamination}, metadata signal {p.metadata_signal}.",
        "",
        "| row | kind | local F1 (80/20) | holdout F1 | holdout precision | holdout recall | predicted spam rate | "
        f"careful's F1 margin [95%] | holdout F1 over {len(calibration.spread_secret_ids)} fresh secrets | "
        "lowest lower end of careful's margin on them | target |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    targets = {
        "careless": f"best local (>= {checks.CARELESS_MIN_LOCAL}), worst holdout",
        "text_only": f"holdout {checks.TEXT_ONLY_TARGET} +/- {checks.BAND}",
        "careful": f"holdout {checks.CAREFUL_TARGET} +/- {checks.BAND}, >= text-only + {checks.CAREFUL_MIN_MARGIN}",
        "all_spam": "cheater: every message spam",
        "base_rate": "cheater: spam at random at the base rate",
        "subject_keywords": "cheater: a keyword rule on the subject",
        "sender_metadata": "cheater: the envelope alone (sender domain, metadata), no text",
    }
    for r in calibration.rows:
        lines.append(
            f"| {r.variant} | {r.kind} | {r.local_f1:.3f} | {r.holdout_f1:.3f} | {r.holdout_precision:.3f} | "
            f"{r.holdout_recall:.3f} | {r.predicted_positive_rate:.3f} | {_margin(r)} | {_spread(r)} | "
            f"{_spread_margin(r)} | {targets[r.variant]} |"
        )
    lines += ["", "Checks: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in calibration.checks.to_dict().items())]
    if calibration.sweep:
        variants = [r.variant for r in calibration.sweep[0].results]
        lines += ["", "| contamination | " + " | ".join(f"{v} holdout F1" for v in variants) + " |"]
        lines.append("| ---: | " + " | ".join("---:" for _ in variants) + " |")
        for point in calibration.sweep:
            lines.append(f"| {point.contamination:.3f} | " + " | ".join(f"{point.holdout_f1(v):.3f}" for v in variants) + " |")
        lines += ["", f"text-only holdout F1 falls monotonically: {'yes' if calibration.sweep_falls_monotonically else 'NO'}"]
    lines += ["", f"Measured in one run of bench/calibrate.py spam_classifier: {seconds / 60:.1f} minutes in all."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="keep the corpus (and calibration.json) here")
    parser.add_argument("--rows", type=int, default=CorpusParams.rows)
    parser.add_argument("--holdout-rows", type=int, default=CorpusParams.holdout_rows)
    parser.add_argument("--no-sweep", action="store_true")
    parser.add_argument("--fresh", type=int, default=3, help="fresh secrets for the spread (default 3)")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = parser.parse_args(argv)

    def progress(step: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {step}", file=sys.stderr, flush=True)

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-calibrate-") as scratch:
        corpus = args.out or Path(scratch) / "corpus"
        params = CorpusParams(rows=args.rows, holdout_rows=args.holdout_rows)
        progress(f"generating {corpus}")
        generate_corpus(params, corpus, force=True, secret=Secret.from_hex(PUBLIC_SECRET_HEX))
        spread = []
        for index in range(args.fresh):
            progress(f"generating with fresh secret {index + 1} of {args.fresh}")
            spread.append(Path(scratch) / f"fresh-{index}")
            generate_corpus(params, spread[-1], secret=Secret.fresh())
        calibration = calibrate(corpus, sweep=not args.no_sweep, progress=progress, spread=spread)
        write_calibration(calibration, corpus)
    text = markdown_tables(calibration, time.perf_counter() - started)
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    targets = {name: bool(held) for name, held in calibration.checks.to_dict().items() if name != "ordering_holds"}
    del targets["all_hold"]
    return report(failures(targets, calibration.cheaters, str(calibration.secret_id),
                           calibration.spread_secret_ids))
