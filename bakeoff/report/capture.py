"""The capture columns by reason: every model call that was not captured, counted by status and reason.

The models table gives the rates; this table says why (timeout, backend_crash, cut_off, ...), so a
batch whose engine crashed shows it as such and never as a model that wrote nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from bakeoff.analysis.stats import rate
from bakeoff.batchfolder.read import BatchRecords, run_model_label, stage_calls
from bakeoff.records import Capture, CaptureStatus, LoopStep, StageRecord
from bakeoff.report.tables import Column, Table

COLUMNS = (Column("model"), Column("status"), Column("reason"), Column("calls", "int"), Column("share_of_calls", "pct"))


def _captures(stages: Mapping[str, StageRecord], steps: Sequence[LoopStep] = ()) -> list[Capture]:
    """The capture audit of every model call of a run: its stages' (a stage's own answer and each of its turns)
    and a loop's steps'."""
    found = [call.capture for record in stages.values() for call in stage_calls(record) if call.capture is not None]
    return found + [step.capture for step in steps if step.capture is not None]


def capture_reasons_table(records: BatchRecords) -> Table:
    counts: dict[str, Counter] = {label: Counter() for label in records.model_labels()}
    totals: Counter = Counter()
    for run in records.runs:
        label = run_model_label(run)
        for capture in _captures(run.stages, run.steps):
            totals[label] += 1
            if capture.status != CaptureStatus.CAPTURED:
                counts.setdefault(label, Counter())[(capture.status.value, capture.reason.value)] += 1
    rows = tuple(
        (label, status, reason, n, rate(n, totals[label]))
        for label, by_reason in counts.items()
        for (status, reason), n in sorted(by_reason.items(), key=lambda item: (-item[1], item[0]))
    )
    return Table("capture_reasons", "Capture: calls not captured, by reason", COLUMNS, rows)
