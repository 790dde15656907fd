"""Per-run and per-model signals of the ab_test take-home, from a batch's records, by rule.

Per run: its grade (bakeoff.tasks.ab_test.grade: the interval metrics over the hidden experiments, each
experiment's interval against its truth), the unit probe's verdict, the unit the design document states and
their divergence. Per model: counts of each; the grade's declared figures over the scored runs are the core's
(bakeoff.analysis.grades).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bakeoff.batchfolder.read import RunRecords
from bakeoff.tasks.ab_test.grade import AbGrade
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
    model_fields,
    per_model,
    probe_record,
    run_fields,
)
from generators.ab_test.probe import Unit


@dataclass(frozen=True, kw_only=True)
class AbRunSignals(IntervalRun):
    grade: AbGrade | None = None
    probe: UnitProbeRecord | None
    stated: StatedUnit
    divergence: UnitDivergence | None

    @property
    def measured_unit(self) -> Unit | None:
        return self.probe.unit if self.probe else None


def unit_probe_of(records: RunRecords) -> UnitProbeRecord | None:
    """From analysis.json when `bakeoff analyze` wrote one, else the evaluate record's extras."""
    return probe_record(records, UNIT_PROBE_KEY, "unit", UnitProbeRecord.from_dict)


def ab_run_signals(records: RunRecords) -> AbRunSignals:
    probe = unit_probe_of(records)
    stated = stated_unit(records.design_text)
    return AbRunSignals(
        **run_fields(records, AbGrade),
        probe=probe,
        stated=stated,
        divergence=divergence_of(stated, probe.unit if probe else None),
    )


@dataclass(frozen=True, kw_only=True)
class AbModelSummary(IntervalModel):
    measured: Mapping[str, int]  # probe verdict (user, visit, unclear, failed) -> runs
    stated: Mapping[str, int]  # stated unit -> graded runs

    @property
    def probed(self) -> int:
        return sum(self.measured.values())

    @property
    def divergent(self) -> int:
        return sum(n for name, n in self.divergences.items()
                   if name in (UnitDivergence.STATES_USER_ANALYSES_VISITS, UnitDivergence.STATES_VISIT_ANALYSES_USERS))


def summarise_models(runs: Sequence[AbRunSignals], labels: Sequence[str], bootstrap_seed: int = 0) -> list[AbModelSummary]:
    """One summary per model, in `labels` order (models with no run of their own are left out)."""
    return [AbModelSummary(
        **model_fields(figures, mine, graded, [r.divergence.value for r in graded if r.divergence]),
        measured=dict(Counter(r.probe.unit.value for r in graded if r.probe)),
        stated=dict(Counter(r.stated.value for r in graded)),
    ) for figures, mine, graded in per_model(runs, labels, AbGrade, bootstrap_seed)]
