"""What an export reads: the batch's records, its summary and signals, its reviews, and whether it is whole.

An export reads the batch folder and never writes it. A batch is whole when its journal's
last start has a matching end and every run in its order has a finished run.json; otherwise
the export is refused unless partial exports were asked for, and the missing runs are then
named in what is written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.analysis.core import CoreSummary, RunCore
from bakeoff.batchfolder.files import Journal
from bakeoff.batchfolder.layout import BatchLayout
from bakeoff.batchfolder.read import REVIEW_KIND, REVIEW_SUMMARY_FILE, BatchRecords, read_batch, read_json_file
from bakeoff.export.errors import ExportRefused
from bakeoff.records import RunStatus
from bakeoff.report.build import core_summary
from bakeoff.report.transcript_review import ReviewRecords, read_review
from bakeoff.taskapi.task import Task


@dataclass(frozen=True)
class ExportSource:
    folder: Path
    records: BatchRecords | None  # None when the folder is a review results folder on its own
    plugin: Task | None  # the batch's task (None for a review folder)
    core: CoreSummary | None
    runs: Mapping[str, RunCore]  # run id -> what every task's run says
    extras: Mapping[str, Mapping[str, Any]]  # run id -> the task's own signals (Task.export_metadata)
    reviews: tuple[ReviewRecords, ...]
    running: bool  # the journal's last batch start has no end
    unfinished: tuple[str, ...]  # run ids without a finished run.json

    @property
    def partial(self) -> bool:
        return self.running or bool(self.unfinished)


def _lock_held(folder: Path) -> bool:
    """Whether a process holds the batch's writer lock, read from /proc/locks (taking no lock: a reader never may)."""
    try:
        info = BatchLayout(folder).lock.stat()
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    me = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    return any(len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == me
               for fields in (line.split() for line in table.splitlines()))


def _running(folder: Path) -> bool:
    """A writer holds the lock, or the journal's last batch start has no end (running, or killed mid-way)."""
    if _lock_held(folder):
        return True
    state = None
    for entry in Journal(BatchLayout(folder).events).entries():
        if entry.get("event") in ("batch_started", "batch_done"):
            state = entry["event"]
    return state == "batch_started"


def _unfinished(records: BatchRecords) -> tuple[str, ...]:
    present = {run.run_id: run for run in records.runs}
    order = list(records.batch.order or present)
    missing = []
    for run_id in order + [r for r in present if r not in order]:
        run = present.get(run_id)
        if run is None or run.run is None or run.run.status != RunStatus.FINISHED:
            missing.append(run_id)
    return tuple(missing)


def load_source(folder: Path, plugin: Task | None, *, partial: bool, bootstrap_seed: int = 0) -> ExportSource:
    """What an export reads of `folder`: a batch of the task `plugin` is, or a review folder (plugin None)."""
    folder = Path(folder)
    review_file = folder / REVIEW_SUMMARY_FILE
    if not BatchLayout(folder).is_batch() and review_file.is_file():
        summary = read_json_file(review_file)
        if isinstance(summary, dict) and summary.get("kind") == REVIEW_KIND:
            review = read_review(folder, folder.name, summary)
            return ExportSource(folder, None, None, None, {}, {}, (review,), False, ())
    records = read_batch(folder)
    if plugin is None:
        raise ExportRefused(f"{folder} is a batch folder: exporting it needs its task's plug-in")
    core = core_summary(records, plugin, bootstrap_seed)
    source = ExportSource(
        folder=folder,
        records=records,
        plugin=plugin,
        core=core,
        runs={run.run_id: run for run in core.runs},
        extras={run.run_id: plugin.export_metadata(run) for run in records.runs},
        reviews=tuple(read_review(folder / name, name, summary) for name, summary in records.reviews),
        running=_running(folder),
        unfinished=_unfinished(records),
    )
    if source.partial and not partial:
        why = []
        if source.running:
            why.append("it is still running (or was stopped before its end: run it again to finish it)")
        if source.unfinished:
            why.append(f"{len(source.unfinished)} run(s) have not finished: {', '.join(source.unfinished[:5])}"
                       + (" ..." if len(source.unfinished) > 5 else ""))
        raise ExportRefused(f"{folder}: " + "; ".join(why) + "; add --partial to export it anyway, marked as partial")
    return source
