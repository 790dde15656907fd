"""Grading interval results against known true values: the interval take-homes' grader (ab_test, simulation).

`score_results(results_dir, truth_csv)` reads `<experiment>.json` for every experiment named in the
truth file (columns `experiment`, `effect`) and returns an IntervalScore: coverage of the true effect,
mean absolute error, mean width and, as the headline, the mean Winkler (interval) score
width + (2 / alpha) * distance outside, which punishes intervals too narrow and too wide alike.

A task names its own columns and keys: `columns` (the truth file's name and value columns), `keys` (the
result's point, low and high). With `relative=True` every experiment's Winkler score and error are also
divided by the size of its truth (`relative_winkler`, `mean_rel_error`): a scale-free headline for a task
whose true values differ by orders of magnitude (simulation's waits), where the absolute score would be
the few largest values' alone. `score_groups` grades subsets (simulation's load bands) the same way.
Standard library only. `python -m scorer.intervals --results DIR --truth FILE [--json] [--relative]`.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from durable import dumps
from scorer.interval_reading import KEYS, MAX_MAGNITUDE, IntervalResult, ResultFileError, read_result

DEFAULT_LEVEL = 0.95
TRUTH_COLUMNS = ("experiment", "effect")


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

    def relative_winkler(self, level: float) -> float | None:
        """The Winkler score over |truth| (None when ungraded or the truth is 0)."""
        score = self.winkler(level)
        return None if score is None or self.truth == 0 else score / abs(self.truth)

    @property
    def relative_error(self) -> float | None:
        return None if self.result is None or self.truth == 0 else abs(self.result.effect - self.truth) / abs(self.truth)

    def to_dict(self, level: float, point: str = KEYS[0], relative: bool = False) -> dict[str, object]:
        found = {"experiment": self.experiment, "truth": self.truth, "error": self.error, "message": self.message}
        found.update(asdict(self.result) if self.result else {"effect": None, "ci_low": None, "ci_high": None})
        found[point] = found.pop("effect")
        found.update(covered=self.covered, winkler=self.winkler(level))
        if relative:
            found.update(relative_winkler=self.relative_winkler(level), relative_error=self.relative_error)
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
    relative: bool = False  # the scale-free metrics were computed (and are written)
    relative_winkler: float | None = None  # mean Winkler score over |truth|
    mean_rel_error: float | None = None
    point: str = KEYS[0]  # what the results call their point estimate (the experiments' rows use the name)

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
        found: dict[str, object] = {
            "level": self.level, "n": len(self.experiments), "graded": self.graded, "failed": self.failed,
            "errors": self.errors, "coverage": self.coverage, "mean_abs_error": self.mean_abs_error,
            "mean_width": self.mean_width, "winkler": self.winkler,
        }
        if self.relative:
            found.update(relative_winkler=self.relative_winkler, mean_rel_error=self.mean_rel_error)
        found["experiments"] = [e.to_dict(self.level, self.point, self.relative) for e in self.experiments]
        return found


def read_truth(path: Path, columns: tuple[str, str] = TRUTH_COLUMNS) -> dict[str, float]:
    """{experiment: true value} from the (name, value) `columns`; any defect raises TruthFileError."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise TruthFileError(f"{path} cannot be read: {exc}") from None
    truth: dict[str, float] = {}
    for line, row in enumerate(rows, start=2):
        try:
            name, effect = row[columns[0]].strip(), float(row[columns[1]])
        except (KeyError, TypeError, ValueError, AttributeError):
            raise TruthFileError(f"{path} line {line} has no usable {columns[0]} and {columns[1]}") from None
        if not math.isfinite(effect) or abs(effect) > MAX_MAGNITUDE:
            raise TruthFileError(f"{path} line {line}: {columns[1]} {row[columns[1]]!r} is not a finite number within "
                                 f"+-{MAX_MAGNITUDE:g}")
        # A name becomes a file name: a NUL byte would make open() raise ValueError, a traceback, not an error.
        if not name or name in truth or "/" in name or "\0" in name or name.startswith("."):
            raise TruthFileError(f"{path} line {line}: experiment {name!r} is empty, repeated or not a plain name")
        truth[name] = effect
    if not truth:
        raise TruthFileError(f"{path} names no experiments")
    return truth


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def score_experiments(scores: list[ExperimentScore], level: float = DEFAULT_LEVEL, relative: bool = False,
                      point: str = KEYS[0]) -> IntervalScore:
    graded = [(e, e.result) for e in scores if e.result is not None]
    # winkler() is None only for an ungraded experiment, and none of these is one.
    winklers = [w for e, _ in graded if (w := e.winkler(level)) is not None]
    scaled = [w for e, _ in graded if (w := e.relative_winkler(level)) is not None] if relative else []
    errors = [x for e, _ in graded if (x := e.relative_error) is not None] if relative else []
    return IntervalScore(
        level=level,
        experiments=tuple(scores),
        coverage=_mean([float(e.covered) for e, _ in graded]),
        mean_abs_error=_mean([abs(r.effect - e.truth) for e, r in graded]),
        mean_width=_mean([r.ci_high - r.ci_low for _, r in graded]),
        winkler=_mean(winklers),
        relative=relative,
        relative_winkler=_mean(scaled),
        mean_rel_error=_mean(errors),
        point=point,
    )


def score_groups(score: IntervalScore, groups: Mapping[str, str]) -> dict[str, IntervalScore]:
    """The same grade over each group of experiments ({experiment: group}; experiments in none are left out),
    groups in order of first appearance."""
    members: dict[str, list[ExperimentScore]] = {}
    for e in score.experiments:
        if e.experiment in groups:
            members.setdefault(groups[e.experiment], []).append(e)
    return {group: score_experiments(found, score.level, score.relative, score.point) for group, found in members.items()}


def grade_one(experiment: str, truth: float, path: Path, keys: tuple[str, str, str] = KEYS) -> ExperimentScore:
    try:
        return ExperimentScore(experiment, truth, read_result(path, keys))
    except ResultFileError as exc:
        return ExperimentScore(experiment, truth, None, exc.name, str(exc))


def score_results(results_dir: Path, truth_csv: Path, level: float = DEFAULT_LEVEL, *, keys: tuple[str, str, str] = KEYS,
                  columns: tuple[str, str] = TRUTH_COLUMNS, relative: bool = False) -> IntervalScore:
    if not 0.0 < level < 1.0:
        raise TruthFileError(f"level must be in (0, 1), got {level}")
    truth = read_truth(truth_csv, columns)
    scores = [grade_one(name, effect, Path(results_dir) / f"{name}.json", keys) for name, effect in truth.items()]
    return score_experiments(scores, level, relative, keys[0])


def format_text(score: IntervalScore) -> str:
    if score.winkler is None:
        return f"no experiment graded ({score.failed} failed: {score.errors})"
    text = (f"winkler {score.winkler:.6f}  coverage {score.coverage:.3f}  mae {score.mean_abs_error:.6f}  "
            f"mean width {score.mean_width:.6f}  graded {score.graded} of {len(score.experiments)}")
    if score.relative and score.relative_winkler is not None and score.mean_rel_error is not None:
        text = f"relative winkler {score.relative_winkler:.4f}  mean relative error {score.mean_rel_error:.4f}  " + text
    return text + (f"  errors {score.errors}" if score.failed else "")


def main(argv: list[str] | None = None) -> int:
    """Exit 0 when every experiment was graded, 1 when some result failed, 2 when the truth is unusable."""
    parser = argparse.ArgumentParser(prog="python -m scorer.intervals", description=__doc__.splitlines()[0])
    parser.add_argument("--results", required=True, type=Path, help="folder of <experiment>.json results")
    parser.add_argument("--truth", required=True, type=Path, help="CSV with a name and a value column")
    parser.add_argument("--level", type=float, default=DEFAULT_LEVEL)
    parser.add_argument("--truth-columns", default=",".join(TRUTH_COLUMNS),
                        help="the truth file's name and value columns (default: experiment,effect)")
    parser.add_argument("--point-key", default=KEYS[0], help="what a result calls its point estimate (default: effect)")
    parser.add_argument("--relative", action="store_true", help="also the scores over |truth| (scale-free)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    columns = tuple(args.truth_columns.split(","))
    if len(columns) != 2:
        parser.error("--truth-columns takes two names: NAME,VALUE")
    try:
        score = score_results(args.results, args.truth, args.level, keys=(args.point_key, *KEYS[1:]),
                              columns=(columns[0], columns[1]), relative=args.relative)
    except TruthFileError as exc:
        print(f"error: truth_invalid: {exc}", file=sys.stderr)
        return 2
    print(dumps(score.to_dict()) if args.json else format_text(score))  # valid JSON: every figure is finite
    return 0 if score.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
