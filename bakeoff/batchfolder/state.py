"""Whether a batch is whole: no writer at work and every run of its order finished. The one rule that every
reader which publishes a batch (export, leaderboard) applies before it does; a reader never takes the lock."""

from __future__ import annotations

import os
from pathlib import Path

from bakeoff.batchfolder.files import Journal
from bakeoff.batchfolder.layout import BatchLayout
from bakeoff.batchfolder.read import BatchRecords
from bakeoff.records import RunStatus


def lock_held(folder: Path) -> bool:
    """Whether a process holds the batch's writer lock, read from /proc/locks (taking no lock: a reader never may)."""
    try:
        info = BatchLayout(folder).lock.stat()
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    me = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    return any(len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == me
               for fields in (line.split() for line in table.splitlines()))


def is_running(folder: Path) -> bool:
    """A writer holds the lock, or the journal's last batch start has no end (running, or killed mid-way)."""
    if lock_held(folder):
        return True
    state = None
    for entry in Journal(BatchLayout(folder).events).events():
        if entry.event in ("batch_started", "batch_done"):
            state = entry.event
    return state == "batch_started"


def unfinished_runs(records: BatchRecords) -> tuple[str, ...]:
    """The runs of the batch's order (and any others present) without a finished run.json. A run refused for a
    damaged record (read_batch(refuse_damaged_runs=True)) is not unfinished: it is left out, and said, apart."""
    present = {run.run_id: run for run in records.runs}
    refused = {run.run_id for run in records.refused}
    order = [run_id for run_id in records.batch.order or present if run_id not in refused]
    missing = []
    for run_id in order + [r for r in present if r not in order]:
        run = present.get(run_id)
        if run is None or run.run is None or run.run.status != RunStatus.FINISHED:
            missing.append(run_id)
    return tuple(missing)


def why_not_whole(folder: Path, records: BatchRecords) -> list[str]:
    """What keeps the batch from being whole, in words (empty when it is whole)."""
    why = []
    if is_running(folder):
        why.append("it is still running (or was stopped before its end: run it again to finish it)")
    unfinished = unfinished_runs(records)
    if unfinished:
        why.append(f"{len(unfinished)} run(s) have not finished: {', '.join(unfinished[:5])}"
                   + (" ..." if len(unfinished) > 5 else ""))
    return why
