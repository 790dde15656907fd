"""Grading interval results against known true effects: the A/B-test take-home's grader.

`score_results(results_dir, truth_csv)` reads `<experiment>.json` for every experiment named in the
truth file (columns `experiment`, `effect`) and returns an IntervalScore: coverage of the true effect,
mean absolute error, mean width and, as the headline, the mean Winkler (interval) score
width + (2 / alpha) * distance outside, which punishes intervals too narrow and too wide alike.
Standard library only. `python -m scorer.intervals --results DIR --truth FILE [--json]`.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from durable import dumps
from scorer.interval_reading import MAX_MAGNITUDE, IntervalResult, ResultFileError, read_result

DEFAULT_LEVEL = 0.95


class TruthFileError(Exception):
    """The truth file itself cannot be used: a fault of the grader's input, never of a submission."""


@dataclass(frozen=True)
class ExperimentScore:
    experiment: str
    truth: float
    result: IntervalResult | None
    error: str | None = None
    message: str | None = None

    @property
    def covered(self) -> bool:
        return self.result is not None and self.result.ci_low <= self.truth <= self.result.ci_high

    def winkler(self, level: float) -> float | None:
        if self.result is None:
            return None
        r, penalty = self.result, 2.0 / (1.0 - level)
        miss = max(0.0, r.ci_low - self.truth) + max(0.0, self.truth - r.ci_high)
        return (r.ci_high - r.ci_low) + penalty * miss

    def to_dict(self, level: float) -> dict[str, object]:
        found = {"experiment": self.experiment, "truth": self.truth, "error": self.error, "message": self.message}
        found.update(asdict(self.result) if self.result else {"effect": None, "ci_low": None, "ci_high": None})
        found.update(covered=self.covered, winkler=self.winkler(level))
        return found


@dataclass(frozen=True)
class IntervalScore:
    """The grade over all hidden experiments. Metrics are over the graded ones; `failed` counts the rest."""

    level: float
    experiments: tuple[ExperimentScore, ...]
    coverage: float | None
    mean_abs_error: float | None
    mean_width: float | None
    winkler: float | None  # the headline: lower is better

    @property
    def graded(self) -> int:
        return sum(e.result is not None for e in self.experiments)

    @property
    def failed(self) -> int:
        return len(self.experiments) - self.graded

    @property
    def errors(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for e in self.experiments:
            if e.error:
                counts[e.error] = counts.get(e.error, 0) + 1
        return counts

    def to_dict(self) -> dict[str, object]:
        return {
            "level": self.level, "n": len(self.experiments), "graded": self.graded, "failed": self.failed,
            "errors": self.errors, "coverage": self.coverage, "mean_abs_error": self.mean_abs_error,
            "mean_width": self.mean_width, "winkler": self.winkler,
            "experiments": [e.to_dict(self.level) for e in self.experiments],
        }


def read_truth(path: Path) -> dict[str, float]:
    """{experiment: true effect}; any defect raises TruthFileError."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise TruthFileError(f"{path} cannot be read: {exc}") from None
    truth: dict[str, float] = {}
    for line, row in enumerate(rows, start=2):
        try:
            name, effect = row["experiment"].strip(), float(row["effect"])
        except (KeyError, TypeError, ValueError, AttributeError):
            raise TruthFileError(f"{path} line {line} has no usable experiment and effect") from None
        if not math.isfinite(effect) or abs(effect) > MAX_MAGNITUDE:
            raise TruthFileError(f"{path} line {line}: effect {row['effect']!r} is not a finite number within "
                                 f"+-{MAX_MAGNITUDE:g}")
        if not name or name in truth or "/" in name or name.startswith("."):
            raise TruthFileError(f"{path} line {line}: experiment {name!r} is empty, repeated or not a plain name")
        truth[name] = effect
    if not truth:
        raise TruthFileError(f"{path} names no experiments")
    return truth


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def score_experiments(scores: list[ExperimentScore], level: float = DEFAULT_LEVEL) -> IntervalScore:
    graded = [(e, e.result) for e in scores if e.result is not None]
    # winkler() is None only for an ungraded experiment, and none of these is one.
    winklers = [w for e, _ in graded if (w := e.winkler(level)) is not None]
    return IntervalScore(
        level=level,
        experiments=tuple(scores),
        coverage=_mean([float(e.covered) for e, _ in graded]),
        mean_abs_error=_mean([abs(r.effect - e.truth) for e, r in graded]),
        mean_width=_mean([r.ci_high - r.ci_low for _, r in graded]),
        winkler=_mean(winklers),
    )


def grade_one(experiment: str, truth: float, path: Path) -> ExperimentScore:
    try:
        return ExperimentScore(experiment, truth, read_result(path))
    except ResultFileError as exc:
        return ExperimentScore(experiment, truth, None, exc.name, str(exc))


def score_results(results_dir: Path, truth_csv: Path, level: float = DEFAULT_LEVEL) -> IntervalScore:
    if not 0.0 < level < 1.0:
        raise TruthFileError(f"level must be in (0, 1), got {level}")
    truth = read_truth(truth_csv)
    scores = [grade_one(name, effect, Path(results_dir) / f"{name}.json") for name, effect in truth.items()]
    return score_experiments(scores, level)


def format_text(score: IntervalScore) -> str:
    if score.winkler is None:
        return f"no experiment graded ({score.failed} failed: {score.errors})"
    text = (f"winkler {score.winkler:.6f}  coverage {score.coverage:.3f}  mae {score.mean_abs_error:.6f}  "
            f"mean width {score.mean_width:.6f}  graded {score.graded} of {len(score.experiments)}")
    return text + (f"  errors {score.errors}" if score.failed else "")


def main(argv: list[str] | None = None) -> int:
    """Exit 0 when every experiment was graded, 1 when some result failed, 2 when the truth is unusable."""
    parser = argparse.ArgumentParser(prog="python -m scorer.intervals", description=__doc__.splitlines()[0])
    parser.add_argument("--results", required=True, type=Path, help="folder of <experiment>.json results")
    parser.add_argument("--truth", required=True, type=Path, help="CSV with columns experiment and effect")
    parser.add_argument("--level", type=float, default=DEFAULT_LEVEL)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        score = score_results(args.results, args.truth, args.level)
    except TruthFileError as exc:
        print(f"error: truth_invalid: {exc}", file=sys.stderr)
        return 2
    print(dumps(score.to_dict()) if args.json else format_text(score))  # valid JSON: every figure is finite
    return 0 if score.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
