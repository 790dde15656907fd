"""A probe's run of an interval submission, staged exactly as a hidden grading run is.

A probe that runs the script on its own inputs at a path of its own (a scratch folder in the workspace) can be
told from grading by the path alone, and a submission that behaves well only off the hidden folder is then
judged on behaviour it never shows when graded. So a probe's run goes through the hidden-input gate
(bakeoff.taskapi.hidden_inputs) with its input in place of the hidden item's file of the same name, runs the
task's own grading command for that item (argv, wall-clock limit, the graded output's path) and copies the
output out, host side, before the gate closes (and undoes whatever the run wrote), as `grade_in_sandbox` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bakeoff.taskapi.hidden_inputs import HiddenInputs
from bakeoff.taskapi.workspace import SCRATCH_DIR, keep_output, real_folder
from bakeoff.tasks.intervals.running import HIDDEN_OUTPUT, fresh
from sandbox.base import ExecResult, Sandbox
from scorer.interval_reading import MAX_BYTES as MAX_RESULT_BYTES

__all__ = ["HIDDEN_OUTPUT", "run_as_graded"]


def run_as_graded(sandbox: Sandbox, gate: HiddenInputs, shown: Mapping[str, Path],
                  command: tuple[list[str], float], env: Mapping[str, str], kept: Path) -> ExecResult:
    """Run `command` (the task's grading command for a hidden item, writing HIDDEN_OUTPUT) with the gate open and
    `shown` ({file name under the hidden folder: host file}) in place of those hidden inputs; the output is
    kept at `kept` (absent when the run wrote none, or not a regular file)."""
    argv, timeout_s = command
    workspace = Path(sandbox.spec.workspace)
    kept.unlink(missing_ok=True)
    with gate.opened(sandbox, shown):
        real_folder(workspace, SCRATCH_DIR)  # a real folder again, whatever sandboxed code left in its place
        fresh(workspace, HIDDEN_OUTPUT)
        result = sandbox.exec(argv, timeout_s=timeout_s, env=dict(env))
        if result.ok:
            keep_output(workspace, HIDDEN_OUTPUT, kept, limit=MAX_RESULT_BYTES)
    return result
