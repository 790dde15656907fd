"""An interval task's grading of a workspace, as the ladder sees it: what the model may see (install, the visible
run) and what it never sees (the hidden items' grade). The work itself is bakeoff.tasks.intervals.running;
each task says what its script is called, how its visible command is shown and what its metrics hold."""

from __future__ import annotations

import dataclasses
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from bakeoff.records import Command, LadderCheck, LadderStatus, Requirement
from bakeoff.taskapi.context import command_record, crash_of, output_for_model
from bakeoff.taskapi.grading import Graded
from bakeoff.tasks.intervals.grade import IntervalGrade
from bakeoff.tasks.intervals.running import INSTALL, IntervalOutcome, Script
from sandbox.base import ExecResult

HIDDEN_OUTPUT_CHARS = 2000  # what a stage record keeps of each hidden run's output (there are dozens)


def _tail(text: str) -> tuple[str, int]:
    kept = text[-HIDDEN_OUTPUT_CHARS:]
    return kept, len(text.encode("utf-8", "replace")) - len(kept.encode("utf-8", "replace"))


@dataclass
class IntervalGraded(Graded):
    """One grading of an interval task's workspace; a task names its script, headline and visible command."""

    outcome: IntervalOutcome
    limit: int  # characters of output shown to the model
    script: ClassVar[Script]
    grade: ClassVar[type[IntervalGrade]]  # its headline's name is the score's field too (winkler, relative_winkler)
    shown: ClassVar[str]  # the visible command as the model is told it ran

    def __post_init__(self) -> None:
        self.sandbox_s = self.outcome.sandbox_s
        self.scoring_s = self.outcome.score_s or 0.0

    @abstractmethod
    def metrics(self) -> dict[str, Any] | None:
        """The check's metrics: the interval score and what the task keeps beside it."""

    def failure_note(self, result: ExecResult) -> str:
        """Said after "failed" when the visible run failed (why, where the harness knows it)."""
        return ""

    def visible_failure(self) -> str | None:
        """What the model is told when install or the visible run failed (never anything of the hidden runs)."""
        outcome = self.outcome
        if outcome.rung == 0 and outcome.stage == self.script.verb:
            return f"There is no {self.script.file} in the submission."
        if outcome.stage == INSTALL and outcome.status != LadderStatus.SCORED:
            return f"Installing requirements.txt failed: {outcome.detail}"
        step = outcome.visible_step
        if step is not None and not step.result.ok:
            return f"`{self.shown}` failed{self.failure_note(step.result)}:\n{output_for_model(step.result, self.limit)}"
        if outcome.visible_error is not None:
            return f"`{self.shown}` wrote an unusable result: {outcome.visible_error}"
        return None

    def commands(self) -> list[Command]:
        """The command records; a hidden run keeps the end of its output only (its argv names the item)."""
        records = []
        for step in self.outcome.steps:
            purpose = step.purpose.split(":")[0]
            result = step.result
            if purpose == self.script.hidden_purpose:
                (stdout, out_cut), (stderr, err_cut) = _tail(result.stdout), _tail(result.stderr)
                result = dataclasses.replace(result, stdout=stdout, stderr=stderr,
                                             stdout_dropped_bytes=result.stdout_dropped_bytes + out_cut,
                                             stderr_dropped_bytes=result.stderr_dropped_bytes + err_cut)
            records.append(command_record(purpose, result, crash_of(result)))
        return records

    def ladder_check(self) -> LadderCheck:
        outcome = self.outcome
        failure = self.visible_failure()
        step = outcome.visible_step
        lines = outcome.requirements.lines if outcome.requirements else ()
        spec = self.grade.headline
        value = getattr(outcome.score, spec.name) if outcome.score is not None else None
        return outcome.check(
            spec.of(float(value)) if value is not None else None,
            visible_ok=failure is None,
            visible_failure=failure,
            metrics=self.grade.stamped(self.metrics()),
            requirements=tuple(Requirement.from_json(line.to_dict()) for line in lines),
            visible_output=output_for_model(step.result, self.limit) if step is not None else "",
        )
