"""Would a worst-effect-band headline let careful beat ab_test's shrinkage? The measurement behind docs/tasks.md
("ab_test", "A worst-band headline, measured").

For each data folder given, the rows' own analyze.py scripts run in this process (generators.ab_test.in_process)
on every hidden experiment, plus a shrinkage under the pooled public draws (cheaters.pooled_prior, not a row).
Each row's per-experiment Winkler score is then summarised by several candidate headlines, each the WORST of
its bands' mean scores, with careful's paired margin (the other row's headline minus careful's) and a seeded
bootstrap 95% interval, experiments resampled within each band:

- effect: bands by the true |effect| (none, nonzero up to the folder's median nonzero |effect|, above);
- z: bands by |effect| over the experiment's standard error (none, 0 < z <= 2.5, z > 2.5);
- z, standardised: the same bands, every Winkler score divided by that standard error first (a scale-free
  score, on which careful's risk is about the same at every z);
- z2, standardised: as that, with two bands, z <= 2.5 (no effect included) and above, so that no band is a
  handful of experiments;
- mean: the current headline, the mean Winkler score.

The standard error is careful's own on the experiment (fault removed), standing in for the truth's.

`--replicate R` adds what the headlines' margins over the shrinkages are in expectation, apart from the one draw
of the data each folder is: R replications of every experiment's estimate, the truth plus its standard error
times a standard normal (careful's interval the estimate +- 1.96 SE, the shrinkages' ab_shrink's own posterior
under the stated and the pooled prior), and the margin's mean, its spread over the replications, and the
number of experiments at which the mean would be 1.96 of those spreads (the spread shrinking as 1/sqrt(n)).

    .venv/bin/python bench/ab_band_study.py DIR [DIR ...] [--replicate R]   (folders of `bakeoff generate --task ab_test`)
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
import tempfile
from pathlib import Path

import numpy as np

from generators.ab_test.cheaters import REFERENCES, materialize_ab, pooled_prior, stated_prior
from generators.ab_test.in_process import run_rows_in_process
from generators.ab_test.params import params_of_manifest
from generators.ab_test.writer import HOLDOUT_DIR, HOLDOUT_TRUTH_FILE, MANIFEST_FILE
from scorer.intervals import read_truth, score_results

ROWS = ("ab_careful", "ab_shrink", "ab_band", "ab_size_width", "ab_fixed_inflation", "ab_constant", "ab_per_user")
POOLED = "pooled_shrink"
Z95 = 1.959963984540054
Z_CUT = 2.5
RESAMPLES = 2000
SEED = 0
MISS_PENALTY = 2 / (1 - 0.95)  # the Winkler score's, at the 95% level (scorer.intervals)


def measure(corpus: Path) -> dict[str, np.ndarray]:
    """Per-experiment Winkler scores of every row (and the pooled shrinkage), the truths, careful's SEs."""
    params = params_of_manifest(json.loads((corpus / MANIFEST_FILE).read_text(encoding="utf-8"))["params"])
    with tempfile.TemporaryDirectory(prefix="bakeoff-ab-bands-") as scratch:
        made = Path(scratch)
        submissions = {row: materialize_ab(row, made / row, corpus=corpus) for row in ROWS}
        submissions[POOLED] = materialize_ab("ab_shrink", made / POOLED, corpus=corpus)
        (submissions[POOLED] / "prior.json").write_text(json.dumps(pooled_prior(params)), encoding="utf-8")
        names = list(read_truth(corpus / HOLDOUT_TRUTH_FILE))
        run_rows_in_process(submissions, [corpus / HOLDOUT_DIR / f"{n}.csv" for n in names], made / "results")
        found: dict[str, np.ndarray] = {}
        for row in submissions:
            score = score_results(made / "results" / row, corpus / HOLDOUT_TRUTH_FILE)
            found[row] = np.array([e.winkler(score.level) for e in score.experiments], dtype=float)
            if row == "ab_careful":
                found["truth"] = np.array([e.truth for e in score.experiments])
                found["se"] = np.array([(e.result.ci_high - e.result.ci_low) / (2 * Z95)  # type: ignore[union-attr]
                                        for e in score.experiments])
    return found


def bands_of(kind: str, truth: np.ndarray, se: np.ndarray) -> list[np.ndarray]:
    size = np.abs(truth)
    if kind == "mean":
        return [np.arange(truth.size)]
    if kind == "effect":
        median = float(np.median(size[size > 0])) if (size > 0).any() else 0.0
        masks = [size == 0, (size > 0) & (size <= median), size > median]
    elif kind == "z":
        z = size / se
        masks = [size == 0, (size > 0) & (z <= Z_CUT), z > Z_CUT]
    else:  # "z2": no effect joined to the small ones, so that no band is a handful of experiments
        z = size / se
        masks = [z <= Z_CUT, z > Z_CUT]
    return [np.flatnonzero(m) for m in masks if m.any()]


def worst(scores: np.ndarray, bands: list[np.ndarray]) -> float:
    return max(float(scores[b].mean()) for b in bands)


def margin(careful: np.ndarray, other: np.ndarray, bands: list[np.ndarray]) -> tuple[float, float, float]:
    """Other's headline minus careful's, with its stratified bootstrap 95% interval."""
    rng = np.random.default_rng(SEED)
    draws = []
    for _ in range(RESAMPLES):
        picked = [rng.choice(b, b.size) for b in bands]
        draws.append(worst(other, picked) - worst(careful, picked))
    low, high = np.percentile(draws, [2.5, 97.5])
    return worst(other, bands) - worst(careful, bands), float(low), float(high)


# name: (how the bands are cut, whether each score is divided by the experiment's standard error first)
HEADLINES = {"mean": ("mean", False), "effect": ("effect", False), "z": ("z", False), "z, standardised": ("z", True),
             "z2, standardised": ("z2", True)}


def tables(measured: dict[str, dict[str, np.ndarray]]) -> str:
    lines = []
    for headline, (kind, standardised) in HEADLINES.items():
        lines += ["", f"Headline: {headline} (each cell: the row's headline, careful's margin [95%])", "",
                  "| row | " + " | ".join(measured) + " |", "| --- |" + " ---: |" * len(measured)]
        for row in (*ROWS, POOLED):
            cells = []
            for m in measured.values():
                scale, bands = (m["se"] if standardised else 1.0), bands_of(kind, m["truth"], m["se"])
                careful, other = m["ab_careful"] / scale, m[row] / scale
                cell = f"{worst(other, bands):.4g}"
                if row != "ab_careful":
                    estimate, low, high = margin(careful, other, bands)
                    cell += f", {estimate:+.4g} [{low:+.4g}, {high:+.4g}]"
                cells.append(cell)
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
    sizes = {name: [b.size for b in bands_of("z", m["truth"], m["se"])] for name, m in measured.items()}
    lines += ["", f"Experiments per band (z): {sizes}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--replicate", type=int, default=0, help="replications of the normal model (0: none)")
    args = parser.parse_args(argv)
    measured = {}
    for folder in args.folders:
        print(f"measuring {folder}", file=sys.stderr, flush=True)
        measured[folder.name] = measure(folder.absolute())
    print(tables(measured))
    for folder in args.folders if args.replicate else ():
        print(replicated(folder.absolute(), measured[folder.name], args.replicate))
    return 0


def replicated(corpus: Path, measured: dict[str, np.ndarray], replications: int) -> str:
    """The headlines' expected margins over the two shrinkages under the normal model (see the module's doc)."""
    posterior = runpy.run_path(str(REFERENCES / "ab_shrink" / "analyze.py"))["posterior_interval"]
    params = params_of_manifest(json.loads((corpus / MANIFEST_FILE).read_text(encoding="utf-8"))["params"])
    priors = {"ab_shrink": stated_prior(params), POOLED: pooled_prior(params)}
    truth, se = measured["truth"], measured["se"]
    rng = np.random.default_rng(SEED)
    margins: dict[tuple[str, str], list[float]] = {(h, p): [] for h in HEADLINES for p in priors}
    for _ in range(replications):
        estimate = truth + se * rng.standard_normal(truth.size)
        careful = _winkler(estimate - Z95 * se, estimate + Z95 * se, truth)
        shrunk = {}
        for name, prior in priors.items():
            ends = np.array([posterior(e, s, prior)[1:] for e, s in zip(estimate, se, strict=True)])
            shrunk[name] = _winkler(ends[:, 0], ends[:, 1], truth)
        for headline, (kind, standardised) in HEADLINES.items():
            scale, bands = (se if standardised else 1.0), bands_of(kind, truth, se)
            for name in priors:
                margins[(headline, name)].append(worst(shrunk[name] / scale, bands) - worst(careful / scale, bands))
    lines = ["", f"{corpus.name}, normal model, {replications} replications: careful's expected margin "
             "(spread; experiments for mean = 1.96 spreads)"]
    for (headline, name), found in margins.items():
        mean, spread = float(np.mean(found)), float(np.std(found))
        needed = f"{truth.size * (Z95 * spread / mean) ** 2:.0f}" if mean > 0 else "never (careful worse)"
        lines.append(f"  {headline:16s} {name:13s} {mean:+.4g} ({spread:.3g}; {needed})")
    return "\n".join(lines)


def _winkler(low: np.ndarray, high: np.ndarray, truth: np.ndarray) -> np.ndarray:
    return high - low + MISS_PENALTY * (np.maximum(0.0, low - truth) + np.maximum(0.0, truth - high))


if __name__ == "__main__":
    sys.exit(main())
