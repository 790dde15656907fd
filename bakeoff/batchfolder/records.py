"""The one door to a batch folder's records: reading and writing each record where the layout says it is.

Records are bakeoff.records objects in memory; on disk they are the JSON docs/records.md describes,
written atomically (bakeoff.batchfolder.files.write_json). Records of the first schema are read through
bakeoff.batchfolder.upgrade. A stage record that is absent or damaged counts as not done (it is re-done,
never trusted); one with a schema this bakeoff does not know stops the batch (UnknownRecordSchema), so a
record written by a newer bakeoff is never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from bakeoff.batchfolder.files import WriteCounter, read_json_object, write_json
from bakeoff.batchfolder.layout import RunLayout
from bakeoff.batchfolder.upgrade import upgrade
from bakeoff.records import (
    STAGE_NAMES,
    AnalysisRecord,
    Attribution,
    BatchRecord,
    DamagedRecord,
    LoopStep,
    RunRecord,
    RunStatus,
    StageRecord,
)
from bakeoff.records.codec import TopRecord

R = TypeVar("R")
S = TypeVar("S", bound=LoopStep)

__all__ = ["STAGE_NAMES", "finished_stages", "finished_steps", "is_finished", "load_stage_record",
           "read_analysis_record", "read_batch_record", "read_run_record", "read_stage_record", "read_typed",
           "stage_record_path", "stages_with_failure", "write_batch_record", "write_run_record", "write_stage_record",
           "write_step_record"]


def stage_record_path(run_dir: Path, index: int, stage: str) -> Path:
    return RunLayout(run_dir).stage_record(index, stage)


def read_typed(path: Path, parse: Callable[[Mapping[str, Any], str], R]) -> R:
    """The record at `path` as its class (first-schema records upgraded); DamagedRecord naming the file otherwise."""
    data = upgrade(read_json_object(path))
    try:
        return parse(data, str(path))
    except DamagedRecord as exc:
        raise DamagedRecord(f"{path} is damaged: {exc}") from None


def read_stage_record(path: Path) -> StageRecord | None:
    """A stage record, or None when it is absent or damaged: a damaged record is re-done, never trusted."""
    if not path.is_file():
        return None
    try:
        return read_typed(path, StageRecord.from_json)
    except DamagedRecord:
        return None


def load_stage_record(path: Path) -> StageRecord:
    """A stage record that must be there (one this process just wrote): DamagedRecord otherwise."""
    return read_typed(path, StageRecord.from_json)


def finished_stages(run_dir: Path, names: Sequence[str] = STAGE_NAMES) -> dict[str, StageRecord]:
    """The records of the stages already done, in order (`names`: the run's scaffold's stages).

    A gap ends the list (later ones are re-run), and so does a stage the harness failed:
    it is the model's work that counts as done, not the harness's failure to do it.
    """
    done: dict[str, StageRecord] = {}
    for index, stage in enumerate(names, start=1):
        record = read_stage_record(stage_record_path(run_dir, index, stage))
        if record is None or record.attribution == Attribution.HARNESS_ERROR:
            break
        done[stage] = record
    return done


def stages_with_failure(run_dir: Path, names: Sequence[str] = STAGE_NAMES) -> dict[str, StageRecord]:
    """The finished stages plus the record of the stage the harness failed, if there is one."""
    stages = finished_stages(run_dir, names)
    index = len(stages) + 1
    if index <= len(names):
        record = read_stage_record(stage_record_path(run_dir, index, names[index - 1]))
        if record is not None:
            stages[names[index - 1]] = record
    return stages


def finished_steps(run_dir: Path, reader: Callable[[Mapping[str, Any], str], S] | None) -> list[S]:
    """A loop's steps already done, in order, through its scaffold's `reader` (None: it writes none): a gap or
    a damaged record ends the list (later ones are run again, from the last good step's commit); a step the
    harness failed ends it too."""
    steps: list[S] = []
    if reader is None:
        return steps
    layout = RunLayout(run_dir)
    while True:
        path = layout.step_record(len(steps) + 1)
        if not path.is_file():
            return steps
        try:
            record = read_typed(path, reader)
        except DamagedRecord:
            return steps
        if record.harness_error is not None:
            return steps
        steps.append(record)


def write_step_record(run_dir: Path, step: int, record: TopRecord, counter: WriteCounter | None) -> None:
    """Step `step` of a loop: its scaffold's own record (bakeoff.records.LoopStep as the readers see it)."""
    write_json(RunLayout(run_dir).step_record(step), record.to_json(), counter)



def write_stage_record(run_dir: Path, record: StageRecord, counter: WriteCounter | None) -> None:
    write_json(stage_record_path(run_dir, record.index, record.stage), record.to_json(), counter)


def read_run_record(path: Path) -> RunRecord:
    """run.json, checked for the fields a reader relies on (DamagedRecord otherwise)."""
    return read_typed(path, RunRecord.from_json)


def write_run_record(run_dir: Path, record: RunRecord, counter: WriteCounter | None) -> None:
    write_json(RunLayout(run_dir).record, record.to_json(), counter)


def is_finished(run_dir: Path) -> bool:
    """A run is done when its run record says it finished; a harness failure is retried on the next start.

    A damaged run record is not trusted either: the run is summed up again from its stage records.
    """
    path = RunLayout(run_dir).record
    if not path.is_file():
        return False
    try:
        return read_run_record(path).status == RunStatus.FINISHED
    except DamagedRecord:
        return False


def read_batch_record(path: Path) -> BatchRecord:
    """batch.json (DamagedRecord when it lacks a field a reader relies on, or one is malformed)."""
    return read_typed(path, BatchRecord.from_json)


def write_batch_record(path: Path, record: BatchRecord, counter: WriteCounter | None) -> None:
    write_json(path, record.to_json(), counter)


def read_analysis_record(path: Path) -> AnalysisRecord:
    return read_typed(path, AnalysisRecord.from_json)
