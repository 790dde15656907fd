"""The evaluate stage's hooks: the leak probe and the seed retrains, run in the run's own sandbox.

The runner calls each hook as `hook(ctx, clock, check)` after the final ladder check
and stores what it returns under the evaluate record's `extras`, keyed by the hook's
name (`extras.probe`, `extras.retrain`). `bakeoff analyze` computes the same two
results for an existing batch and writes them into `runs/<run_id>/analysis.json`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bakeoff.records import LadderCheck, Rung
from bakeoff.taskapi.context import RunContext, StageClock
from bakeoff.taskapi.hidden_inputs import HiddenInputs
from bakeoff.tasks.spam_classifier.probes import DEFAULT_ROWS, INCONCLUSIVE, ProbeResult, probe_submission
from bakeoff.tasks.spam_classifier.retrain import retrain_submission

PROBE_KEY = "probe"
RETRAIN_KEY = "retrain"


@dataclass(frozen=True)
class AnalysisOptions:
    """What the evaluate hooks and `bakeoff analyze` do."""

    probe: bool = True
    probe_rows: int | None = DEFAULT_ROWS  # None: every holdout row, as grading
    retrain_seeds: int = 2  # 0 turns the retrains off
    train_timeout_s: float = 600.0
    predict_timeout_s: float = 300.0
    judge: str | None = None  # `bakeoff analyze`'s model judge of the design (its spec), none by default


def skipped_probe(reason: str) -> ProbeResult:
    return ProbeResult(INCONCLUSIVE, reason, "moderator_flagged", 0, 0.0, None, ())


def seeded_env_for(base_env: Mapping[str, str]) -> Callable[[int], dict[str, str]]:
    """The run's execution environment with another seed in place of its own."""

    def env_for(seed: int) -> dict[str, str]:
        return {**base_env, "PYTHONHASHSEED": str(seed), "BAKEOFF_SEED": str(seed)}

    return env_for


def run_probe(sandbox, corpus_dir, gate: HiddenInputs, env, seed: int, rung: int,
              options: AnalysisOptions) -> ProbeResult:
    if rung < Rung.HIDDEN_STEP_RAN:  # the model files exist only once a prediction completed
        return skipped_probe("the submission never completed a prediction, so there is nothing to probe")
    return probe_submission(
        sandbox, corpus_dir, gate, env=env, rows=options.probe_rows, seed=seed, timeout_s=options.predict_timeout_s
    )


def run_retrain(sandbox, corpus_dir, env, seed: int, rung: int, f1, options: AnalysisOptions) -> dict[str, Any]:
    if rung < Rung.SCORED or options.retrain_seeds <= 0:
        return {"skipped": "the submission was not scored" if rung < Rung.SCORED else "retrains turned off"}
    result = retrain_submission(
        sandbox,
        corpus_dir,
        seed=seed,
        original_f1=f1,
        env_for_seed=seeded_env_for(env),
        count=options.retrain_seeds,
        train_timeout_s=options.train_timeout_s,
        predict_timeout_s=options.predict_timeout_s,
    )
    return result.to_dict()


def evaluate_hooks(options: AnalysisOptions = AnalysisOptions()) -> dict[str, Callable]:
    """{name: hook} for `BatchEnv.evaluate_hooks`: the probe and, unless turned off, the retrains."""

    def probe_hook(ctx: RunContext, clock: StageClock, check: LadderCheck) -> Mapping[str, Any]:
        started = time.monotonic()
        try:
            result = run_probe(ctx.sandbox, ctx.corpus.folder, ctx.hidden, ctx.env, ctx.seed, check.rung, options)
        finally:
            clock.sandbox_s += time.monotonic() - started
        return result.to_dict()

    def retrain_hook(ctx: RunContext, clock: StageClock, check: LadderCheck) -> Mapping[str, Any]:
        started = time.monotonic()
        try:
            # the retrains read the holdout: what they write is undone with the gate's closing
            with ctx.hidden.opened(ctx.sandbox):
                return run_retrain(ctx.sandbox, ctx.corpus.folder, ctx.env, ctx.seed, check.rung,
                                   check.headline_value, options)
        finally:
            clock.sandbox_s += time.monotonic() - started

    hooks: dict[str, Callable] = {}
    if options.probe:
        hooks[PROBE_KEY] = probe_hook
    if options.retrain_seeds > 0:
        hooks[RETRAIN_KEY] = retrain_hook
    return hooks
