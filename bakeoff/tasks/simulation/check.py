"""simulation's grading of a workspace in an open sandbox: what the model may see (install, the visible
simulation) and what it never sees (the hidden configurations' grade). The work itself is
bakeoff.tasks.simulation.analysis; a run's check and `bakeoff score --task simulation` both come here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bakeoff.taskapi.grading import GradeJob
from bakeoff.tasks.intervals.grading import IntervalGraded
from bakeoff.tasks.intervals.running import IntervalOutcome
from bakeoff.tasks.simulation.analysis import SCRIPT, VISIBLE_OUTPUT, SimRequest, hidden_budgets, simulate_in_sandbox
from bakeoff.tasks.simulation.cpu_cap import budget_of, over_budget, shown_command
from bakeoff.tasks.simulation.grade import SimGrade
from bakeoff.tasks.simulation.layout import (
    EXAMPLES_PART,
    HOLDOUT_IN_SANDBOX,
    HOLDOUT_PART,
    TRUTH_PART,
    VISIBLE_CONFIG,
)
from bakeoff.tasks.simulation.truth import TruthRow, truth_table
from sandbox.base import ExecResult


def request_for(job: GradeJob) -> SimRequest:
    visible = job.corpus.path(EXAMPLES_PART) / VISIBLE_CONFIG.rsplit("/", 1)[-1]
    return SimRequest(
        visible_config=VISIBLE_CONFIG,
        visible_budget=budget_of(visible.read_text(encoding="utf-8")),
        hidden_dir=HOLDOUT_IN_SANDBOX,
        hidden_budgets=hidden_budgets(job.corpus.path(HOLDOUT_PART)),
        truth_csv=job.corpus.path(TRUTH_PART),
        results_dir=job.outputs_dir / job.label,
        wheelhouse=job.wheelhouse,
        install_timeout_s=job.timeout_for("install"),
        simulate_timeout_s=job.timeout_for("simulate"),
        env=job.env,
    )


def metrics_of(outcome: IntervalOutcome, rows: Sequence[TruthRow]) -> dict[str, Any] | None:
    """The check's metrics: the relative interval score, each configuration's band, load and stations beside
    its row, the score of each band, and the visible result."""
    if outcome.score is None:
        return None
    metrics = outcome.score.to_dict()
    about = {row.configuration: row for row in rows}
    for row in metrics["experiments"]:
        known = about.get(row["experiment"], TruthRow(row["experiment"]))
        row.update(band=known.band, utilisation=known.utilisation, stations=known.stations, family=known.family)
    metrics["bands"] = {band: {key: value for key, value in score.to_dict().items() if key != "experiments"}
                        for band, score in outcome.groups.items()}
    metrics["visible"] = dict(outcome.visible_result) if outcome.visible_result else None
    return metrics


@dataclass
class SimGraded(IntervalGraded):
    rows: list[TruthRow]  # the truth table's rows (band, utilisation...), for the metrics
    script = SCRIPT
    grade = SimGrade
    shown = shown_command(VISIBLE_CONFIG, VISIBLE_OUTPUT)

    def metrics(self) -> dict[str, Any] | None:
        return metrics_of(self.outcome, self.rows)

    def failure_note(self, result: ExecResult) -> str:
        return " (it ran past its CPU-time budget)" if over_budget(result) else ""


def grade(job: GradeJob) -> SimGraded:
    """One full grading; the results of the visible and hidden runs are kept in outputs_dir/<label>/."""
    job.workspace.scratch()
    rows = truth_table(job.corpus)
    bands = {row.configuration: row.band or "" for row in rows}
    outcome = simulate_in_sandbox(job.sandbox, job.workspace.path, request_for(job), bands=bands, on_stage=job.on_step,
                                  hidden=job.hidden_step)
    return SimGraded(outcome, job.settings.feedback_chars, rows)
