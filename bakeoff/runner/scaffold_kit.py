"""What every scaffold's stages share, defined once: a stage's outcome, the check of a run's workspace, the run's
final check, the model's claim, and the evaluate stage.

The scaffolds (bakeoff.scaffolds.*) build their stages from these; the runner writes their outcomes
(bakeoff.runner.run) and reads the final check for the run record (bakeoff.runner.summary); a task's report
reads the same final check from the records (bakeoff.tasks). None of it knows a scaffold by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bakeoff.records import (
    TOP_RUNG,
    Attribution,
    Capture,
    Claim,
    Command,
    CompletionRecord,
    FileWritten,
    LadderCheck,
    LoopSummary,
    Prompt,
    RepairTurn,
    StageRecord,
    environment_failure,
)
from bakeoff.records.stage import DISK_FULL, NO_CHECK, final_check
from bakeoff.taskapi.context import RunContext, StageClock
from bakeoff.taskapi.parts import EvaluateHook

__all__ = ["DISK_FULL", "NO_CHECK", "Done", "StageFunction", "StageOutcome", "check_attribution", "crash_attribution",
           "final_check", "find_claim", "ladder_check", "make_evaluate"]

# A run's final check is read from its records by the runner and by the tasks' reports alike, so it is defined
# with the stage record (bakeoff.records.stage), below both.
Done = Mapping[str, StageRecord]  # the finished stages' records, by stage name, in order


@dataclass(frozen=True)
class StageOutcome:
    """What a stage function found; the runner adds the commit, timings and resources (a StageRecord)."""

    attribution: Attribution
    attribution_reason: str | None = None
    prompt: Prompt | None = None
    completion: CompletionRecord | None = None
    capture: Capture | None = None
    files_written: tuple[FileWritten, ...] = ()
    commands: tuple[Command, ...] = ()
    shown_to_model: str | None = None  # what the harness handed back (exploration output...)
    check: LadderCheck | None = None
    turns: tuple[RepairTurn, ...] = ()
    claim: Claim | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)
    loop: LoopSummary | None = None  # a stage that ran a loop of steps: how it ended and what it used


StageFunction = Callable[[RunContext, StageClock, Done], StageOutcome]


def ladder_check(ctx: RunContext, clock: StageClock, label: str) -> tuple[LadderCheck, list[Command]]:
    """The run's task grades its workspace in the run's sandbox (the one grading path, bakeoff.taskapi.grading);
    `label` names what is kept of the hidden step in the run folder."""
    # the task opens the hidden-input gate around its hidden step alone (GradeJob.hidden_step)
    graded = ctx.plugin.grade(ctx.grade_job(label))
    clock.sandbox_s += graded.sandbox_s
    clock.scoring_s += graded.scoring_s
    return graded.ladder_check(), graded.commands()


def check_attribution(check: LadderCheck) -> tuple[Attribution, str | None]:
    """A stage judged by a check: ok at the top rung; the harness's error where the environment failed the code
    (a system library the image lacks); else the model's error, for its crash class or status."""
    if check.rung >= TOP_RUNG:
        return Attribution.OK, None
    return crash_attribution(check.crash_class, check.detail) or (Attribution.MODEL_ERROR, check.crash_class or check.status)


def crash_attribution(crash_class: str | None, detail: str | None) -> tuple[Attribution, str] | None:
    """(harness_error, why) for a crash of the environment (bakeoff.records.ENVIRONMENT_CRASHES), else None:
    the harness failed, the run is retried on the next start and never counted as the model's crash."""
    why = environment_failure(crash_class, detail)
    return (Attribution.HARNESS_ERROR, why) if why is not None else None


def find_claim(ctx: RunContext, check: LadderCheck, include_readme: bool) -> Claim:
    """The model's own estimate, as its task reads it (its output, else its design, else after docs its README)."""
    readme = ctx.repo.read_file("README.md") if include_readme else None
    return ctx.plugin.claim(check.visible_output, ctx.repo.read_file("DESIGN.md"), readme, check)


def _run_hook(hook: EvaluateHook, ctx: RunContext, clock: StageClock, check: LadderCheck) -> dict[str, Any]:
    """A hook that fails is recorded as such; the measurement is lost, the run is not."""
    from sandbox.errors import SandboxError

    try:
        return dict(hook(ctx, clock, check))
    except SandboxError:
        raise  # the sandbox itself broke: a harness failure of the stage
    except Exception as exc:  # noqa: BLE001
        return {"hook_error": f"{type(exc).__name__}: {exc}"}


def make_evaluate(hooks: Mapping[str, EvaluateHook] | None = None, include_readme: bool = False) -> StageFunction:
    """The evaluate stage: the final check, the claim (`include_readme`: the README is read where it was written
    before evaluate), and the task's probes."""
    def evaluate(ctx: RunContext, clock: StageClock, done: Done) -> StageOutcome:
        check = final_check(done)
        claim = find_claim(ctx, check, include_readme=include_readme)
        # each hook opens the hidden-input gate around its own hidden runs (RunContext.hidden)
        extras = {name: _run_hook(hook, ctx, clock, check) for name, hook in (hooks or {}).items()}
        attribution, reason = check_attribution(check)
        return StageOutcome(attribution, reason, check=check, claim=claim, extras=extras)

    return evaluate
