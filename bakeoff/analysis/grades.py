"""Per model, what its task's grade declares (bakeoff.taskapi.grade): each declared metric's mean over the
model's scored runs with a bootstrap interval, and the same per group of each declared breakdown.

A run counts when it is graded, its final check scored, and its grade holds the headline. The resampling has
a seeded Generator of its own (not the core's, whose draws give the headline's and the pairs' intervals), drawn
model by model: the declared metrics in order, then each breakdown's metrics group by group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bakeoff.analysis.stats import Estimate, bootstrap_mean
from bakeoff.taskapi.grade import Breakdown, Grade


@dataclass(frozen=True)
class GradeEstimates:
    """One model's declared metrics over its scored runs, overall and per group of each breakdown."""

    model: str
    scored: int
    metrics: Mapping[str, Estimate] = field(default_factory=dict)  # metric -> estimate (absent: no value)
    groups: Mapping[str, Mapping[str, Mapping[str, Estimate]]] = field(default_factory=dict)  # breakdown field ->
    # group -> metric -> estimate

    def metric(self, name: str) -> Estimate | None:
        return self.metrics.get(name)

    def in_group(self, breakdown: str, group: str, metric: str) -> Estimate | None:
        """A metric's estimate over one group of a breakdown (None where no scored run has it)."""
        return self.groups.get(breakdown, {}).get(group, {}).get(metric)

    def has_group(self, breakdown: str, group: str) -> bool:
        return bool(self.groups.get(breakdown, {}).get(group))


def _mean(values: Sequence[float | None], rng: Any) -> Estimate | None:
    return bootstrap_mean([v for v in values if v is not None], rng)


def _breakdown(breakdown: Breakdown, scored: Sequence[Grade], rng: Any) -> dict[str, dict[str, Estimate]]:
    found: dict[str, dict[str, Estimate]] = {}
    for metric in breakdown.metrics:
        for group in breakdown.order:
            parts = [part for grade in scored if (part := grade.part(breakdown, group)) is not None]
            got = _mean([getattr(part, metric.name) for part in parts], rng)
            if got is not None:
                found.setdefault(group, {})[metric.name] = got
    return found


def grade_estimates(runs: Sequence[tuple[str, Grade | None]], models: Sequence[str], grade: type[Grade],
                    bootstrap_seed: int = 0) -> tuple[GradeEstimates, ...]:
    """Per model in `models` order (one with no run left out), the grade's declared figures; `runs`: each run's
    model and its grade where it counts (bakeoff.analysis.core.RunCore.scored_grade), else None."""
    import numpy as np

    rng = np.random.default_rng(bootstrap_seed)
    found = []
    for model in models:
        mine = [grade for label, grade in runs if label == model]
        if not mine:
            continue
        scored = [grade for grade in mine if grade is not None]
        metrics = {}
        for metric in grade.metrics:
            got = _mean([g.value(metric.name) for g in scored], rng)
            if got is not None:
                metrics[metric.name] = got
        groups = {b.field: _breakdown(b, scored, rng) for b in grade.breakdowns}
        found.append(GradeEstimates(model, len(scored), metrics, groups))
    return tuple(found)
