"""A batch's state read from its folder alone (what `bakeoff status DIR` shows from another terminal)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bakeoff.batchfolder.files import Journal
from bakeoff.batchfolder.layout import BatchLayout
from bakeoff.batchfolder.records import read_batch_record, read_run_record
from bakeoff.errors import BakeoffError
from bakeoff.records import DEFAULT_SCAFFOLD, STAGE_NAMES, LadderStatus, Outcome, RunStatus
from bakeoff.records.journal import JournalEvent
from bakeoff.runner.plan import run_order
from bakeoff.taskapi.headline import HeadlineSpec

# A scaffold's stage records in order, by its name (the command line asks bakeoff.scaffolds.registry).
StagesOf = Callable[[str], tuple[str, ...]]


def staged_stages(name: str) -> tuple[str, ...]:
    """Without a resolver every run counts the staged scaffold's six stages (the runs written before scaffolds)."""
    return STAGE_NAMES


class NotABatch(BakeoffError):
    """The folder holds no batch (no batch.json)."""


@dataclass(frozen=True)
class RunState:
    run_id: str
    state: str  # finished, harness_failed, in_progress, pending
    stages_done: int
    current_stage: str | None
    outcome: str | None  # e.g. "scored <headline>=0.812" or "crashed (module_not_found)"
    wall_s: float | None
    node: str | None = None  # the Ray node that ran it last (None under the local executor)
    stage_names: tuple[str, ...] = STAGE_NAMES  # its scaffold's, in order

    @property
    def stages_total(self) -> int:
        return len(self.stage_names)

    @property
    def now(self) -> str:
        """Where the run stands, worded as the live display words it ('' before it starts and once it is done)."""
        return stage_position(self.stage_names, self.current_stage) if self.current_stage else ""


@dataclass(frozen=True)
class BatchStatus:
    folder: Path
    runs: tuple[RunState, ...]
    last_event: JournalEvent | None

    @property
    def finished(self) -> int:
        return sum(1 for run in self.runs if run.state in ("finished", "harness_failed"))

    def seconds_left(self) -> float | None:
        """Mean wall time of the finished runs times the runs left (None before any run finished)."""
        walls = [run.wall_s for run in self.runs if run.wall_s]
        if not walls:
            return None
        return sum(walls) / len(walls) * (len(self.runs) - self.finished)


def describe_outcome(outcome: Outcome, headline: HeadlineSpec | None = None) -> str:
    """'scored <headline name>=<value>' (the value as its task prints it), or 'crashed (module_not_found)'."""
    if outcome.status == LadderStatus.SCORED:
        value = outcome.headline_value
        if outcome.headline is None or value is None:
            return "scored"
        shown = headline.show(value) if headline is not None else f"{value:.4f}"
        return f"scored {outcome.headline.name}={shown}"
    crash = outcome.crash_class
    return f"{outcome.status} ({crash})" if crash else str(outcome.status)


def stage_position(stages: Sequence[str], activity: str) -> str:
    """A run in flight among its scaffold's stages, as the live display and `bakeoff status` both word it:
    '4/6 repair', a loop's '1/2 <stage> step 3' (at its third step), '2/2 evaluate'."""
    stage = activity.split(" ", 1)[0]
    return f"{list(stages).index(stage) + 1}/{len(stages)} {activity}" if stage in stages else activity


def plural(count: int, noun: str) -> str:
    """'1 run', '2 runs': a count and its noun."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _current_stages(events: list[JournalEvent]) -> dict[str, str]:
    current: dict[str, str] = {}
    for entry in events:
        run_id = str(entry.run_id)
        if entry.event == "run_started":  # started, no stage named yet: at its first stage not recorded
            current[run_id] = ""
        elif entry.event == "stage_started":
            current[run_id] = str(entry.stage)
        elif entry.event == "step_started":  # a loop: which step
            current[run_id] = f"{entry.stage} step {entry.step}"
        elif entry.event == "stage_done":
            current[run_id] = ""
        elif entry.event in ("run_done", "run_failed"):
            current.pop(run_id, None)
    return current


def _nodes(events: list[JournalEvent]) -> dict[str, str]:
    """The node each run was last placed on (the Ray executor journals `run_placed`)."""
    return {str(e.run_id): e.node for e in events if e.event == "run_placed" and e.node}


def read_status(folder: Path, headline: HeadlineSpec | None = None, stages_of: StagesOf = staged_stages) -> BatchStatus:
    """The batch's runs as its folder has them; `headline` prints the task's number and `stages_of` names each
    scaffold's stages (the command line's plug-ins)."""
    layout = BatchLayout(folder)
    if not layout.is_batch():
        raise NotABatch(f"{folder} is not a batch folder (no batch.json); start one with `bakeoff run`")
    batch = read_batch_record(layout.record)  # a damaged batch.json is refused here as the report refuses it
    events = Journal(layout.events).events()
    current = _current_stages(events)
    nodes = _nodes(events)
    scaffolds = {slot.run_id: slot.scaffold for slot in run_order(batch.plan)}
    runs = []
    for run_id in batch.order:
        run = layout.run(run_id)
        names = stages_of(scaffolds.get(run_id, DEFAULT_SCAFFOLD))  # its scaffold as the plan has it
        done = sum(1 for i, s in enumerate(names, 1) if run.stage_record(i, s).is_file())
        if run.record.is_file():
            record = read_run_record(run.record)
            state = str(record.status)  # finished or harness_failed
            outcome = describe_outcome(record.outcome, headline) if record.status == RunStatus.FINISHED else record.error
            runs.append(RunState(run_id, state, done, None, outcome, record.timings.wall_s, nodes.get(run_id), names))
        else:
            state = "in_progress" if done or run_id in current else "pending"
            # between two stages the journal names none: the run stands at its first stage not recorded
            now = current.get(run_id) or (names[done] if state == "in_progress" and done < len(names) else None)
            runs.append(RunState(run_id, state, done, now, None, None, nodes.get(run_id), names))
    return BatchStatus(folder, tuple(runs), events[-1] if events else None)


def status_headline(status: BatchStatus) -> str:
    return f"batch {status.folder}  ({status.finished}/{len(status.runs)} runs done)"


def status_table(status: BatchStatus):
    """A rich Table of the runs."""
    from rich.table import Table
    from rich.text import Text

    from bakeoff.textsafe import printable

    table = Table()
    on_nodes = any(run.node for run in status.runs)  # a Ray batch: which node runs which run
    for column in ("run", "state", "stages", "now", *(("node",) if on_nodes else ()), "outcome"):
        table.add_column(column)
    for run in status.runs:
        node = (run.node or "",) if on_nodes else ()
        cells = (run.run_id, run.state, f"{run.stages_done}/{run.stages_total}", run.now, *node, run.outcome or "")
        table.add_row(*(Text(printable(cell)) for cell in cells))  # Text: a record's "[red]" is not markup either
    return table


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"
