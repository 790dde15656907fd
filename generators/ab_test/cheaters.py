"""The A/B-test take-home's reference analyses and its degenerate baselines, as submission folders.

References (generators/ab_test/references/ab_*): careless (every row an independent trial), half (by user, the fault
missed), careful (by user, the fault removed). Cheaters, which a headline must not reward:

- ab_constant: one data-free interval for every experiment, the 2.5%..97.5% range of the true effects as the
  generator's public parameters make them (the best constant a reader of the public code can pick);
- ab_hardcoded: the visible experiment's careful answer, the same for every experiment;
- ab_band: a sound (careful) estimate with a fixed band of +-0.01, no variance;
- ab_per_user: the mean of per-user rates with a Welch interval: the right unit, the wrong estimand;
- ab_size_width: the careful estimate, a half-width K / sqrt(users) with K fitted on the visible experiment;
- ab_fixed_inflation: a visit-level interval (fault removed) inflated by the design effect measured once on the
  visible experiment;
- ab_size_width_shrunk, ab_fixed_inflation_shrunk: those two intervals, shrunk toward zero under the effect
  distribution the public parameters state (references/shrunk/): a prior on top of an analysis that skipped the
  variance.

With a prior (not a cheater: careful's whole analysis, and more):
- ab_shrink: careful's estimate and standard error shrunk toward zero under the effect distribution the public
  parameters state (a quarter at zero, the rest uniform in [-0.05, 0.05] at the defaults). A posterior under
  what the public code implies is the Bayes rule for an averaged interval score, so no headline that averages
  over experiments can make careful beat it in expectation; since it needs every step careful takes, a tie
  rewards nothing but the skill. Its row is reported, not held to careful's margin (docs/tasks.md).

Each of the last three would tie careful on 2.0 data, where every hidden experiment shared the visible one's
population and the effects the parameters' distribution; 3.0 draws both with the secret (generators.ab_test.hidden).
`materialize_ab` writes one as a self-contained folder (analyze.py and the data it carries).
"""

from __future__ import annotations

import functools
import json
import math
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

import durable
from generators.ab_test import AbParams
from generators.ab_test.hidden import public_effect_draws
from generators.ab_test.measure import refired_purchases
from generators.ab_test.params import params_of_manifest
from generators.ab_test.writer import MANIFEST_FILE, SESSIONS_FILE
from generators.common.child import child_env
from generators.errors import GeneratorError, ReferenceFailed

AB_VARIANTS = ("ab_careless", "ab_half", "ab_careful")
AB_CHEATERS = ("ab_constant", "ab_hardcoded", "ab_band", "ab_per_user", "ab_size_width", "ab_fixed_inflation",
               "ab_size_width_shrunk", "ab_fixed_inflation_shrunk")
AB_WITH_PRIOR = ("ab_shrink",)
AB_ROWS = AB_VARIANTS + AB_CHEATERS + AB_WITH_PRIOR
SHRUNK_BASES = {"ab_size_width_shrunk": "ab_size_width", "ab_fixed_inflation_shrunk": "ab_fixed_inflation"}
FITTED_ON_VISIBLE = ("ab_hardcoded", "ab_size_width", "ab_fixed_inflation", *SHRUNK_BASES)  # need the visible log
PRIOR_CELL = 0.0005  # the width of ab_shrink's histogram cells (a tenth of the smallest careful half-width or so)
REFERENCES = Path(__file__).resolve().parent / "references"
LEVEL = 0.95
Z95 = 1.959963984540054


class UnknownAbReference(GeneratorError):
    """A reference analysis name that does not exist, or a cheater made without the data folder it needs."""


def constant_interval(params: AbParams, level: float = LEVEL) -> dict[str, float]:
    """The central `level` range of the hidden true effects as the public code makes them. With condition_spread
    0 (2.0's effects): a share `zero_effect_share` at 0, the rest uniform in [-max_effect, max_effect], exactly;
    otherwise the quantiles of the public draws. Symmetric, so the constant's estimate is 0."""
    tail = (1 - level) / 2
    if params.condition_spread > 0:
        reach = float(np.quantile(np.abs(_public_draws(params)), level))
        return {"effect": 0.0, "ci_low": -reach, "ci_high": reach}
    spread = 1 - params.zero_effect_share
    reach = params.max_effect * max(0.0, 1 - 2 * tail / spread) if spread > 0 else 0.0
    return {"effect": 0.0, "ci_low": -reach, "ci_high": reach}


@functools.lru_cache(maxsize=4)
def _public_draws(params: AbParams) -> np.ndarray:
    return public_effect_draws(params)


def stated_prior(params: AbParams) -> dict[str, object]:
    """What ab_shrink carries: the effect distribution the parameters state (a share `zero_effect_share` at zero,
    the rest uniform in [-max_effect, max_effect]), the one every hidden experiment followed before 3.0, as a
    point mass and a histogram."""
    edges = np.arange(-params.max_effect, params.max_effect + PRIOR_CELL / 2, PRIOR_CELL)
    return _prior(params.zero_effect_share, edges, np.full(len(edges) - 1, 1.0))


def pooled_prior(params: AbParams) -> dict[str, object]:
    """The same from the public code's draws pooled over corpora drawn with a public seed: the most a reader of
    the public generator can know of a 3.0 corpus's effects without its secret (a measurement, not a row: on
    average over secrets a posterior under it must do at least as well as careful, see docs/tasks.md)."""
    draws = _public_draws(params)
    others = draws[draws != 0]
    reach = max(float(np.abs(others).max()) if others.size else PRIOR_CELL, PRIOR_CELL)
    edges = np.arange(-reach - PRIOR_CELL, reach + 2 * PRIOR_CELL, PRIOR_CELL)
    counts, _ = np.histogram(others, edges)
    return _prior(float(np.mean(draws == 0)), edges, counts.astype(float))


def _prior(null_share: float, edges: np.ndarray, counts: np.ndarray) -> dict[str, object]:
    return {"null_share": null_share, "centres": ((edges[:-1] + edges[1:]) / 2).round(7).tolist(),
            "weights": (counts / max(1.0, counts.sum())).tolist()}


def _visible_fit(corpus: Path, python: str) -> dict[str, float]:
    """On the visible experiment: careful's half-width times sqrt(users), and the design effect of a visit-level
    interval, (careful's standard error / the two-proportion one over visits) squared, the fault removed."""
    answer = _careful_answer(corpus, python)
    sessions = pd.read_csv(corpus / SESSIONS_FILE).drop_duplicates()
    sessions = sessions[~refired_purchases(sessions)]
    rates = sessions.groupby("arm")["converted"].agg(["mean", "size"])
    visit_variance = float(sum(rates.loc[arm, "mean"] * (1 - rates.loc[arm, "mean"]) / rates.loc[arm, "size"]
                               for arm in ("A", "B")))
    half = (answer["ci_high"] - answer["ci_low"]) / 2
    careful_se = half / Z95
    return {"half_width_times_sqrt_users": half * math.sqrt(sessions["user_id"].nunique()),
            "design_effect": careful_se**2 / visit_variance}


def _careful_answer(corpus: Path, python: str) -> dict[str, float]:
    """The careful reference's result on the visible experiment of `corpus`."""
    with tempfile.TemporaryDirectory(prefix="bakeoff-ab-hardcoded-") as scratch:
        output = Path(scratch) / "visible.json"
        argv = [python, str(REFERENCES / "ab_careful" / "analyze.py"), "--input", str(corpus / SESSIONS_FILE),
                "--output", str(output)]
        done = subprocess.run(argv, capture_output=True, text=True, env=child_env())
        if done.returncode != 0:
            raise ReferenceFailed(f"ab_careful on {corpus / SESSIONS_FILE} exited with {done.returncode}:\n"
                                  f"{(done.stdout + done.stderr)[-2000:]}")
        return json.loads(output.read_text(encoding="utf-8"))


def materialize_ab(variant: str, dest: Path, corpus: Path | None = None, python: str = sys.executable) -> Path:
    """Write the `variant` submission (analyze.py, and what a cheater carries) into `dest`; return dest.

    ab_constant reads the corpus's public parameters (the defaults without a corpus); ab_hardcoded needs the
    corpus, whose visible experiment it analyses once."""
    if variant not in AB_ROWS:
        raise UnknownAbReference(f"no reference named {variant!r}; choose one of: {', '.join(AB_ROWS)}")
    if variant in FITTED_ON_VISIBLE and corpus is None:
        raise UnknownAbReference(f"{variant} is fitted on a data folder's visible experiment: give the folder")
    if variant in SHRUNK_BASES:
        return _shrunk(SHRUNK_BASES[variant], Path(dest), corpus, python)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REFERENCES / variant / "analyze.py", dest / "analyze.py")
    params = _params_of(corpus)
    if variant == "ab_constant":
        _carry(dest / "constant.json", constant_interval(params))
    if variant == "ab_shrink":
        _carry(dest / "prior.json", stated_prior(params))
    if variant == "ab_hardcoded" and corpus is not None:
        _carry(dest / "answer.json", _careful_answer(Path(corpus), python))
    if variant in ("ab_size_width", "ab_fixed_inflation") and corpus is not None:
        fit = _visible_fit(Path(corpus), python)
        key, name = (("half_width_times_sqrt_users", "width.json") if variant == "ab_size_width"
                     else ("design_effect", "inflation.json"))
        _carry(dest / name, {key: fit[key]})
    return dest


def _shrunk(base: str, dest: Path, corpus: Path | None, python: str) -> Path:
    """The `base` cheater as base.py, ab_shrink's posterior beside it, and the wrapper that shrinks its interval."""
    materialize_ab(base, dest, corpus, python)
    shutil.copyfile(REFERENCES / base / "analyze.py", dest / "base.py")  # analyze.py is the wrapper's, below
    shutil.copyfile(REFERENCES / "ab_shrink" / "analyze.py", dest / "posterior.py")
    shutil.copyfile(REFERENCES / "shrunk" / "analyze.py", dest / "analyze.py")
    params = _params_of(corpus)
    _carry(dest / "prior.json", stated_prior(params))
    return dest


def _params_of(corpus: Path | None) -> AbParams:
    """The public parameters of `corpus` (the defaults without one)."""
    return params_of_manifest(json.loads((corpus / MANIFEST_FILE).read_text())["params"]) if corpus else AbParams()


def _carry(path: Path, data: Mapping[str, object]) -> None:
    path.write_text(durable.dumps(data) + "\n", encoding="utf-8")
