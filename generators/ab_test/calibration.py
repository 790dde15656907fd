"""Calibration of the A/B-test take-home: the reference analyses and the cheaters on the hidden experiments.

Each row's analyze.py runs on the host as a plain subprocess, once per hidden experiment (they are our own
trusted code; a submission runs the same way in the sandbox), or, for the full-size bench, the same scripts in
this process (generators.ab_test.in_process), and the interval grader scores the results
against holdout_truth.csv. Rows are the three references (careless, half, careful) and the degenerate
baselines of generators.ab_test.cheaters. Every row other than careful gets careful's paired margin
on the mean Winkler score; the task is valid when careful beats every cheater by an interval above zero.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from generators.ab_test import AbParams
from generators.ab_test.cheaters import (
    AB_CHEATERS,
    AB_ROWS,
    AB_VARIANTS,
    AB_WITH_PRIOR,
    UnknownAbReference,
    materialize_ab,
)
from generators.ab_test.params import params_of_manifest
from generators.ab_test.writer import HOLDOUT_DIR, HOLDOUT_TRUTH_FILE, MANIFEST_FILE
from generators.common.intervals import PassFail, check_data_folder, run_each, run_script
from generators.common.paired import PairedInterval, RowKind, paired_mean_margin, wilson_interval
from generators.errors import ReferenceFailed
from generators.spam_classifier.writer import read_manifest

__all__ = ["AB_CHEATERS", "AB_ROWS", "AB_VARIANTS", "AB_WITH_PRIOR", "AbCalibration", "AbChecks", "AbReferenceResult", "UnknownAbReference",
           "calibrate_ab", "evaluate_ab", "materialize_ab", "run_ab_reference", "run_analyze"]

CARELESS_MAX_COVERAGE = 0.80  # "well below 95%"
CAREFUL_COVERAGE_BAND = (0.85, 1.0)  # 95% less about three binomial errors over 48 experiments, more over 96


@dataclass(frozen=True)
class AbReferenceResult:
    variant: str
    experiments: int
    failed: int
    coverage: float
    mean_abs_error: float
    mean_width: float
    winkler: float
    seconds: float
    kind: RowKind = RowKind.REFERENCE
    coverage_low: float = 0.0  # Wilson 95% interval of the coverage over the experiments
    coverage_high: float = 1.0
    winklers: tuple[float, ...] = ()  # per experiment, in the truth file's order: what the pairing uses
    margin: PairedInterval | None = None  # careful's Winkler advantage over this row (None for careful itself)
    spread: tuple[float, ...] = ()  # the mean Winkler on the same data drawn with other (fresh) secrets
    spread_margins: tuple[PairedInterval, ...] = ()  # careful's margin over this row on each of those
    spread_winklers: tuple[tuple[float, ...], ...] = field(default=(), repr=False)  # per experiment, for the pairing

    def to_dict(self) -> dict[str, object]:
        found = asdict(self)
        found["kind"] = self.kind.value
        found["margin"] = self.margin.to_dict() if self.margin else None
        found["winklers"], found["spread"] = list(self.winklers), list(self.spread)
        found["spread_margins"] = [m.to_dict() for m in self.spread_margins]
        del found["spread_winklers"]
        return found


@dataclass(frozen=True)
class AbChecks(PassFail):
    careless_narrowest: bool  # among the references
    careless_coverage_well_below_95: bool  # at most CARELESS_MAX_COVERAGE
    careful_coverage_near_95: bool  # within CAREFUL_COVERAGE_BAND
    careful_best_winkler: bool  # better than every other row, references and cheaters (not the rows with a prior)
    references_ordered: bool  # Winkler: careless worst, then half, then careful
    careful_beats_every_cheater: bool  # by a paired 95% interval above zero: the task is valid


@dataclass(frozen=True)
class AbCalibration:
    corpus: str
    params: AbParams
    references: tuple[AbReferenceResult, ...]
    checks: AbChecks
    cheaters: tuple[AbReferenceResult, ...] = ()
    secret_id: str | None = None  # the secret the hidden experiments were drawn with (the manifest's)
    spread_secret_ids: tuple[str, ...] = ()
    with_prior: tuple[AbReferenceResult, ...] = ()  # careful's analysis with a public prior: reported, not held

    @property
    def rows(self) -> tuple[AbReferenceResult, ...]:
        return self.references + self.cheaters + self.with_prior

    def to_dict(self) -> dict[str, object]:
        return {"task": "ab_test", "corpus": self.corpus, "params": self.params.to_dict(), "secret_id": self.secret_id,
                "references": [r.to_dict() for r in self.references],
                "cheaters": [r.to_dict() for r in self.cheaters],
                "with_prior": [r.to_dict() for r in self.with_prior], "checks": self.checks.to_dict(),
                "spread_secret_ids": list(self.spread_secret_ids)}


def run_analyze(submission: Path, sessions: Path, output: Path, python: str = sys.executable) -> None:
    """`python analyze.py --input sessions --output output` in `submission`; ReferenceFailed on a non-zero exit."""
    run_script(submission, "analyze.py", "--input", sessions, output, python)


def check_ab_corpus(corpus: Path) -> None:
    check_data_folder(corpus, (MANIFEST_FILE, HOLDOUT_TRUTH_FILE, HOLDOUT_DIR), "an ab_test data folder")


def _grade(variant: str, submission: Path, corpus: Path, jobs: int, python: str) -> AbReferenceResult:
    from scorer.intervals import read_truth

    names = list(read_truth(corpus / HOLDOUT_TRUTH_FILE))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"bakeoff-{variant}-results-") as scratch:
        results = Path(scratch)
        run_each(names, lambda name: run_analyze(submission, corpus / HOLDOUT_DIR / f"{name}.csv",
                                                  results / f"{name}.json", python), jobs)
        return _scored(variant, results, corpus, time.perf_counter() - started)


def _scored(variant: str, results: Path, corpus: Path, seconds: float) -> AbReferenceResult:
    """`variant`'s row from its results folder (one <experiment>.json per hidden experiment of `corpus`)."""
    from scorer.intervals import score_results

    score = score_results(results, corpus / HOLDOUT_TRUTH_FILE)
    if score.failed:
        raise ReferenceFailed(f"{variant} wrote unusable results: {score.errors}")
    coverage, error, width, winkler = score.coverage, score.mean_abs_error, score.mean_width, score.winkler
    if coverage is None or error is None or width is None or winkler is None:  # read_truth refuses an empty key
        raise ReferenceFailed(f"{variant} was graded on no experiment")
    low, high = wilson_interval(sum(e.covered for e in score.experiments), len(score.experiments))
    winklers = tuple(float(e.winkler(score.level) or 0.0) for e in score.experiments)
    kind = (RowKind.CHEATER if variant in AB_CHEATERS else RowKind.WITH_PRIOR if variant in AB_WITH_PRIOR
            else RowKind.REFERENCE)
    return AbReferenceResult(variant, len(score.experiments), score.failed, coverage, error, width, winkler,
                             round(seconds, 2), kind, low, high, winklers)


def run_ab_reference(variant: str, corpus: Path, jobs: int = 2, python: str = sys.executable,
                     spread: Sequence[Path] = ()) -> AbReferenceResult:
    """Run `variant` on every hidden experiment of `corpus` (and of each `spread` folder) and grade the intervals."""
    corpus = Path(corpus).absolute()
    with tempfile.TemporaryDirectory(prefix=f"bakeoff-{variant}-") as scratch:
        submission = materialize_ab(variant, Path(scratch) / variant, corpus=corpus, python=python)
        result = _grade(variant, submission, corpus, jobs, python)
        others = [_grade(variant, submission, Path(folder), jobs, python) for folder in spread]
    return _with_spread(result, others)


def _with_spread(result: AbReferenceResult, others: Sequence[AbReferenceResult]) -> AbReferenceResult:
    """`result` with the same row's scores on the fresh-secret folders (`others`, in order) as its spread."""
    return replace(result, spread=tuple(o.winkler for o in others), spread_winklers=tuple(o.winklers for o in others))


def _rows_in_process(variants: Sequence[str], corpus: Path, spread: Sequence[Path], python: str,
                     progress: Callable[[str], None]) -> list[AbReferenceResult]:
    """Every row on every hidden experiment of `corpus` and of each `spread` folder, the rows' own analyze.py run
    in this process (generators.ab_test.in_process), each experiment's log parsed once for all rows."""
    from generators.ab_test.in_process import run_rows_in_process
    from scorer.intervals import read_truth

    with tempfile.TemporaryDirectory(prefix="bakeoff-ab-in-process-") as scratch:
        made = Path(scratch)
        submissions = {v: materialize_ab(v, made / "submissions" / v, corpus=corpus, python=python) for v in variants}
        graded = []
        for index, folder in enumerate((corpus, *(Path(f).absolute() for f in spread))):
            inputs = [folder / HOLDOUT_DIR / f"{name}.csv" for name in read_truth(folder / HOLDOUT_TRUTH_FILE)]
            results = made / f"results-{index}"
            seconds = run_rows_in_process(submissions, inputs, results, progress)
            graded.append({v: _scored(v, results / v, folder, seconds[v]) for v in variants})
    main, others = graded[0], graded[1:]
    return [_with_spread(main[v], [o[v] for o in others]) for v in variants]


def _with_margins(rows: list[AbReferenceResult]) -> list[AbReferenceResult]:
    careful = next(r for r in rows if r.variant == "ab_careful")
    return [r if r is careful else replace(
        r, margin=paired_mean_margin(careful.winklers, r.winklers, True),
        spread_margins=tuple(paired_mean_margin(c, o, True) for c, o in zip(careful.spread_winklers, r.spread_winklers,
                                                                              strict=True)))
        for r in rows]


def evaluate_ab(results: Sequence[AbReferenceResult]) -> AbChecks:
    by = {r.variant: r for r in results}
    careless, half, careful = by["ab_careless"], by["ab_half"], by["ab_careful"]
    references = [r for r in results if r.kind is RowKind.REFERENCE]
    cheaters = [r for r in results if r.kind is RowKind.CHEATER]
    low, high = CAREFUL_COVERAGE_BAND
    return AbChecks(
        careless_narrowest=all(careless.mean_width < r.mean_width for r in references if r is not careless),
        careless_coverage_well_below_95=careless.coverage <= CARELESS_MAX_COVERAGE,
        careful_coverage_near_95=low <= careful.coverage <= high,
        careful_best_winkler=all(careful.winkler < r.winkler for r in references + cheaters if r is not careful),
        references_ordered=careless.winkler > half.winkler > careful.winkler,
        careful_beats_every_cheater=bool(cheaters) and all(r.margin is not None and r.margin.careful_better
                                                           for r in cheaters),
    )


def calibrate_ab(corpus: Path, jobs: int = 2, progress: Callable[[str], None] = lambda _: None,
                 spread: Sequence[Path] = (), variants: Sequence[str] = AB_ROWS,
                 in_process: bool = False) -> AbCalibration:
    """Run the references and the cheaters on the hidden experiments of the ab_test folder `corpus`.

    `spread` names folders with the same parameters drawn with other secrets: each row's mean Winkler score
    on them is kept as its `spread`. `in_process`: the same scripts run in this process (the full-size bench),
    not as one subprocess per experiment."""
    corpus = Path(corpus).absolute()
    check_ab_corpus(corpus)
    for folder in spread:
        check_ab_corpus(Path(folder))
    manifest = read_manifest(corpus)
    params = params_of_manifest(manifest["params"])
    if in_process:
        results = _rows_in_process(variants, corpus, spread, sys.executable, progress)
    else:
        results = []
        for variant in variants:
            progress(f"running {variant}")
            results.append(run_ab_reference(variant, corpus, jobs, spread=spread))
    rows = _with_margins(results)
    spread_ids = tuple(str(read_manifest(Path(folder)).get("secret_id")) for folder in spread)
    return AbCalibration(str(corpus), params, tuple(r for r in rows if r.kind is RowKind.REFERENCE), evaluate_ab(rows),
                         tuple(r for r in rows if r.kind is RowKind.CHEATER), manifest.get("secret_id"), spread_ids,
                         tuple(r for r in rows if r.kind is RowKind.WITH_PRIOR))
