"""Calibration of the A/B-test take-home: run the three reference analyses on the hidden experiments.

Each reference's analyze.py runs on the host as a plain subprocess, once per hidden experiment (they are
our own trusted code; a submission runs the same way in the sandbox), and the interval grader scores the
results against holdout_truth.csv. The targets: careless has the narrowest intervals and coverage well
below 95%; careful covers near 95% and has the best (lowest) Winkler score.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from generators.ab_test import AbParams
from generators.ab_test.writer import HOLDOUT_DIR, HOLDOUT_TRUTH_FILE, MANIFEST_FILE
from generators.calibration.runner import _child_env
from generators.errors import CorpusNotFound, GeneratorError, ReferenceFailed
from generators.spam.writer import read_manifest

AB_VARIANTS = ("ab_careless", "ab_half", "ab_careful")
REFERENCES = Path(__file__).resolve().parents[1] / "references"
CARELESS_MAX_COVERAGE = 0.80  # "well below 95%"
CAREFUL_COVERAGE_BAND = (0.85, 1.0)  # 95% +/- about three binomial errors over 48 experiments
_TAIL_CHARS = 2000


class UnknownAbReference(GeneratorError):
    """A reference analysis name that does not exist."""


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

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class AbChecks:
    careless_narrowest: bool
    careless_coverage_well_below_95: bool  # at most CARELESS_MAX_COVERAGE
    careful_coverage_near_95: bool  # within CAREFUL_COVERAGE_BAND
    careful_best_winkler: bool

    @property
    def all_passed(self) -> bool:
        return all(asdict(self).values())

    def to_dict(self) -> dict[str, bool]:
        return asdict(self)


@dataclass(frozen=True)
class AbCalibration:
    corpus: str
    params: AbParams
    references: tuple[AbReferenceResult, ...]
    checks: AbChecks

    def to_dict(self) -> dict[str, object]:
        return {"task": "ab_test", "corpus": self.corpus, "params": self.params.to_dict(),
                "references": [r.to_dict() for r in self.references], "checks": self.checks.to_dict()}


def materialize_ab(variant: str, dest: Path) -> Path:
    """Write the `variant` submission (analyze.py) into `dest`; return dest."""
    if variant not in AB_VARIANTS:
        raise UnknownAbReference(f"no reference named {variant!r}; choose one of: {', '.join(AB_VARIANTS)}")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REFERENCES / variant / "analyze.py", dest / "analyze.py")
    return dest


def run_analyze(submission: Path, sessions: Path, output: Path, python: str = sys.executable) -> None:
    """`python analyze.py --input sessions --output output` in `submission`; ReferenceFailed on a non-zero exit."""
    argv = [python, "analyze.py", "--input", str(sessions), "--output", str(output)]
    done = subprocess.run(argv, cwd=submission, capture_output=True, text=True, env=_child_env())
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-_TAIL_CHARS:]
        raise ReferenceFailed(f"{submission.name} analyze.py on {sessions.name} exited with {done.returncode}:\n{tail}")


def check_ab_corpus(corpus: Path) -> None:
    missing = [name for name in (MANIFEST_FILE, HOLDOUT_TRUTH_FILE, HOLDOUT_DIR) if not (corpus / name).exists()]
    if missing:
        raise CorpusNotFound(f"{corpus} is not an ab_test data folder (missing {', '.join(missing)})")


def run_ab_reference(variant: str, corpus: Path, jobs: int = 2, python: str = sys.executable) -> AbReferenceResult:
    """Run `variant` on every hidden experiment of `corpus` and grade the intervals."""
    from scorer.intervals import read_truth, score_results

    corpus = Path(corpus).absolute()
    names = list(read_truth(corpus / HOLDOUT_TRUTH_FILE))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"bakeoff-{variant}-") as scratch:
        submission = materialize_ab(variant, Path(scratch) / "submission")
        results = Path(scratch) / "results"
        results.mkdir()
        run = lambda name: run_analyze(  # noqa: E731
            submission, corpus / HOLDOUT_DIR / f"{name}.csv", results / f"{name}.json", python)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            list(pool.map(run, names))
        score = score_results(results, corpus / HOLDOUT_TRUTH_FILE)
    if score.failed:
        raise ReferenceFailed(f"{variant} wrote unusable results: {score.errors}")
    coverage, error, width, winkler = score.coverage, score.mean_abs_error, score.mean_width, score.winkler
    if coverage is None or error is None or width is None or winkler is None:  # read_truth refuses an empty key
        raise ReferenceFailed(f"{variant} was graded on no experiment")
    return AbReferenceResult(variant, len(names), score.failed, coverage, error, width, winkler,
                             round(time.perf_counter() - started, 2))


def evaluate_ab(results: list[AbReferenceResult]) -> AbChecks:
    by = {r.variant: r for r in results}
    careless, careful = by["ab_careless"], by["ab_careful"]
    low, high = CAREFUL_COVERAGE_BAND
    return AbChecks(
        careless_narrowest=all(careless.mean_width < r.mean_width for r in results if r is not careless),
        careless_coverage_well_below_95=careless.coverage <= CARELESS_MAX_COVERAGE,
        careful_coverage_near_95=low <= careful.coverage <= high,
        careful_best_winkler=all(careful.winkler < r.winkler for r in results if r is not careful),
    )


def calibrate_ab(corpus: Path, jobs: int = 2, progress: Callable[[str], None] = lambda _: None) -> AbCalibration:
    """Run the three references on the hidden experiments of the ab_test folder `corpus`."""
    corpus = Path(corpus).absolute()
    check_ab_corpus(corpus)
    params = AbParams(**read_manifest(corpus)["params"])
    results = []
    for variant in AB_VARIANTS:
        progress(f"running reference {variant}")
        results.append(run_ab_reference(variant, corpus, jobs))
    return AbCalibration(str(corpus), params, tuple(results), evaluate_ab(results))
