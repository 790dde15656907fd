"""Writing the simulation take-home's data folder atomically.

The folder holds what the model gets (examples/, excerpt.txt), what the sandbox sees but the model never
does (holdout/, one configuration file each), what only the grader reads (holdout_truth.csv, truth.json,
secret.hex) and manifest.json (every parameter, the secret's id, the files' hashes and what was drawn).
Until it is published whole the folder holds only its secret and the truths already computed
(generators.simulation.checkpoint), so a stopped build resumes and never reads as a corpus; the published corpus
keeps a copy of them (reference_progress/, outside the manifest) for more reference batches later.
"""

from __future__ import annotations

import csv
import json
import math
import shutil
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import durable
from generators.common.output import check_target, file_sha256, new_staging
from generators.secret import SECRET_FILE, Secret
from generators.simulation.checkpoint import (
    PROGRESS_DIR,
    checkpointed,
    is_partial,
    line_key,
    resumable_secret,
    reusable_progress,
    start_progress,
)
from generators.simulation.configs import band_of, example_lines, hidden_lines
from generators.simulation.params import GENERATOR_VERSION, SimParams
from generators.simulation.queueing import Line, exactly_computable, mean_wait
from generators.simulation.reference import simulate_wait, sized_orders
from generators.simulation.secret import SimSecret

EXAMPLES_DIR, HOLDOUT_DIR = "examples", "holdout"
EXCERPT_FILE, TRUTH_FILE, HOLDOUT_TRUTH_FILE, MANIFEST_FILE = "excerpt.txt", "truth.json", "holdout_truth.csv", "manifest.json"
VISIBLE_EXAMPLE = "example_1"  # the one the visible step runs (and the excerpt shows)
# truth_se: the standard error of a simulated truth (0 for an exact one); a 1.0 folder has no such column.
TRUTH_COLUMNS = ("configuration", "wait", "method", "utilisation", "band", "stations", "family", "levels", "truth_se")
_LETTERS = {"exponential": "M", "erlang": "E2", "hyperexponential": "H2", "lognormal": "LN",
            "deterministic_plus_noise": "D+G"}  # erlang: shape 2 here
SIMULATION = "reference_simulation"


@dataclass(frozen=True)
class SimManifest:
    params: SimParams
    secret_id: str
    sha256: Mapping[str, str]
    truth: tuple[Mapping[str, Any], ...]  # the hidden rows of holdout_truth.csv

    def measured(self) -> dict[str, Any]:
        utilisations = [float(row["utilisation"]) for row in self.truth]
        waits = [float(row["wait"]) for row in self.truth]
        return {
            "configurations": len(self.truth),
            "bands": dict(sorted(Counter(row["band"] for row in self.truth).items())),
            "methods": dict(sorted(Counter(row["method"] for row in self.truth).items())),
            "stations": {str(k): v for k, v in sorted(Counter(int(row["stations"]) for row in self.truth).items())},
            "families": dict(sorted(Counter(row["family"] for row in self.truth).items())),
            "utilisation": [min(utilisations), max(utilisations)],
            "wait": [min(waits), max(waits)],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "generator_version": GENERATOR_VERSION,
            "seed": self.params.seed,
            "params": self.params.to_dict(),
            "secret_id": self.secret_id,
            "hidden_part": "configurations and their seeds drawn from the seed and the secret (secret.hex, never "
                           "mounted); the examples from the seed alone",
            "truth": "erlang_c (M/M/c), pollaczek_khinchine (M/G/1), ctmc: the queue's Markov chain truncated at "
                     "`levels` orders, raised until Wq moved by under 1e-9 and the last levels held under 1e-13; "
                     f"{SIMULATION}: {self.params.reference_millions} million orders a line before its share by stations, "
                     "in replications seeded from the secret, combined with two control variates "
                     "(generators.simulation.reference)" + (
                         f", {self.params.reference_batches} such batches pooled (their mean)"
                         if self.params.reference_batches > 1 else "") + ", its standard error in truth_se",
            "sha256": dict(self.sha256),
            "measured": self.measured(),
        }


def family_of(config: Mapping[str, Any]) -> str:
    """Kendall's notation of a line: arrival/service/stations, e.g. M/H2/2."""
    arrival = _LETTERS[config["interarrival"]["distribution"]]
    service = _LETTERS[config["service"]["distribution"]]
    return f"{arrival}/{service}/{config['stations']}"


def truth_row(config: Mapping[str, Any], reference_orders: int, seeds: np.random.SeedSequence) -> dict[str, Any]:
    """The line's long-run mean wait: exact where a method computes it, else a reference simulation of
    `reference_orders` orders a line, sized by its stations (reference.sized_orders), from `seeds` (the
    secret's: nothing public reproduces its noise)."""
    line = Line.of(config)
    row = {"configuration": config["name"], "utilisation": round(line.utilisation, 6),
           "band": band_of(line.utilisation), "stations": config["stations"], "family": family_of(config)}
    if exactly_computable(line):
        exact = mean_wait(config)
        return {**row, "wait": repr(exact.wait), "method": exact.method,
                "levels": exact.levels if exact.levels is not None else "", "truth_se": 0.0}
    simulated = simulate_wait(line, sized_orders(line, reference_orders), np.random.default_rng(seeds))
    return {**row, "wait": repr(simulated.wait), "method": SIMULATION, "levels": "",
            "truth_se": repr(simulated.standard_error)}


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, allow_nan=False) + "\n", encoding="utf-8")


def _write_truth_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=TRUTH_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def kept_truth_row(config: dict[str, Any], orders: int, seeds: np.random.SeedSequence,
                   path: Path | None) -> dict[str, Any]:
    """`truth_row`, kept in `path` once computed and read back from it while its key holds
    (generators.simulation.checkpoint; no path: nothing kept)."""
    return checkpointed(lambda: truth_row(config, orders, seeds), path, line_key(config, orders, seeds))


def pooled(batches: list[dict[str, Any]]) -> dict[str, Any]:
    """Independent reference batches of one line (the same size) as one truth: the mean of their waits and the
    standard error of that mean. One batch is itself, bit for bit."""
    if len(batches) == 1:
        return batches[0]
    waits = [float(row["wait"]) for row in batches]
    errors = [float(row["truth_se"]) for row in batches]
    return {**batches[0], "wait": repr(sum(waits) / len(waits)),
            "truth_se": repr(math.sqrt(sum(e * e for e in errors)) / len(errors))}


def batch_purpose(name: str, batch: int) -> str:
    """What a line's reference batch is seeded for: batch 0 as a one-batch corpus always was (so a corpus given
    more batches keeps the first it had), each further one on its own."""
    return f"reference {name}" + (f" batch {batch}" if batch else "")


def batch_file(name: str, batch: int) -> str:
    return f"{name}.json" if batch == 0 else f"{name}.batch{batch}.json"


TruthTask = tuple[dict[str, Any], np.random.SeedSequence, Path | None]  # a configuration, its seeds, where it is kept


def _truth_rows(tasks: list[TruthTask], orders: int, jobs: int, progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """The truth of every task, `jobs` at a time (the reference simulations are what costs), each kept where its
    task says as it is done: a kill loses only the tasks in flight."""
    if jobs <= 1:
        rows = []
        for index, (config, seeds, path) in enumerate(tasks):
            progress(f"truth {index + 1} of {len(tasks)}")
            rows.append(kept_truth_row(config, orders, seeds, path))
        return rows
    from concurrent.futures import ProcessPoolExecutor, as_completed

    progress(f"{len(tasks)} truths, {jobs} at a time")
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(kept_truth_row, config, orders, seeds, path): index
                   for index, (config, seeds, path) in enumerate(tasks)}
        found: dict[int, dict[str, Any]] = {}
        for future in as_completed(futures):
            found[futures[future]] = future.result()
            progress(f"{len(found)} of {len(tasks)} truths done")
        return [found[index] for index in range(len(tasks))]


def _hidden_rows(configs: list[dict[str, Any]], params: SimParams, secret: Secret, jobs: int,
                 progress: Callable[[str], None], kept: Path | None) -> list[dict[str, Any]]:
    """Each hidden line's truth: exact, or `params.reference_batches` reference batches pooled."""
    plan = [(index, batch) for index, config in enumerate(configs)
            for batch in range(1 if exactly_computable(Line.of(config)) else params.reference_batches)]
    tasks: list[TruthTask] = [(configs[index], secret.seed_sequence(params.seed, batch_purpose(configs[index]["name"], batch)),
                          kept and kept / batch_file(configs[index]["name"], batch)) for index, batch in plan]
    rows = _truth_rows(tasks, params.reference_millions * 1_000_000, jobs, progress)
    return [pooled([row for (index, _), row in zip(plan, rows, strict=True) if index == line])
            for line in range(len(configs))]


def generate_sim_data(params: SimParams, out_dir: Path, force: bool = False, secret: Secret | None = None,
                      progress: Callable[[str], None] = lambda _: None, jobs: int = 1) -> SimManifest:
    """The visible examples (seed alone), the hidden configurations (seed and secret: a fresh one unless
    given; any Secret is named by the simulation's id scheme) with their truth (exact, or a reference
    simulation: `jobs` of them at a time), and the manifest, into `out_dir`.

    Each line's truth is kept in `out_dir` as it is done (generators.simulation.checkpoint), so a build that
    was stopped resumes where it stopped, with the secret it kept when none is given; `out_dir` gets its
    manifest only when the corpus is published whole."""
    out_dir = Path(out_dir).absolute()
    partial = is_partial(out_dir)
    kept_secret = resumable_secret(out_dir, SimSecret) if secret is None else None
    if kept_secret is not None:
        progress(f"resuming the unfinished corpus in {out_dir} with the secret it keeps")
    secret = SimSecret(secret.value) if secret is not None else kept_secret or SimSecret.fresh()
    check_target(out_dir, force or partial)
    # A folder that holds a complete corpus (or anything else, under --force) is replaced at the end; of it only the
    # kept lines of a corpus with this very secret are read (and added to), nothing else is written into it.
    kept = (start_progress(out_dir, secret) if partial or not out_dir.exists() or not any(out_dir.iterdir())
            else reusable_progress(out_dir, secret))
    staging = new_staging(out_dir)
    with durable.publishing(staging, out_dir):  # replaces whatever was there, whole; a failure removes the staging
        progress("the visible examples")
        orders = params.reference_millions * 1_000_000  # the examples' truth (a visible figure only) from a tenth
        (staging / EXAMPLES_DIR).mkdir()
        examples = example_lines(params.cpu_seconds, np.random.SeedSequence([params.seed, 0x51]))
        for config in examples:
            _write_json(staging / EXAMPLES_DIR / f"{config['name']}.json", config)
        (staging / EXCERPT_FILE).write_bytes((staging / EXAMPLES_DIR / f"{VISIBLE_EXAMPLE}.json").read_bytes())
        example_rows = _truth_rows([(c, np.random.SeedSequence([params.seed, 0x52, i]),
                                     kept and kept / EXAMPLES_DIR / batch_file(c["name"], 0))
                                    for i, c in enumerate(examples)], max(1, orders // 10), jobs, progress)
        _write_json(staging / TRUTH_FILE, {c["name"]: row for c, row in zip(examples, example_rows, strict=True)})
        (staging / HOLDOUT_DIR).mkdir()
        configs = hidden_lines(params.configurations, params.cpu_seconds,
                               secret.seed_sequence(params.seed, "hidden configurations"))
        for config in configs:
            _write_json(staging / HOLDOUT_DIR / f"{config['name']}.json", config)
        rows = _hidden_rows(configs, params, secret, jobs, progress, kept and kept / HOLDOUT_DIR)
        _write_truth_csv(staging / HOLDOUT_TRUTH_FILE, rows)
        secret.write(staging)
        names = sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*") if p.is_file()
                       and p.name != SECRET_FILE)
        manifest = SimManifest(params, secret.identity, {name: file_sha256(staging / name) for name in names}, tuple(rows))
        _write_json(staging / MANIFEST_FILE, manifest.to_dict())
        if kept is not None:  # bookkeeping beside the corpus (not in its manifest): what more batches build on
            shutil.copytree(kept, staging / PROGRESS_DIR)
    return manifest


def read_truth_rows(folder: Path) -> list[dict[str, str]]:
    """holdout_truth.csv as rows of text (the grader reads `configuration` and `wait`; reports the rest)."""
    with open(Path(folder) / HOLDOUT_TRUTH_FILE, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))
