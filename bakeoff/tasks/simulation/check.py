"""simulation's grading of a workspace in an open sandbox: what the model may see (install, the visible
simulation) and what it never sees (the hidden configurations' grade). The work itself is
bakeoff.tasks.simulation.analysis; a run's check and `bakeoff score --task simulation` both come here."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bakeoff.records import Command, CrashClass, LadderCheck, LadderStatus, Requirement
from bakeoff.taskapi.context import command_record, crash_of, output_for_model
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.tasks.simulation.analysis import (
    VISIBLE_OUTPUT,
    SimOutcome,
    SimRequest,
    hidden_budgets,
    simulate_in_sandbox,
)
from bakeoff.tasks.simulation.cpu_cap import SIMULATE_SCRIPT, budget_of, over_budget, shown_command
from bakeoff.tasks.simulation.layout import (
    EXAMPLES_PART,
    HOLDOUT_IN_SANDBOX,
    HOLDOUT_PART,
    TRUTH_PART,
    VISIBLE_CONFIG,
)
from bakeoff.tasks.simulation.words import HEADLINE

HIDDEN_OUTPUT_CHARS = 2000  # what a stage record keeps of each hidden run's output (there are dozens)


def truth_table(corpus: Any) -> list[dict[str, str]]:
    """The hidden configurations' truth rows (band, utilisation...) of a task's CorpusFiles, read on the host."""
    import csv

    with open(corpus.path(TRUTH_PART), encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


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


def visible_failure(outcome: SimOutcome, limit: int) -> str | None:
    """What the model is told when install or the visible simulation failed (never anything of the hidden runs)."""
    shown = shown_command(VISIBLE_CONFIG, VISIBLE_OUTPUT)
    if outcome.rung == 0 and outcome.stage == "simulate":
        return f"There is no {SIMULATE_SCRIPT} in the submission."
    if outcome.stage == "install" and outcome.status != LadderStatus.SCORED:
        return f"Installing requirements.txt failed: {outcome.detail}"
    step = outcome.visible_step
    if step is not None and not step.result.ok:
        why = " (it ran past its CPU-time budget)" if over_budget(step.result) else ""
        return f"`{shown}` failed{why}:\n{output_for_model(step.result, limit)}"
    if outcome.visible_error is not None:
        return f"`{shown}` wrote an unusable result: {outcome.visible_error}"
    return None


def _tail(text: str) -> tuple[str, int]:
    kept = text[-HIDDEN_OUTPUT_CHARS:]
    return kept, len(text.encode("utf-8", "replace")) - len(kept.encode("utf-8", "replace"))


def metrics_of(outcome: SimOutcome, rows: list[dict[str, str]]) -> dict[str, Any] | None:
    """The check's metrics: the relative interval score, each configuration's band, load and stations beside
    its row, the score of each band, and the visible result."""
    if outcome.score is None:
        return None
    metrics = outcome.score.to_dict()
    about = {row["configuration"]: row for row in rows}
    for row in metrics["experiments"]:
        known = about.get(row["experiment"], {})
        row.update(band=known.get("band"), utilisation=_float(known.get("utilisation")),
                   stations=_int(known.get("stations")), family=known.get("family"))
    metrics["bands"] = {band: {key: value for key, value in score.to_dict().items() if key != "experiments"}
                        for band, score in outcome.bands.items()}
    metrics["visible"] = dict(outcome.visible_result) if outcome.visible_result else None
    return metrics


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def _int(text: str | None) -> int | None:
    value = _float(text)
    return int(value) if value is not None else None


@dataclass
class SimGraded(Graded):
    outcome: SimOutcome
    limit: int  # characters of output shown to the model
    rows: list[dict[str, str]]  # the truth table's rows (band, utilisation...), for the metrics

    def __post_init__(self) -> None:
        self.sandbox_s = self.outcome.seconds.get("sandbox", 0.0)
        self.scoring_s = self.outcome.seconds.get("score", 0.0)

    def commands(self) -> list[Command]:
        """The command records; a hidden run keeps the end of its output only (its argv names the configuration)."""
        records = []
        for step in self.outcome.steps:
            purpose = step.purpose.split(":")[0]
            result = step.result
            if purpose == "hidden_simulate":
                (stdout, out_cut), (stderr, err_cut) = _tail(result.stdout), _tail(result.stderr)
                result = dataclasses.replace(result, stdout=stdout, stderr=stderr,
                                             stdout_dropped_bytes=result.stdout_dropped_bytes + out_cut,
                                             stderr_dropped_bytes=result.stderr_dropped_bytes + err_cut)
            records.append(command_record(purpose, result, crash_of(result)))
        return records

    def ladder_check(self) -> LadderCheck:
        outcome = self.outcome
        failure = visible_failure(outcome, self.limit)
        step = outcome.visible_step
        lines = outcome.requirements.lines if outcome.requirements else ()
        scored = outcome.status == LadderStatus.SCORED
        headline = outcome.score.relative_winkler if outcome.score is not None else None
        return LadderCheck(
            rung=outcome.rung,
            status=LadderStatus(outcome.status),
            failed_step=None if scored else outcome.stage,
            headline=HEADLINE.of(float(headline)) if scored and headline is not None else None,
            crash_class=CrashClass(outcome.crash_class) if outcome.crash_class else None,
            detail=outcome.detail or None,
            traceback_tail=outcome.traceback_tail or None,
            visible_ok=failure is None,
            visible_failure=failure,
            metrics=metrics_of(outcome, self.rows),
            requirements=tuple(Requirement.from_json(line.to_dict()) for line in lines),
            visible_output=output_for_model(step.result, self.limit) if step is not None else "",
        )


def grade(job: GradeJob) -> SimGraded:
    """One full grading; the results of the visible and hidden runs are kept in outputs_dir/<label>/."""
    job.workspace.scratch()
    rows = truth_table(job.corpus)
    bands = {row["configuration"]: row["band"] for row in rows}
    outcome = simulate_in_sandbox(job.sandbox, job.workspace.path, request_for(job), bands=bands, on_stage=job.on_step)
    return SimGraded(outcome, job.settings.feedback_chars, rows)
