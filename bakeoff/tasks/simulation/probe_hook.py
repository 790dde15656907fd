"""The simulation behavioural probe as an evaluate hook: run in the run's own sandbox on the final submission.

The runner calls `hook(ctx, clock, check)` after the final ladder check and keeps what it returns under the
evaluate record's `extras.behaviour_probe` (bakeoff.tasks.simulation.signals reads it back). The probe runs
only on a submission that completed every hidden configuration's run, on the heaviest-load ones (the model
never saw them; the check has already run simulate.py on each once, so they are known to fit the limits).
Its settings are the task's own: probe_configurations, probe_seeds, probe_budget_factor.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from bakeoff.records import Rung
from bakeoff.tasks.simulation.layout import HOLDOUT_PART
from bakeoff.tasks.simulation.probe import PROBE_KEY, SimProbeRecord, probe_in_sandbox, skipped
from bakeoff.tasks.simulation.truth import truth_table


def run_probe(ctx: Any, rung: int) -> SimProbeRecord:
    if rung < Rung.HIDDEN_STEP_RAN:  # nothing ever came out of simulate.py: a probe would only repeat the crash
        return skipped("simulate.py never completed on every hidden configuration, so there is nothing to probe")
    from bakeoff.tasks.simulation.check import request_for

    own = ctx.task.settings.own
    job = ctx.grade_job(PROBE_KEY)
    # each of the probe's runs opens the gate: what the submission writes meanwhile is undone as it closes
    return probe_in_sandbox(ctx.sandbox, ctx.corpus.path(HOLDOUT_PART), truth_table(ctx.corpus), gate=job.hidden,
                            request=request_for(job), count=int(own["probe_configurations"]),
                            seeds=int(own["probe_seeds"]), factor=int(own["probe_budget_factor"]))


def probe_hooks(enabled: bool = True) -> dict[str, Callable[..., Mapping[str, Any]]]:
    """{"behaviour_probe": hook} for the simulation plug-in's `evaluate_hooks`; none when probes are off."""

    def hook(ctx: Any, clock: Any, check: Any) -> Mapping[str, Any]:
        started = time.monotonic()
        try:
            return run_probe(ctx, int(check.rung)).to_dict()
        finally:
            clock.sandbox_s += time.monotonic() - started

    return {PROBE_KEY: hook} if enabled else {}
