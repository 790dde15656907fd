"""The runner's one door to the records of a batch folder: where each lives, reading it, writing it.

Records are bakeoff.records objects in memory; on disk they are the JSON docs/records.md describes,
written atomically (bakeoff.runner.records.write_json). A stage record that is absent or damaged counts as
not done (it is re-done, never trusted); one with a schema this bakeoff does not know stops the batch
(UnknownRecordSchema), so a record written by a newer bakeoff is never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from bakeoff.records import Attribution, BatchRecord, DamagedRecord, RunRecord, RunStatus, StageRecord
from bakeoff.runner.records import WriteCounter, read_record, write_json

STAGE_NAMES = ("explore", "decide", "implement", "repair", "evaluate", "docs")
STAGE_REQUIRED = ("stage", "attribution", "commit", "timings")
RUN_REQUIRED = ("run_id", "status", "outcome", "timings")
BATCH_REQUIRED = ("schema", "plan", "plan_sha256", "order")
RUN_FILE = "run.json"
R = TypeVar("R")


def stage_record_path(run_dir: Path, index: int, stage: str) -> Path:
    return run_dir / "stages" / f"{index}-{stage}.json"


def _read(path: Path, required: tuple[str, ...], parse: Callable[[dict[str, Any], str], R]) -> R:
    """The record at `path`; DamagedRecord naming the file and what is wrong with it otherwise."""
    data = read_record(path, required)
    try:
        return parse(data, str(path))
    except DamagedRecord as exc:
        raise DamagedRecord(f"{path} is damaged: {exc}") from None


def read_stage_record(path: Path) -> StageRecord | None:
    """A stage record, or None when it is absent or damaged: a damaged record is re-done, never trusted."""
    if not path.is_file():
        return None
    try:
        return _read(path, STAGE_REQUIRED, StageRecord.from_json)
    except DamagedRecord:
        return None


def load_stage_record(path: Path) -> StageRecord:
    """A stage record that must be there (one this process just wrote): DamagedRecord otherwise."""
    return _read(path, STAGE_REQUIRED, StageRecord.from_json)


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
    return _read(path, RUN_REQUIRED, RunRecord.from_json)


def write_run_record(run_dir: Path, record: RunRecord, counter: WriteCounter | None) -> None:
    write_json(run_dir / RUN_FILE, record.to_json(), counter)


def is_finished(run_dir: Path) -> bool:
    """A run is done when its run record says it finished; a harness failure is retried on the next start.

    A damaged run record is not trusted either: the run is summed up again from its stage records.
    """
    path = run_dir / RUN_FILE
    if not path.is_file():
        return False
    try:
        return read_run_record(path).status == RunStatus.FINISHED
    except DamagedRecord:
        return False


def read_batch_record(path: Path, required: tuple[str, ...] = BATCH_REQUIRED) -> BatchRecord:
    """batch.json (DamagedRecord when it lacks a field a reader relies on, or one is malformed)."""
    return _read(path, required, BatchRecord.from_json)


def write_batch_record(path: Path, record: BatchRecord, counter: WriteCounter | None) -> None:
    write_json(path, record.to_json(), counter)
