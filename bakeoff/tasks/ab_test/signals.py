"""Per-run and per-model signals of the ab_test take-home, from a batch's records, by rule.

Per run: the interval metrics over the hidden experiments (coverage of the true effect, mean absolute
error, mean width, Winkler score), each experiment's interval against its truth (for the plot), the unit
probe's verdict, the unit the design document states and their divergence. Per model: counts of each,
and the metrics' means over the scored runs with a seeded bootstrap interval.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bakeoff.analysis.stats import Estimate
from bakeoff.batchfolder.read import RunRecords
from bakeoff.tasks.ab_test.unit_probe import (
    UNIT_PROBE_KEY,
    StatedUnit,
    UnitDivergence,
    UnitProbeRecord,
    divergence_of,
    stated_unit,
)
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
from generators.ab_test.probe import Unit


@dataclass(frozen=True)
class IntervalMetrics:
    """scorer.intervals.IntervalScore as recorded: the metrics are over the graded experiments."""

    coverage: float | None
    mean_abs_error: float | None
    mean_width: float | None
    winkler: float | None
    experiments: int
    graded: int
    failed: int
    errors: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IntervalMetrics | None:
        """None when `data` is not an interval score (a spam run's metrics, or nothing)."""
        if not isinstance(data, Mapping) or "winkler" not in data:
            return None
        return cls(number(data.get("coverage")), number(data.get("mean_abs_error")), number(data.get("mean_width")),
                   number(data.get("winkler")), *score_counts(data))


@dataclass(frozen=True, kw_only=True)
class AbRunSignals(IntervalRun):
    metrics: IntervalMetrics | None
    probe: UnitProbeRecord | None
    stated: StatedUnit
    divergence: UnitDivergence | None

    @property
    def measured_unit(self) -> Unit | None:
        return self.probe.unit if self.probe else None

    @property
    def scored(self) -> bool:
        """The final check graded every hidden experiment (a run that failed on some keeps its metrics, per run)."""
        return self.status == "scored" and self.metrics is not None and self.metrics.winkler is not None


def unit_probe_of(records: RunRecords) -> UnitProbeRecord | None:
    """From analysis.json when `bakeoff analyze` wrote one, else the evaluate record's extras."""
    return probe_record(records, UNIT_PROBE_KEY, "unit", UnitProbeRecord.from_dict)


def ab_run_signals(records: RunRecords) -> AbRunSignals:
    metrics_data = final_metrics(records, "winkler")
    probe = unit_probe_of(records)
    stated = stated_unit(records.design_text)
    return AbRunSignals(
        **run_fields(records),
        metrics=IntervalMetrics.from_dict(metrics_data),
        points=interval_points(metrics_data, "effect"),
        probe=probe,
        stated=stated,
        divergence=divergence_of(stated, probe.unit if probe else None),
    )


@dataclass(frozen=True, kw_only=True)
class AbModelSummary(IntervalModel):
    measured: Mapping[str, int]  # probe verdict (user, visit, unclear, failed) -> runs
    stated: Mapping[str, int]  # stated unit -> graded runs
    coverage: Estimate | None
    mean_abs_error: Estimate | None
    mean_width: Estimate | None
    winkler: Estimate | None

    @property
    def probed(self) -> int:
        return sum(self.measured.values())

    @property
    def divergent(self) -> int:
        return sum(n for name, n in self.divergences.items()
                   if name in (UnitDivergence.STATES_USER_ANALYSES_VISITS, UnitDivergence.STATES_VISIT_ANALYSES_USERS))


def summarise_models(runs: Sequence[AbRunSignals], labels: Sequence[str], bootstrap_seed: int = 0) -> list[AbModelSummary]:
    """One summary per model, in `labels` order (models with no run of their own are left out)."""
    import numpy as np

    rng = np.random.default_rng(bootstrap_seed)
    summaries = []
    for label, mine, graded, scored in per_model(runs, labels, lambda r: r.scored and r.metrics is not None):

        def estimate(field_name: str, scored: list[AbRunSignals] = scored) -> Estimate | None:
            return mean_of([getattr(r.metrics, field_name) for r in scored], rng)

        summaries.append(AbModelSummary(
            **model_fields(label, mine, graded, scored, [r.divergence.value for r in graded if r.divergence]),
            measured=dict(Counter(r.probe.unit.value for r in graded if r.probe)),
            stated=dict(Counter(r.stated.value for r in graded)),
            coverage=estimate("coverage"), mean_abs_error=estimate("mean_abs_error"),
            mean_width=estimate("mean_width"), winkler=estimate("winkler"),
        ))
    return summaries
