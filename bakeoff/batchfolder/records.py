"""The one door to a batch folder's records: reading and writing each record where the layout says it is.

Records are bakeoff.records objects in memory; on disk they are the JSON docs/records.md describes,
written atomically (bakeoff.batchfolder.files.write_json). Records of the first schema are read through
bakeoff.batchfolder.upgrade. A stage record that is absent or damaged counts as not done (it is re-done,
never trusted); one with a schema this bakeoff does not know stops the batch (UnknownRecordSchema), so a
record written by a newer bakeoff is never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    RunRecord,
    RunStatus,
    StageRecord,
)

R = TypeVar("R")

__all__ = ["STAGE_NAMES", "finished_stages", "is_finished", "load_stage_record", "read_analysis_record",
           "read_batch_record", "read_run_record", "read_stage_record", "read_typed", "stage_record_path",
           "stages_with_failure", "write_batch_record", "write_run_record", "write_stage_record"]


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


def finished_stages(run_dir: Path) -> dict[str, StageRecord]:
    """The records of the stages already done, in order.

    A gap ends the list (later ones are re-run), and so does a stage the harness failed:
    it is the model's work that counts as done, not the harness's failure to do it.
    """
    done: dict[str, StageRecord] = {}
    for index, stage in enumerate(STAGE_NAMES, start=1):
        record = read_stage_record(stage_record_path(run_dir, index, stage))
        if record is None or record.attribution == Attribution.HARNESS_ERROR:
            break
        done[stage] = record
    return done


def stages_with_failure(run_dir: Path) -> dict[str, StageRecord]:
    """The finished stages plus the record of the stage the harness failed, if there is one."""
    stages = finished_stages(run_dir)
    index = len(stages) + 1
    if index <= len(STAGE_NAMES):
        record = read_stage_record(stage_record_path(run_dir, index, STAGE_NAMES[index - 1]))
        if record is not None:
            stages[STAGE_NAMES[index - 1]] = record
    return stages


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
