"""The ab_test unit probe as an evaluate hook: run in the run's own sandbox on the final submission.

The runner calls `hook(ctx, clock, check)` after the final ladder check and keeps what it returns under the
evaluate record's `extras.unit_probe` (bakeoff.tasks.ab_test.signals reads it back). The probe runs on the
first hidden experiment (by name): the model never saw it, so an analysis tuned to the visible log gains
nothing, and the check has already run analyze.py on it once, so it is known to fit the sandbox's limits.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bakeoff.records import Rung
from bakeoff.tasks.ab_test.layout import HOLDOUT_PART
from bakeoff.tasks.ab_test.unit_probe import UNIT_PROBE_KEY, UnitProbeRecord, probe_unit_in_sandbox, skipped


def probe_experiment(corpus_folder: Path) -> Path | None:
    """The hidden experiment the probe runs on: the first by name, or None when there is none."""
    folder = Path(corpus_folder) / HOLDOUT_PART
    found = sorted(p for p in folder.glob("*.csv") if p.is_file() and not p.is_symlink()) if folder.is_dir() else []
    return found[0] if found else None


def probe_submission(job: Any, rung: int) -> UnitProbeRecord:
    """The probe of the submission graded by `job` (a bakeoff.taskapi.grading.GradeJob) on the data folder's first
    hidden experiment (a batch's evaluate stage and `bakeoff score` alike), staged as grading stages it."""
    from bakeoff.tasks.ab_test.check import request_for

    if rung < Rung.HIDDEN_STEP_RAN:  # nothing ever came out of analyze.py: a probe would only repeat the crash
        return skipped("analyze.py never completed on a hidden experiment, so there is nothing to probe")
    experiment = probe_experiment(job.corpus.folder)
    if experiment is None:
        return skipped("the data folder has no hidden experiment to probe on")
    return probe_unit_in_sandbox(job.sandbox, experiment, gate=job.hidden, command=request_for(job).command,
                                 env=job.env, experiment=experiment.stem)


def run_unit_probe(ctx: Any, rung: int) -> UnitProbeRecord:
    # each of the probe's runs opens the gate: what the submission writes meanwhile is undone as it closes
    return probe_submission(ctx.grade_job(UNIT_PROBE_KEY), rung)


def unit_probe_hooks(enabled: bool = True) -> dict[str, Callable[..., Mapping[str, Any]]]:
    """{"unit_probe": hook} for the ab_test plug-in's `evaluate_hooks`; none when probes are turned off."""

    def hook(ctx: Any, clock: Any, check: Any) -> Mapping[str, Any]:
        started = time.monotonic()
        try:
            return run_unit_probe(ctx, int(check.rung)).to_dict()
        finally:
            clock.sandbox_s += time.monotonic() - started

    return {UNIT_PROBE_KEY: hook} if enabled else {}
