"""demand_forecast's grading of a workspace in an open sandbox, as the ladder sees it: what the model may see
(install, the backtest forecast) and what it never sees (the horizon forecast's grade). The runs themselves are
bakeoff.tasks.demand_forecast.running; a run's check and `bakeoff score --task demand_forecast` both come here."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bakeoff.records import Command, LadderCheck, LadderStatus, Requirement
from bakeoff.taskapi.context import command_record, crash_of, output_for_model
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.tasks.demand_forecast.grade import ForecastGrade
from bakeoff.tasks.demand_forecast.probe import probe_figures
from bakeoff.tasks.demand_forecast.running import (
    HIDDEN,
    INSTALL,
    SHOWN,
    VERB,
    VISIBLE,
    ForecastOutcome,
    ForecastRequest,
    forecast_in_sandbox,
)
from generators.demand_forecast.running import SCRIPT

OUTPUT_CHARS = 2000  # what a stage record keeps of the probe's and the hidden run's output


def metrics_of(outcome: ForecastOutcome) -> dict[str, Any] | None:
    """The check's metrics: the horizon's score with its kinds, weeks and days, the backtest's MASE, the probe's figures."""
    real = outcome.scores.get(HIDDEN)
    if real is None:
        return None
    metrics = real.to_dict()
    metrics["kinds"] = {kind: {"mase": value} for kind, value in real.kinds.items()}
    metrics["weeks"] = {week: {"mase": value} for week, value in real.weeks.items()}
    visible = outcome.scores.get(VISIBLE)
    metrics["backtest_mase"] = visible.mase if visible else None
    metrics["probe"] = probe_figures(outcome)
    return metrics


@dataclass
class ForecastGraded(Graded):
    outcome: ForecastOutcome
    limit: int

    def __post_init__(self) -> None:
        self.sandbox_s, self.scoring_s = self.outcome.sandbox_s, self.outcome.score_s

    def visible_failure(self) -> str | None:
        """What the model is told when install or the backtest forecast failed (never anything of the horizon's)."""
        outcome = self.outcome
        if outcome.rung == 0 and outcome.stage == VERB:
            return f"There is no {SCRIPT} in the submission."
        if outcome.stage == INSTALL and outcome.status != LadderStatus.SCORED:
            return f"Installing requirements.txt failed: {outcome.detail}"
        step = outcome.step(VISIBLE)
        if step is not None and not step.result.ok:
            return f"`{SHOWN}` failed:\n{output_for_model(step.result, self.limit)}"
        if VISIBLE in outcome.errors:
            return f"`{SHOWN}` wrote an unusable forecast: {outcome.errors[VISIBLE]}"
        return None

    def commands(self) -> list[Command]:
        records = []
        for step in self.outcome.steps:
            result = step.result
            if step.purpose != VISIBLE:
                result = dataclasses.replace(result, stdout=result.stdout[-OUTPUT_CHARS:], stderr=result.stderr[-OUTPUT_CHARS:])
            records.append(command_record(step.purpose, result, crash_of(result)))
        return records

    def ladder_check(self) -> LadderCheck:
        outcome = self.outcome
        failure = self.visible_failure()
        step = outcome.step(VISIBLE)
        real = outcome.scores.get(HIDDEN)
        lines = outcome.requirements.lines if outcome.requirements else ()
        return outcome.check(
            ForecastGrade.headline.of(real.mase) if real is not None else None,
            visible_ok=failure is None, visible_failure=failure,
            metrics=ForecastGrade.stamped(metrics_of(outcome)),
            requirements=tuple(Requirement.from_json(line.to_dict()) for line in lines),
            visible_output=output_for_model(step.result, self.limit) if step is not None else "",
        )


def grade(job: GradeJob) -> ForecastGraded:
    """One full grading; the forecasts are kept in outputs_dir/<label>/."""
    job.workspace.scratch()
    request = ForecastRequest(corpus=job.corpus.folder, results_dir=job.outputs_dir / job.label,
                              wheelhouse=job.wheelhouse, install_timeout_s=job.timeout_for("install"),
                              forecast_timeout_s=job.timeout_for("forecast"), env=job.env)
    outcome = forecast_in_sandbox(job.sandbox, job.workspace.path, request, on_stage=job.on_step, hidden=job.hidden_step)
    return ForecastGraded(outcome, job.settings.feedback_chars)
