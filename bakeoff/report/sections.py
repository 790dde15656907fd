"""A task's own part of the report: tables, plots and findings that only that task's records can fill.

The report's scaffolding (build.py) adds each section's findings under the batch's, its tables after the
common ones and its plots after the common plots; a task plug-in's `report_sections(records)` returns them.
"""

from __future__ import annotations

from dataclasses import dataclass

from bakeoff.report.tables import Table


@dataclass(frozen=True)
class Plot:
    name: str  # file stem of plots/<name>.svg and the page's id plot-<name>
    caption: str
    svg: str


@dataclass(frozen=True)
class ReportSection:
    title: str
    findings: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()
    plots: tuple[Plot, ...] = ()
