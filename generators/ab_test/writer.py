"""Writing the A/B-test data folder atomically, with the spam corpus's durable-write helpers.

The folder holds what the model gets (sessions.csv, excerpt.txt), what only the grader reads
(truth.json, holdout/, holdout_truth.csv, secret.hex) and manifest.json (every parameter, the files'
hashes, the secret's id and the rates measured on the written files). The visible experiment comes from
the seed alone; the hidden experiments (their seeds, sizes and effects) from the seed and the secret.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

import durable
from generators.ab_test.hidden import draw_centre, draw_conditions, hidden_effects, hidden_tilts
from generators.ab_test.measure import MeasuredSessions, measure_file
from generators.ab_test.params import GENERATOR_VERSION, AbParams
from generators.ab_test.population import Population
from generators.ab_test.sessions import ExperimentSpec, ExperimentTruth, build_experiment, conditions_of
from generators.common.output import check_target, file_sha256, new_staging
from generators.secret import Secret
from generators.spam_classifier.memory import check_memory
from generators.spam_classifier.writer import _write_csv

SESSIONS_FILE = "sessions.csv"
EXCERPT_FILE = "excerpt.txt"
TRUTH_FILE = "truth.json"
HOLDOUT_DIR = "holdout"
HOLDOUT_TRUTH_FILE = "holdout_truth.csv"
MANIFEST_FILE = "manifest.json"
EXCERPT_LINES = 10
HIDDEN_PURPOSE = "ab_test hidden experiments"  # names the secret-keyed stream the hidden part is drawn from


@dataclass(frozen=True)
class AbManifest:
    generator_version: str
    params: AbParams
    sha256: dict[str, str]
    measured: MeasuredSessions
    holdout_rows: dict[str, int]
    secret_id: str  # names the secret the hidden experiments were drawn with (generators.secret); never the secret

    def to_dict(self) -> dict[str, object]:
        return {
            "generator_version": self.generator_version,
            "seed": self.params.seed,
            "secret_id": self.secret_id,
            "hidden_part": "holdout/ and holdout_truth.csv: sizes, effects and logs drawn from the seed and the "
                           "secret in secret.hex, never mounted; the visible experiment from the seed alone",
            "params": self.params.to_dict(),
            "sha256": dict(self.sha256),
            "measured": self.measured.to_dict(),
            "holdout_rows": dict(self.holdout_rows),
        }


def experiment_name(index: int) -> str:
    return f"exp_{index:03d}"


def _wide_seed(sequence: np.random.SeedSequence) -> int:
    """128 bits of seed for one experiment's Generator: too many to search, unlike a 32-bit seed."""
    return int.from_bytes(sequence.generate_state(4, dtype=np.uint32).tobytes(), "big")


def holdout_specs(params: AbParams, secret: Secret) -> list[ExperimentSpec]:
    """The hidden experiments, all from the seed and the secret: own seeds, sizes log-uniform from
    holdout_users to holdout_users * holdout_size_spread, own conditions, effects and tilts (generators.ab_test.hidden;
    with condition_spread 0 the parameters' conditions and the effects of 2.0, byte for byte)."""
    plan, *children = secret.seed_sequence(params.seed, HIDDEN_PURPOSE).spawn(1 + params.experiments)
    rng = np.random.default_rng(plan)
    varied = params.condition_spread > 0
    centre = draw_centre(rng, params) if varied else None
    conditions = [draw_conditions(rng, params, centre) for _ in range(params.experiments)] if centre else []
    effects = hidden_effects(rng, params, conditions or [conditions_of(params)] * params.experiments)
    sizes = params.holdout_users * params.holdout_size_spread ** rng.random(params.experiments)
    tilts = hidden_tilts(rng, params, conditions, effects) if varied else [0.0] * params.experiments
    return [
        ExperimentSpec(_wide_seed(child), int(round(sizes[index])), effects[index],
                       conditions[index] if varied else None, tilts[index])
        for index, child in enumerate(children)
    ]


def visible_spec(params: AbParams) -> ExperimentSpec:
    """The visible experiment: from the seed alone, so `--seed` reproduces what the model is shown."""
    return ExperimentSpec(_wide_seed(np.random.SeedSequence(params.seed)), params.users, params.effect)


def expected_rows(params: AbParams, users: int, population: Population | None = None) -> int:
    """Sessions expected for `users` users (of `population`, the parameters' by default): a person's
    E[visits] = sum over k <= max_visits of P(visits >= k) = k^-tail, a bot's the middle of its range."""
    p = population or params.population
    person = sum(k ** -p.visits_tail for k in range(1, p.max_visits + 1))
    bot = (p.bot_min_visits + p.bot_max_visits) / 2
    mean_visits = (1 - p.bot_share) * person + p.bot_share * bot
    return int(users * mean_visits * 1.2)  # the fault's duplicates and a margin


def _largest_log(params: AbParams, specs: list[ExperimentSpec]) -> int:
    """Rows expected in the largest log: the visible one or a hidden one (each with its own population)."""
    hidden = [expected_rows(params, s.users, s.conditions.population if s.conditions else None) for s in specs]
    return max([expected_rows(params, params.users), *hidden])


def _write_excerpt(csv_path: Path, excerpt: Path) -> None:
    with csv_path.open(encoding="utf-8", newline="") as source:
        lines = list(itertools.islice(source, EXCERPT_LINES))
    excerpt.write_text("".join(lines), encoding="utf-8", newline="")


def _write_holdout(params: AbParams, specs: list[ExperimentSpec], folder: Path,
                   progress: Callable[[str], None]) -> dict[str, int]:
    (folder / HOLDOUT_DIR).mkdir()
    rows, truths = {}, []
    for index, spec in enumerate(specs):
        name = experiment_name(index)
        progress(f"hidden experiment {index + 1} of {params.experiments}")
        frame, truth = build_experiment(spec, params)
        _write_csv(frame, folder / HOLDOUT_DIR / f"{name}.csv")
        rows[name] = len(frame)
        drawn = {f"drawn_{key}": value for key, value in spec.conditions.to_dict().items()} if spec.conditions else {}
        truths.append({"experiment": name, **truth.to_dict(), **drawn})
    _write_csv(pd.DataFrame(truths), folder / HOLDOUT_TRUTH_FILE)
    return rows


def _write_visible(params: AbParams, folder: Path) -> ExperimentTruth:
    frame, truth = build_experiment(visible_spec(params), params)
    _write_csv(frame, folder / SESSIONS_FILE)
    _write_excerpt(folder / SESSIONS_FILE, folder / EXCERPT_FILE)
    (folder / TRUTH_FILE).write_text(json.dumps(truth.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return truth


def generate_ab_data(
    params: AbParams, out_dir: Path, force: bool = False, progress: Callable[[str], None] = lambda _: None,
    secret: Secret | None = None,
) -> AbManifest:
    """Generate the visible experiment, the hidden ones and the manifest into `out_dir`.

    The visible experiment depends on `params` alone; the hidden ones also on `secret` (a fresh one from
    the operating system when none is given), written to `out_dir/secret.hex` beside their truth.
    """
    secret = secret if secret is not None else Secret.fresh()
    out_dir = Path(out_dir).absolute()
    specs = holdout_specs(params, secret)
    # One experiment is held in memory at a time: the largest one decides (before anything is allocated).
    check_memory(_largest_log(params, specs), 0)
    check_target(out_dir, force)
    staging = new_staging(out_dir)
    with durable.publishing(staging, out_dir):  # replaces whatever was there, whole; a failure removes the staging
        progress("the visible experiment")
        _write_visible(params, staging)
        holdout_rows = _write_holdout(params, specs, staging, progress)
        secret.write(staging)
        progress("measuring the written files")
        names = [SESSIONS_FILE, EXCERPT_FILE, TRUTH_FILE, HOLDOUT_TRUTH_FILE]
        names += [f"{HOLDOUT_DIR}/{name}.csv" for name in holdout_rows]
        manifest = AbManifest(
            GENERATOR_VERSION, params, {name: file_sha256(staging / name) for name in names},
            measure_file(staging / SESSIONS_FILE), holdout_rows, secret.identity,
        )
        text = json.dumps(manifest.to_dict(), indent=2, sort_keys=True) + "\n"
        (staging / MANIFEST_FILE).write_text(text, encoding="utf-8")
    return manifest


def read_holdout_truth(folder: Path) -> pd.DataFrame:
    return pd.read_csv(Path(folder) / HOLDOUT_TRUTH_FILE)
