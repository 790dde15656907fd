"""A batch folder's records admitted before anything is published from them (a report, a leaderboard).

A batch folder may come from someone else, edited by hand: its records are checked against their task's shape
and range, not only against their schema. A run is refused by name when its record says another task than the
batch's, or a headline (the outcome's, a stage check's, a repair turn's before and after) has another name or
direction than the task's, or a value the task's grader cannot give (not finite, out of its range: a share of
1e308). The rest of the batch is still published, with the refused runs listed. A batch none of whose runs is
admitted is refused whole (BatchRefused): its batch.json says one task and its runs another, say.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from bakeoff.batchfolder.read import BatchRecords, RefusedRun, RunRecords
from bakeoff.errors import BakeoffError
from bakeoff.records import Headline, StageRecord
from bakeoff.taskapi.headline import HeadlineSpec

SHOWN_CHARS = 60


class BatchRefused(BakeoffError):
    """No run of a batch folder can be published: each was refused (named with why)."""


def _headlines(run: RunRecords) -> Iterator[tuple[str, Headline]]:
    """(where, headline) of every headline the run's records hold."""
    if run.run is not None and run.run.outcome.headline is not None:
        yield "run.json", run.run.outcome.headline
    for name, stage in run.stages.items():
        yield from _stage_headlines(name, stage)


def _stage_headlines(name: str, stage: StageRecord) -> Iterator[tuple[str, Headline]]:
    if stage.check is not None and stage.check.headline is not None:
        yield f"stage {name}", stage.check.headline
    for number, turn in enumerate(stage.turns, 1):
        for side, check in (("before", turn.before), ("after", turn.after)):
            if check.headline is not None:
                yield f"stage {name} turn {number} {side}", check.headline


def _shown(value: object) -> str:
    """A value from the records as a refusal quotes it: its repr, cut (a name of a megabyte is the folder's)."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def run_problem(run: RunRecords, spec: HeadlineSpec, task: str) -> str | None:
    """Why the run cannot be published as a run of `task` (whose headline is `spec`), or None."""
    if run.run is not None and run.run.task and run.run.task != task:
        return f"its record says task {_shown(run.run.task)}, the batch's is {task!r}"
    for where, headline in _headlines(run):
        if headline.name != spec.name or headline.higher_is_better != spec.higher_is_better:
            return f"{where}: its headline is {_shown(headline.name)}, task {task!r} scores {spec.name!r}"
        if headline.value is not None and not spec.admits(headline.value):
            return f"{where}: {spec.name} = {headline.value!r} is not a value the task's grader gives"
    return None


def admit(records: BatchRecords, spec: HeadlineSpec, task: str) -> BatchRecords:
    """The batch with only the runs that may be published; the others in its `refused` (BatchRefused when
    none is left of a batch that had runs)."""
    refused = list(records.refused)
    kept = []
    for run in records.runs:
        problem = run_problem(run, spec, task)
        if problem is None:
            kept.append(run)
        else:
            refused.append(RefusedRun(run.run_id, problem))
    if refused and not kept:
        shown = "; ".join(f"{r.run_id}: {r.reason}" for r in refused[:5])
        more = f" (and {len(refused) - 5} more)" if len(refused) > 5 else ""
        raise BatchRefused(f"batch {records.folder}: no run can be published, each was refused: {shown}{more}")
    return dataclasses.replace(records, runs=tuple(kept), refused=tuple(refused))


def refusal_lines(records: BatchRecords) -> list[str]:
    """One line per refused run, naming the batch, the run and why (what the commands print and pages list)."""
    return [f"refused run {r.run_id} of batch {records.folder.name}: {r.reason}" for r in records.refused]
