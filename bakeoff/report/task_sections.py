"""The task's own report sections, found from the batch's task name through its plug-in (bakeoff.tasks).

The scaffolding (build.py) stays task-blind: it asks the plug-in of the plan's task for its sections, puts
their findings, tables and plots first, and adds what every task has (capture, reviews, reasoning).
"""

from __future__ import annotations

from collections.abc import MutableMapping

from bakeoff.analysis.batch_records import BatchRecords
from bakeoff.report.sections import ReportSection
from bakeoff.report.tables import Table


def task_sections(records: BatchRecords, bootstrap_seed: int = 0) -> list[ReportSection]:
    """The sections of the batch's task; none for a task no plug-in answers to (an old or foreign batch)."""
    from bakeoff.tasks.registry import DEFAULT_TASK, UnknownTask, task_plugin

    name = records.plan.get("task") or DEFAULT_TASK
    try:
        plugin = task_plugin(str(name))
    except UnknownTask:
        return []
    return [s for s in plugin.report_sections(records, bootstrap_seed) if isinstance(s, ReportSection)]


def add_sections(sections: list[ReportSection], found: list[str], tables: list[Table],
                 plots: MutableMapping[str, tuple[str, str]]) -> None:
    """Append each section's findings, tables and plots (name -> (caption, svg)) to the report's."""
    for section in sections:
        found.extend(section.findings)
        tables.extend(section.tables)
        for plot in section.plots:
            plots[plot.name] = (plot.caption, plot.svg)
