"""`python -m scorer --predictions P --answers A [--json]`.

Exit status: 0 scored; 1 the predictions file is defective (the error names
why, and f1 is 0); 2 the answer key or the command line is unusable.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from durable import dumps
from scorer.score import AnswerKeyError, Score, failed_score, score_files

EXIT_SCORED = 0
EXIT_BAD_PREDICTIONS = 1
EXIT_BAD_ANSWER_KEY = 2
ANSWER_KEY_ERROR = "answer_key_invalid"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scorer",
        description="Score an id,label predictions CSV against the answer key (F1 of the positive class).",
    )
    parser.add_argument("--predictions", required=True, type=Path, help="CSV with columns id and label")
    parser.add_argument("--answers", required=True, type=Path, help="the answer key, CSV with id and label")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        score = score_files(args.predictions, args.answers)
        status = EXIT_SCORED if score.ok else EXIT_BAD_PREDICTIONS
    except AnswerKeyError as exc:
        score = failed_score(ANSWER_KEY_ERROR, str(exc))
        status = EXIT_BAD_ANSWER_KEY
    if args.json:
        print(dumps(score.to_dict()))
    else:
        print(format_text(score), file=sys.stdout if score.ok else sys.stderr)
    return status


def format_text(score: Score) -> str:
    if not score.ok:
        return f"error: {score.error}: {score.message}\nf1 0"
    return (
        f"f1 {score.f1:.6f}  precision {score.precision:.6f}  recall {score.recall:.6f}  "
        f"accuracy {score.accuracy:.6f}\n"
        f"n {score.n}  tp {score.tp}  fp {score.fp}  fn {score.fn}  tn {score.tn}  "
        f"predicted positive rate {score.predicted_positive_rate:.4f} "
        f"(actual {score.actual_positive_rate:.4f})"
    )
