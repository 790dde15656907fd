"""Calibration of the simulation take-home: the references and the degenerate baselines on every hidden
configuration, graded by the interval grader with its scale-free scores, overall and by load band.

Each simulate.py runs on the host as a plain subprocess (our own trusted code; a submission runs the same
way in the sandbox), under the same CPU-time cap a submission gets (RLIMIT_CPU at the configuration's
`cpu_seconds`). The headline is the mean relative Winkler score (Winkler score over the true wait, lower is
better). The targets: careless worse than half, half worse than careful; careful's coverage near 95% in
every load band; careful better than every baseline and every cheap method of generators.simulation.cheaters,
by a paired bootstrap interval (over configurations, seeded) above zero; half better than every approximation;
the truth's own error (a reference simulation's 95% half-width) at most a tenth of careful's half-width.
"""

from __future__ import annotations

import json
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import durable
from generators.common.intervals import PassFail, check_data_folder, run_each, run_script
from generators.errors import GeneratorError, ReferenceFailed
from generators.simulation import cheaters
from generators.simulation.checkpoint import RESULTS_DIR, kept_run, result_key
from generators.simulation.params import SimParams
from generators.simulation.writer import HOLDOUT_DIR, HOLDOUT_TRUTH_FILE, MANIFEST_FILE, read_truth_rows

SIM_REFERENCES = ("sim_careless", "sim_half", "sim_careful")
SIM_BASELINES = ("sim_mm1", "sim_erlang_c", "sim_constant")
RESULT_KEYS = ("estimate", "ci_low", "ci_high")
TRUTH_COLUMNS = ("configuration", "wait")
REFERENCES = Path(__file__).resolve().parent / "references"
CAREFUL_BAND_COVERAGE = (0.80, 1.0)  # 95% less about three binomial errors over 16 configurations a band
BOOTSTRAP_RESAMPLES = 10_000


class UnknownSimReference(GeneratorError):
    """A reference or baseline name that does not exist."""


@dataclass(frozen=True)
class BandScore:
    band: str
    configurations: int
    coverage: float | None
    relative_winkler: float | None
    mean_rel_error: float | None


@dataclass(frozen=True)
class SimReferenceResult:
    variant: str
    configurations: int
    failed: int
    coverage: float
    relative_winkler: float  # the headline
    mean_rel_error: float
    winkler: float  # in minutes, for reference
    bands: tuple[BandScore, ...]
    per_configuration: Mapping[str, float]  # relative Winkler score of each configuration (what pairs are made of)
    seconds: float
    half_widths: Mapping[str, float] = field(default_factory=dict)  # of each configuration's interval
    estimates: Mapping[str, float] = field(default_factory=dict)  # each configuration's point estimate
    calibrated_band: float | None = None  # a cheater's calibrated band or widening (None: none)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def band(self, name: str) -> BandScore | None:
        return next((b for b in self.bands if b.band == name), None)


@dataclass(frozen=True)
class PairedMargin:
    """A variant's relative Winkler score minus careful's, per configuration: mean and seeded bootstrap 95%
    interval (positive: careful is better)."""

    variant: str
    mean: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class SimChecks(PassFail):
    careless_worse_than_half: bool
    half_worse_than_careful: bool
    careful_coverage_near_95_every_band: bool  # within CAREFUL_BAND_COVERAGE in each band
    careful_beats_every_baseline: bool  # every baseline's paired margin above zero, interval excluding it
    careful_beats_every_cheater: bool = False  # the same for every cheap method (generators.simulation.cheaters)
    half_better_than_every_approximation: bool = False  # the ladder's middle rung above every formula
    truth_error_within_a_tenth: bool = False  # every simulated truth's 95% half-width <= careful's / 10


@dataclass(frozen=True)
class SimCalibration:
    corpus: str
    params: SimParams
    references: tuple[SimReferenceResult, ...]
    baselines: tuple[SimReferenceResult, ...]
    margins: tuple[PairedMargin, ...]
    checks: SimChecks
    cheaters: tuple[SimReferenceResult, ...] = ()
    truth_error: Mapping[str, float] = field(default_factory=dict)  # ratio to careful's half-width: max, median

    def to_dict(self) -> dict[str, object]:
        return {"task": "simulation", "corpus": self.corpus, "params": self.params.to_dict(),
                "references": [r.to_dict() for r in self.references],
                "baselines": [r.to_dict() for r in self.baselines],
                "cheaters": [r.to_dict() for r in self.cheaters], "truth_error": dict(self.truth_error),
                "margins": [asdict(m) for m in self.margins], "checks": self.checks.to_dict()}


def materialize_sim(variant: str, dest: Path) -> Path:
    """Write the `variant` submission (simulate.py) into `dest`; return dest."""
    if variant not in SIM_REFERENCES + SIM_BASELINES:
        raise UnknownSimReference(f"no reference named {variant!r}; choose one of: "
                                  f"{', '.join(SIM_REFERENCES + SIM_BASELINES)}")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REFERENCES / variant / "simulate.py", dest / "simulate.py")
    return dest


def cpu_capped(cpu_seconds: int) -> Callable[[], None]:
    """A preexec function: the child's CPU time capped as in the sandbox (SIGXCPU at the budget)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    return limit


def run_simulate(submission: Path, config: Path, output: Path, python: str = sys.executable) -> None:
    """`python simulate.py --config config --output output` in `submission`, CPU-capped at the configuration's
    budget; ReferenceFailed on a non-zero exit."""
    budget = int(json.loads(Path(config).read_text(encoding="utf-8"))["cpu_seconds"])
    run_script(submission, "simulate.py", "--config", config, output, python, preexec_fn=cpu_capped(budget))


def check_sim_corpus(corpus: Path) -> None:
    check_data_folder(corpus, (MANIFEST_FILE, HOLDOUT_TRUTH_FILE, HOLDOUT_DIR), "a simulation data folder")


def grade_folder(results: Path, corpus: Path) -> Any:
    """scorer.intervals' relative grade of a folder of <configuration>.json results."""
    from scorer.intervals import score_results

    return score_results(results, corpus / HOLDOUT_TRUTH_FILE, keys=RESULT_KEYS, columns=TRUTH_COLUMNS, relative=True)


def band_scores(score: Any, bands: Mapping[str, str]) -> tuple[BandScore, ...]:
    from scorer.intervals import score_groups

    groups = score_groups(score, bands)
    return tuple(BandScore(band, len(g.experiments), g.coverage, g.relative_winkler, g.mean_rel_error)
                 for band, g in sorted(groups.items(), key=lambda item: _BAND_ORDER.get(item[0], 9)))


_BAND_ORDER = {"light": 0, "medium": 1, "heavy": 2}


def run_sim_reference(variant: str, corpus: Path, jobs: int = 2, python: str = sys.executable,
                      configs: Path | None = None, keep: Path | None = None) -> SimReferenceResult:
    """Run `variant` on every hidden configuration of `corpus` (or on their copies in `configs`) and grade the
    intervals; with `keep`, each result is kept there once run and a kept one is not run again
    (generators.simulation.checkpoint)."""
    corpus = Path(corpus).absolute()
    configs = configs or corpus / HOLDOUT_DIR
    names = [row["configuration"] for row in read_truth_rows(corpus)]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"bakeoff-{variant}-") as scratch:
        submission = materialize_sim(variant, Path(scratch) / variant)  # named: a failure names the row
        results = Path(scratch) / "results"
        results.mkdir()
        def run_one(name: str) -> None:
            config, output = configs / f"{name}.json", results / f"{name}.json"
            kept = None if keep is None else keep / variant / f"{name}.{result_key(submission, config)}.json"
            kept_run(lambda: run_simulate(submission, config, output, python), output, kept)

        run_each(names, run_one, jobs)
        return graded(variant, results, corpus, time.perf_counter() - started)


def graded(variant: str, results: Path, corpus: Path, seconds: float, band: float | None = None) -> SimReferenceResult:
    """A folder of results graded against the corpus's truth, overall, by band and per configuration."""
    rows = read_truth_rows(corpus)
    names = [row["configuration"] for row in rows]
    score = grade_folder(results, corpus)
    if score.failed:
        raise ReferenceFailed(f"{variant} wrote unusable results: {score.errors}")
    if score.coverage is None or score.relative_winkler is None or score.mean_rel_error is None or score.winkler is None:
        raise ReferenceFailed(f"{variant} was graded on no configuration")
    per = {e.experiment: float(e.relative_winkler(score.level)) for e in score.experiments}
    halves = {e.experiment: (e.result.ci_high - e.result.ci_low) / 2 for e in score.experiments if e.result}
    estimates = {e.experiment: e.result.effect for e in score.experiments if e.result}
    return SimReferenceResult(variant, len(names), score.failed, score.coverage, score.relative_winkler,
                              score.mean_rel_error, score.winkler,
                              band_scores(score, {row["configuration"]: row["band"] for row in rows}), per,
                              round(seconds, 2), halves, estimates, band)


def paired_margin(variant: SimReferenceResult, careful: SimReferenceResult, seed: int = 0) -> PairedMargin:
    """Mean of (variant - careful) relative Winkler over configurations, with a seeded bootstrap 95% interval."""
    import numpy as np

    names = sorted(careful.per_configuration)
    diffs = np.array([variant.per_configuration[n] - careful.per_configuration[n] for n in names])
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), (BOOTSTRAP_RESAMPLES, len(diffs)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return PairedMargin(variant.variant, float(diffs.mean()), float(low), float(high))


def run_cheaters(corpus: Path, jobs: int = 2, python: str = sys.executable,
                 keep: Path | None = None) -> tuple[SimReferenceResult, ...]:
    """The cheap methods of generators.simulation.cheaters on every hidden configuration, graded as submissions."""
    rows = read_truth_rows(corpus)
    truth = {row["configuration"]: float(row["wait"]) for row in rows}
    configs = {name: json.loads((corpus / HOLDOUT_DIR / f"{name}.json").read_text(encoding="utf-8")) for name in truth}
    with tempfile.TemporaryDirectory(prefix="bakeoff-sim-cheaters-") as scratch:
        started = time.perf_counter()
        rows_of = cheaters.formula_intervals(configs, truth)
        formula_seconds = time.perf_counter() - started
        short_configs = Path(scratch) / "short_configs"
        short_configs.mkdir()
        for name, config in configs.items():
            (short_configs / f"{name}.json").write_text(durable.dumps(cheaters.short_config(config)), encoding="utf-8")
        started = time.perf_counter()
        short = run_sim_reference("sim_careful", corpus, jobs, python, configs=short_configs, keep=keep)
        short_seconds = time.perf_counter() - started
        short_intervals = _intervals_of(short, truth)
        rows_of.update(cheaters.short_intervals(short_intervals, truth))
        return tuple(graded(variant, cheaters.write_results(intervals, Path(scratch) / variant), corpus,
                            short_seconds if variant in cheaters.SHORT_CHEATERS else formula_seconds, band)
                     for variant, (intervals, band) in rows_of.items())


def _intervals_of(result: SimReferenceResult, truth: Mapping[str, float]) -> dict[str, tuple[float, float, float]]:
    """Each configuration's (estimate, low, high) back from a graded run (its half-width and its graded estimate)."""
    return {name: (result.estimates[name], result.estimates[name] - half, result.estimates[name] + half)
            for name, half in result.half_widths.items()}


def truth_error(corpus: Path, careful: SimReferenceResult) -> dict[str, float]:
    """The simulated truths' 95% half-width over careful's half-width: the largest and the median (0 if none)."""
    import numpy as np

    ratios = [1.96 * float(row.get("truth_se") or 0.0) / careful.half_widths[row["configuration"]]
              for row in read_truth_rows(corpus)
              if float(row.get("truth_se") or 0.0) > 0 and careful.half_widths.get(row["configuration"], 0) > 0]
    return {"simulated": len(ratios), "max": max(ratios, default=0.0),
            "median": float(np.median(ratios)) if ratios else 0.0}


def evaluate_sim(references: Sequence[SimReferenceResult], margins: Sequence[PairedMargin],
                 cheater_rows: Sequence[SimReferenceResult] = (), truth_ratio: float = 0.0) -> SimChecks:
    by = {r.variant: r for r in references}
    careless, half, careful = by["sim_careless"], by["sim_half"], by["sim_careful"]
    low, high = CAREFUL_BAND_COVERAGE
    baseline_margins = [m for m in margins if m.variant in SIM_BASELINES]
    return SimChecks(
        careless_worse_than_half=careless.relative_winkler > half.relative_winkler,
        half_worse_than_careful=half.relative_winkler > careful.relative_winkler,
        careful_coverage_near_95_every_band=bool(careful.bands) and all(
            b.coverage is not None and low <= b.coverage <= high for b in careful.bands),
        careful_beats_every_baseline=bool(baseline_margins) and all(m.low > 0 for m in baseline_margins),
        careful_beats_every_cheater=bool(cheater_rows) and all(
            m.low > 0 for m in margins if m.variant in {r.variant for r in cheater_rows}),
        half_better_than_every_approximation=bool(cheater_rows) and all(
            half.relative_winkler < r.relative_winkler for r in cheater_rows if r.variant in cheaters.APPROXIMATIONS),
        truth_error_within_a_tenth=truth_ratio <= 0.1,
    )


def calibrate_sim(corpus: Path, jobs: int = 2, progress: Callable[[str], None] = lambda _: None,
                  bootstrap_seed: int = 0, keep_results: bool = False) -> SimCalibration:
    """Run the references and the baselines on the hidden configurations of the simulation folder `corpus`;
    `keep_results`: each run's result kept in the corpus (checkpoint.RESULTS_DIR), so a re-run resumes."""
    corpus = Path(corpus).absolute()
    check_sim_corpus(corpus)
    params = SimParams(**json.loads((corpus / MANIFEST_FILE).read_text(encoding="utf-8"))["params"])
    keep = corpus / RESULTS_DIR if keep_results else None
    results = {}
    for variant in SIM_REFERENCES + SIM_BASELINES:
        progress(f"running {variant}")
        results[variant] = run_sim_reference(variant, corpus, jobs, keep=keep)
    progress("running the cheap methods")
    cheater_rows = run_cheaters(corpus, jobs, keep=keep)
    careful = results["sim_careful"]
    margins = tuple(paired_margin(r, careful, bootstrap_seed)
                    for r in (*(results[v] for v in SIM_REFERENCES + SIM_BASELINES), *cheater_rows)
                    if r.variant != "sim_careful")
    references = tuple(results[v] for v in SIM_REFERENCES)
    error = truth_error(corpus, careful)
    return SimCalibration(str(corpus), params, references, tuple(results[v] for v in SIM_BASELINES), margins,
                          evaluate_sim(references, margins, cheater_rows, error["max"]), cheater_rows, error)
