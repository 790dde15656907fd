"""Per-run and per-model signals of the simulation take-home, from a batch's records, by rule.

Per run: its grade (bakeoff.tasks.simulation.grade: the relative interval metrics over the hidden
configurations, by load band, each configuration's interval against its truth), the behavioural probe's
verdict, what the design document states (WARMUP, INTERVAL) and their divergence. Per model: counts of each;
the grade's declared figures over the scored runs are the core's (bakeoff.analysis.grades).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bakeoff.batchfolder.read import RunRecords
from bakeoff.tasks.intervals.signals import (
    IntervalModel,
    IntervalRun,
    model_fields,
    per_model,
    probe_record,
    run_fields,
)
from bakeoff.tasks.simulation.design import (
    DIVERGENT,
    Divergence,
    StatedInterval,
    StatedWarmup,
    divergence_of,
    stated_interval,
    stated_warmup,
)
from bakeoff.tasks.simulation.grade import SimGrade
from bakeoff.tasks.simulation.probe import PROBE_KEY, SimProbeRecord
from generators.simulation.probe import Behaviour


@dataclass(frozen=True, kw_only=True)
class SimRunSignals(IntervalRun):
    grade: SimGrade | None = None
    probe: SimProbeRecord | None
    warmup: StatedWarmup
    interval: StatedInterval
    divergence: Divergence | None

    @property
    def behaviour(self) -> Behaviour | None:
        return self.probe.behaviour if self.probe else None


def probe_of(records: RunRecords) -> SimProbeRecord | None:
    """The probe's record (the task's own key) in the evaluate record's extras (or analysis.json)."""
    return probe_record(records, PROBE_KEY, "behaviour", SimProbeRecord.from_dict)


def sim_run_signals(records: RunRecords) -> SimRunSignals:
    probe = probe_of(records)
    warmup, interval = stated_warmup(records.design_text), stated_interval(records.design_text)
    return SimRunSignals(**run_fields(records, SimGrade), probe=probe, warmup=warmup, interval=interval,
                         divergence=divergence_of(warmup, interval, probe.behaviour if probe else None))


@dataclass(frozen=True, kw_only=True)
class SimModelSummary(IntervalModel):
    behaviours: Mapping[str, int]  # probe verdict -> graded runs
    warmups: Mapping[str, int]  # stated warm-up -> graded runs
    intervals: Mapping[str, int]  # stated interval -> graded runs

    @property
    def probed(self) -> int:
        return sum(self.behaviours.values())

    @property
    def divergent(self) -> int:
        return sum(n for name, n in self.divergences.items() if name in {d.value for d in DIVERGENT})


def summarise_models(runs: Sequence[SimRunSignals], labels: Sequence[str], bootstrap_seed: int = 0) -> list[SimModelSummary]:
    """One summary per model, in `labels` order (models with no run of their own are left out)."""
    return [SimModelSummary(
        **model_fields(figures, mine, graded, [r.divergence.value for r in graded if r.divergence]),
        behaviours=dict(Counter(r.probe.behaviour.value for r in graded if r.probe)),
        warmups=dict(Counter(r.warmup.value for r in graded)),
        intervals=dict(Counter(r.interval.value for r in graded)),
    ) for figures, mine, graded in per_model(runs, labels, SimGrade, bootstrap_seed)]
