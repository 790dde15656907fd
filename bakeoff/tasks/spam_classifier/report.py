"""The spam take-home's report sections: F1 per model, the leak probe and the design, calibration, with
every task's part (crashes, repair turns, paired comparisons) between its tables and its later plots."""

from __future__ import annotations

from bakeoff.analysis.core import CoreSummary
from bakeoff.batchfolder.read import BatchRecords
from bakeoff.report.sections import Plot, ReportSection
from bakeoff.taskapi.plugin import CoreSection
from bakeoff.tasks.spam_classifier.aggregate import BatchSummary, summarise_batch
from bakeoff.tasks.spam_classifier.corpus_records import holdout_spam_rate
from bakeoff.tasks.spam_classifier.findings import findings
from bakeoff.tasks.spam_classifier.plots import head_plots, tail_plots
from bakeoff.tasks.spam_classifier.signals import run_signals
from bakeoff.tasks.spam_classifier.tables import behaviour_table, models_table, runs_table


def summarise(records: BatchRecords, bootstrap_seed: int = 0, core: CoreSummary | None = None) -> BatchSummary:
    return summarise_batch([run_signals(run) for run in records.runs], records.model_labels(), bootstrap_seed, core)


def _plots(plots: dict[str, tuple[str, str]]) -> tuple[Plot, ...]:
    return tuple(Plot(name, caption, svg) for name, (caption, svg) in plots.items())


def spam_sections(records: BatchRecords, core: CoreSummary) -> list[ReportSection | CoreSection]:
    summary = summarise(records, core.bootstrap_seed, core)
    head = ReportSection(
        "Spam classifier: F1, leak, calibration",
        findings=tuple(findings(summary, core)),
        tables=(models_table(summary), behaviour_table(summary), runs_table(summary)),
        plots=_plots(head_plots(summary)),
    )
    tail = ReportSection("Spam classifier: claims and rates",
                         plots=_plots(tail_plots(summary, records.calibration, holdout_spam_rate(records.manifest))))
    return [head, CoreSection(findings=False), tail]
