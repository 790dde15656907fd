"""The spam take-home's report section: F1 per model, the leak probe and the design, calibration, crashes,
repair turns and paired comparisons, as tables, plots and findings (the spam plug-in's `report_sections`)."""

from __future__ import annotations

from bakeoff.analysis.aggregate import BatchSummary, summarise_batch
from bakeoff.analysis.batch_records import BatchRecords
from bakeoff.analysis.signals import run_signals
from bakeoff.report.findings import findings
from bakeoff.report.plots import all_plots
from bakeoff.report.sections import Plot, ReportSection
from bakeoff.report.tables import all_tables


def summarise(records: BatchRecords, bootstrap_seed: int = 0) -> BatchSummary:
    signals = [run_signals(run) for run in records.runs]
    return summarise_batch(signals, records.model_labels(), bootstrap_seed)


def spam_section(records: BatchRecords, bootstrap_seed: int = 0) -> ReportSection:
    summary = summarise(records, bootstrap_seed)
    plots = all_plots(summary, records.calibration, records.holdout_spam_rate)
    return ReportSection(
        "Spam classifier: F1, leak, calibration",
        findings=tuple(findings(summary)),
        tables=tuple(all_tables(summary)),
        plots=tuple(Plot(name, caption, svg) for name, (caption, svg) in plots.items()),
    )
