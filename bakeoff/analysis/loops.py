"""What a loop says, from its records (the stage its scaffold writes step records for, Scaffold.step_stage): how
many steps it took, what ended it, what it generated, whether it ran its own code before the end, and which steps
were unusable (their capture reasons). Every scaffold's run has a step count and generated tokens (a run with no
loop counts its model calls as steps), so the two compare."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from bakeoff.batchfolder.read import RunRecords, stage_calls
from bakeoff.records import DEFAULT_SCAFFOLD, CaptureStatus
from bakeoff.scaffolds.registry import scaffold_plugin


@dataclass(frozen=True)
class LoopCore:
    """One run's loop."""

    ended_by: str | None  # a LoopEnd value; None while the loop has not ended
    steps: int
    own_code_runs: int  # `run` calls of a file it had written, before the end
    first_own_run: int | None  # the step that first ran its own code
    unusable_steps: dict[str, int] = field(default_factory=dict)  # capture reason -> steps
    wall_s: float = 0.0
    cpu_s: float = 0.0
    tool_syntax: str = ""


def scaffold_of(records: RunRecords) -> str:
    return records.scaffold


def base_model(records: RunRecords, row: str) -> str:
    """The model's own label (the row without its scaffold)."""
    if records.run is not None and records.run.model.label:
        return records.run.model.label
    scaffold = records.scaffold
    return row.removesuffix(f"-{scaffold}") if scaffold != DEFAULT_SCAFFOLD else row


def generated_tokens(records: RunRecords) -> int:
    """Tokens the model generated in the run (answers and reasoning), from its run record or its calls."""
    if records.run is not None:
        return records.run.tokens.completion
    calls = [call.completion for record in records.stages.values() for call in stage_calls(record)]
    calls += [step.completion for step in records.steps]
    return sum(int(c.completion_tokens or 0) for c in calls if c is not None)


def step_stage(records: RunRecords) -> str | None:
    """The stage the run's scaffold writes step records for; None when it writes none."""
    return scaffold_plugin(records.scaffold).step_stage


def steps_taken(records: RunRecords) -> int:
    """A loop's steps; another run's model calls."""
    if records.steps or step_stage(records) in records.stages:
        return len(records.steps)
    return sum(1 for record in records.stages.values() for call in stage_calls(record) if call.capture is not None)


def loop_of(records: RunRecords) -> LoopCore | None:
    """The run's loop, or None for a run with none (a staged run)."""
    stage = step_stage(records)
    loop_stage = records.stages.get(stage) if stage is not None else None
    if loop_stage is None and not records.steps:
        return None
    unusable = Counter(step.capture.reason.value for step in records.steps
                       if step.capture is not None and step.capture.status == CaptureStatus.UNUSABLE)
    last = records.steps[-1].usage if records.steps else None
    loop = loop_stage.loop if loop_stage is not None else None  # the loop's stage record: how it ended
    return LoopCore(
        ended_by=loop.ended_by.value if loop is not None else None,
        steps=len(records.steps),
        own_code_runs=loop.own_code_runs if loop is not None else 0,
        first_own_run=loop.first_own_run if loop is not None else None,
        unusable_steps=dict(unusable),
        wall_s=last.wall_s if last is not None else 0.0,
        cpu_s=last.cpu_s if last is not None else 0.0,
        tool_syntax=loop.tool_syntax if loop is not None else "",
    )
