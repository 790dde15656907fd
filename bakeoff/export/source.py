"""What an export reads: the batch's records, its summary and signals, its reviews, and whether it is whole.

An export reads the batch folder and never writes it. A batch is whole when its journal's
last start has a matching end and every run in its order has a finished run.json; otherwise
the export is refused unless partial exports were asked for, and the missing runs are then
named in what is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.analysis.core import CoreSummary, RunCore
from bakeoff.batchfolder.layout import BatchLayout
from bakeoff.batchfolder.read import REVIEW_SUMMARY_FILE, BatchRecords, read_batch, read_json_file
from bakeoff.batchfolder.state import is_running, unfinished_runs, why_not_whole
from bakeoff.export.errors import ExportRefused
from bakeoff.report.build import core_summary
from bakeoff.report.review import typed_reviews
from bakeoff.report.transcript_review import ReviewRecords, read_review
from bakeoff.review.records import summary_from
from bakeoff.scaffolds.registry import step_readers
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


def load_source(folder: Path, plugin: Task | None, *, partial: bool, bootstrap_seed: int = 0) -> ExportSource:
    """What an export reads of `folder`: a batch of the task `plugin` is, or a review folder (plugin None)."""
    folder = Path(folder)
    review_file = folder / REVIEW_SUMMARY_FILE
    if not BatchLayout(folder).is_batch() and review_file.is_file():
        summary = summary_from(read_json_file(review_file), str(review_file))
        if summary is not None:
            review = read_review(folder, folder.name, summary)
            return ExportSource(folder, None, None, None, {}, {}, (review,), False, ())
    records = read_batch(folder, step_readers=step_readers)
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
        reviews=tuple(read_review(folder / name, name, summary) for name, summary in typed_reviews(records.reviews)),
        running=is_running(folder),
        unfinished=unfinished_runs(records),
    )
    if source.partial and not partial:
        why = why_not_whole(folder, records)
        raise ExportRefused(f"{folder}: " + "; ".join(why) + "; add --partial to export it anyway, marked as partial")
    return source
