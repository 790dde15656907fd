"""Per-run and per-model signals of the simulation take-home, from a batch's records, by rule.

Per run: the relative interval metrics over the hidden configurations (coverage of the true mean wait,
relative error, relative Winkler score), the same by load band, each configuration's interval against its
truth (for the plot), the behavioural probe's verdict, what the design document states (WARMUP, INTERVAL)
and their divergence. Per model: counts of each, and the metrics' means over the scored runs with a seeded
bootstrap interval.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bakeoff.analysis.stats import Estimate
from bakeoff.batchfolder.read import RunRecords
from bakeoff.tasks.intervals.signals import (
    IntervalModel,
    IntervalRun,
    final_metrics,
    interval_points,
    mean_of,
    model_fields,
    number,
    per_model,
    probe_record,
    run_fields,
    score_counts,
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
from bakeoff.tasks.simulation.probe import PROBE_KEY, SimProbeRecord
from generators.simulation.probe import Behaviour

BANDS = ("light", "medium", "heavy")


@dataclass(frozen=True)
class BandMetrics:
    coverage: float | None
    relative_winkler: float | None
    graded: int


@dataclass(frozen=True)
class SimMetrics:
    """scorer.intervals.IntervalScore (relative) as the check recorded it, with its bands."""

    coverage: float | None
    relative_winkler: float | None
    mean_rel_error: float | None
    winkler: float | None
    configurations: int
    graded: int
    failed: int
    errors: Mapping[str, int] = field(default_factory=dict)
    bands: Mapping[str, BandMetrics] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SimMetrics | None:
        """None when `data` is not a relative interval score (another task's metrics, or nothing)."""
        if not isinstance(data, Mapping) or "relative_winkler" not in data:
            return None
        raw_bands = data.get("bands")
        bands = {str(name): BandMetrics(number(b.get("coverage")), number(b.get("relative_winkler")), int(b.get("graded") or 0))
                 for name, b in (raw_bands.items() if isinstance(raw_bands, Mapping) else ()) if isinstance(b, Mapping)}
        return cls(number(data.get("coverage")), number(data.get("relative_winkler")), number(data.get("mean_rel_error")),
                   number(data.get("winkler")), *score_counts(data), bands)


@dataclass(frozen=True, kw_only=True)
class SimRunSignals(IntervalRun):
    metrics: SimMetrics | None
    probe: SimProbeRecord | None
    warmup: StatedWarmup
    interval: StatedInterval
    divergence: Divergence | None

    @property
    def behaviour(self) -> Behaviour | None:
        return self.probe.behaviour if self.probe else None

    @property
    def scored(self) -> bool:
        return self.status == "scored" and self.metrics is not None and self.metrics.relative_winkler is not None


def probe_of(records: RunRecords) -> SimProbeRecord | None:
    """The probe's record (the task's own key) in the evaluate record's extras (or analysis.json)."""
    return probe_record(records, PROBE_KEY, "behaviour", SimProbeRecord.from_dict)


def sim_run_signals(records: RunRecords) -> SimRunSignals:
    metrics_data = final_metrics(records, "relative_winkler")
    probe = probe_of(records)
    warmup, interval = stated_warmup(records.design_text), stated_interval(records.design_text)
    return SimRunSignals(
        **run_fields(records),
        metrics=SimMetrics.from_dict(metrics_data), points=interval_points(metrics_data, "estimate"), probe=probe,
        warmup=warmup, interval=interval, divergence=divergence_of(warmup, interval, probe.behaviour if probe else None),
    )


@dataclass(frozen=True, kw_only=True)
class SimModelSummary(IntervalModel):
    behaviours: Mapping[str, int]  # probe verdict -> graded runs
    warmups: Mapping[str, int]  # stated warm-up -> graded runs
    intervals: Mapping[str, int]  # stated interval -> graded runs
    coverage: Estimate | None
    mean_rel_error: Estimate | None
    relative_winkler: Estimate | None
    band_coverage: Mapping[str, Estimate]  # band -> coverage over the scored runs
    band_winkler: Mapping[str, Estimate]

    @property
    def probed(self) -> int:
        return sum(self.behaviours.values())

    @property
    def divergent(self) -> int:
        return sum(n for name, n in self.divergences.items() if name in {d.value for d in DIVERGENT})


def summarise_models(runs: Sequence[SimRunSignals], labels: Sequence[str], bootstrap_seed: int = 0) -> list[SimModelSummary]:
    """One summary per model, in `labels` order (models with no run of their own are left out)."""
    import numpy as np

    rng = np.random.default_rng(bootstrap_seed)
    summaries = []
    for label, mine, graded, scored in per_model(runs, labels, lambda r: r.scored and r.metrics is not None):

        def by_band(name: str, scored: list[SimRunSignals] = scored) -> dict[str, Estimate]:
            found = {}
            for band in BANDS:
                got = mean_of([getattr(r.metrics.bands[band], name) for r in scored
                               if r.metrics is not None and band in r.metrics.bands], rng)
                if got is not None:
                    found[band] = got
            return found

        summaries.append(SimModelSummary(
            **model_fields(label, mine, graded, scored, [r.divergence.value for r in graded if r.divergence]),
            behaviours=dict(Counter(r.probe.behaviour.value for r in graded if r.probe)),
            warmups=dict(Counter(r.warmup.value for r in graded)),
            intervals=dict(Counter(r.interval.value for r in graded)),
            coverage=mean_of([r.metrics.coverage for r in scored if r.metrics], rng),
            mean_rel_error=mean_of([r.metrics.mean_rel_error for r in scored if r.metrics], rng),
            relative_winkler=mean_of([r.metrics.relative_winkler for r in scored if r.metrics], rng),
            band_coverage=by_band("coverage"), band_winkler=by_band("relative_winkler"),
        ))
    return summaries
