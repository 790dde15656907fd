"""What every task's ladder check shares: grading steps as command records, printed output, kept outputs.

The check itself is the task's (bakeoff.tasks: `TaskPlugin.check`); the stages call it through the
plug-in and never know which steps it runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bakeoff.records.parts import Command, Crash, crash_class_of
from bakeoff.runner.conversation import shorten
from bakeoff.runner.workspace import SCRATCH_DIR, regular_file_inside

HOLDOUT_OUTPUT = f"{SCRATCH_DIR}/holdout_predictions.csv"  # the hidden run's output file, in the scratch folder


def grading_command(step, purpose: str, outcome, failed: bool) -> Command:
    """One grading step (a StepRecord) as a stage record's command; `outcome` gives isolation and the crash."""
    crash = None
    if failed:
        # a failure with no crash class (bad_output, dependency_unavailable...) is named by its status
        crash = Crash(crash_class_of(outcome.crash_class or outcome.status, "crash_class"), outcome.detail,
                      outcome.traceback_tail)
    return Command.of(purpose, step, step.stdout_tail, step.stderr_tail, outcome.isolation, crash)


def grading_commands(outcome, purposes: dict[str, str]) -> list[Command]:
    """Every step of a grading outcome as command records; the last one carries the crash when it failed."""
    last = len(outcome.steps) - 1
    return [
        grading_command(step, purposes.get(step.stage, step.stage), outcome,
                        failed=(i == last and outcome.status != "scored"))
        for i, step in enumerate(outcome.steps)
    ]


def printed(step, limit: int) -> str:
    """What a step printed, stdout then stderr, shortened for the model (head and tail kept)."""
    if step is None:
        return ""
    text = "\n".join(part.rstrip() for part in (step.stdout_tail, step.stderr_tail) if part.strip())
    return shorten(text or "(no output)", limit)


def keep_output(workspace: Path, produced: str, kept: Path) -> None:
    """Move a hidden run's output out of the workspace into the run folder (never into the repo)."""
    kept.parent.mkdir(parents=True, exist_ok=True)
    path = workspace / produced
    if regular_file_inside(workspace, path):
        shutil.move(str(path), kept)
    elif path.is_symlink():
        path.unlink()  # written by sandboxed code: never follow it on the host


_keep_predictions = keep_output  # the name the runner's unit tests know it by
