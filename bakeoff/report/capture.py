"""The capture columns by reason: every model call that was not captured, counted by status and reason.

The models table gives the rates; this table says why (timeout, backend_crash, cut_off, ...), so a
batch whose engine crashed shows it as such and never as a model that wrote nothing.
"""

from __future__ import annotations

from collections import Counter

from bakeoff.analysis.batch_records import BatchRecords, run_model_label
from bakeoff.analysis.stats import rate
from bakeoff.report.tables import Column, Table

COLUMNS = (Column("model"), Column("status"), Column("reason"), Column("calls", "int"), Column("share_of_calls", "pct"))


def _calls(stages) -> list[dict]:
    """Every model call of a run's stages (a stage's own answer and each of its turns)."""
    return [entry for record in stages.values() for entry in [record, *record.get("turns", ())]
            if entry.get("capture") is not None]


def capture_reasons_table(records: BatchRecords) -> Table:
    counts: dict[str, Counter] = {label: Counter() for label in records.model_labels()}
    totals: Counter = Counter()
    for run in records.runs:
        label = run_model_label(run)
        for call in _calls(run.stages):
            capture = call["capture"]
            totals[label] += 1
            if capture.get("status") != "captured":
                counts.setdefault(label, Counter())[(capture.get("status"), capture.get("reason"))] += 1
    rows = tuple(
        (label, status, reason, n, rate(n, totals[label]))
        for label, by_reason in counts.items()
        for (status, reason), n in sorted(by_reason.items(), key=lambda item: (-item[1], item[0]))
    )
    return Table("capture_reasons", "Capture: calls not captured, by reason", COLUMNS, rows)
