"""The report's "check before trusting" part: the runs past the tripwire (bakeoff.analysis.tripwire) and what the
transcript scan found (bakeoff.analysis.attempts), each run with its transcript's link.

A batch where nothing tripped and no run reached for anything adds nothing to the report, unless its corpus is a
negative control (`bakeoff generate --control`): then the part says so, since every score there is chance's.
"""

from __future__ import annotations

from collections.abc import Sequence

from bakeoff.analysis.attempts import KINDS, RunAttempts, run_attempts
from bakeoff.analysis.core import CoreSummary
from bakeoff.analysis.tripwire import Tripped, reach_of, tripped_runs
from bakeoff.batchfolder.read import BatchRecords
from bakeoff.report.sections import ReportSection
from bakeoff.report.tables import Column, Table, cols
from bakeoff.report.transcript import transcript_path
from bakeoff.taskapi.control import is_control
from bakeoff.taskapi.parts import Reach
from bakeoff.taskapi.task import Task

TITLE = "Check before trusting"
NO_REACH_LINE = ("The corpus has no calibration of careful to compare with (`bakeoff calibrate --corpus DIR` writes "
                 "one): only a perfect score trips the wire here.")
CONTROL_LINE = ("The corpus is a negative control: its hidden answers were permuted across the hidden units, so no "
                "analysis can beat chance on it; a run that scores above the data-free baselines of its calibration "
                "is a signal to read in its transcript.")


def tripwire_table(tripped: Sequence[Tripped], core: CoreSummary) -> Table:
    kind = "f4" if "4f" in core.headline.fmt else "f3"
    rows = tuple((t.run_id, t.model, t.headline, "; ".join(t.signs), transcript_path(t.run_id)) for t in tripped)
    columns = cols(f"run model {core.headline.name}:{kind} why transcript")
    return Table("tripwire", f"{TITLE}: results a careful analysis cannot reach", columns, rows)


def attempts_table(attempts: Sequence[RunAttempts]) -> Table:
    """Every run's count of places per kind, and the first place found."""
    rows = []
    for a in attempts:
        first = "; ".join(a.first[kind] for kind in KINDS if kind in a.first)
        rows.append((a.run_id, a.model, *(a.counts.get(kind, 0) for kind in KINDS), first,
                     transcript_path(a.run_id)))
    columns = (Column("run"), Column("model"), *(Column(kind, "int") for kind in KINDS), Column("first_found"),
               Column("transcript"))
    return Table("transcript_scan", f"{TITLE}: what each run's model wrote that reaches for hidden paths, the "
                 "secret, the grader, the network or the harness's files (places counted)", columns, tuple(rows))


def trust_findings(tripped: Sequence[Tripped], attempts: Sequence[RunAttempts]) -> list[str]:
    lines = [f"Check before trusting run {t.run_id} ({t.model}): {'; '.join(t.signs)}; read its transcript "
             f"({transcript_path(t.run_id)})." for t in tripped]
    for a in attempts:
        if a.total:
            kinds = ", ".join(f"{kind} {a.counts[kind]}" for kind in KINDS if kind in a.counts)
            lines.append(f"Run {a.run_id} ({a.model}) wrote what reaches for {kinds} "
                         f"(places in its transcript: {transcript_path(a.run_id)}).")
    return lines


def trust_section(records: BatchRecords, plugin: Task, core: CoreSummary) -> ReportSection | None:
    """The part, or None where no run tripped and no run reached for anything."""
    reach = reach_of(plugin.tripwire, records.calibration)
    tripped = tripped_runs(core.runs, core.headline, plugin.tripwire, reach)
    by_id = {run.run_id: run for run in core.runs}
    layout = plugin.corpus_layout()
    attempts = [run_attempts(run, by_id[run.run_id].model if run.run_id in by_id else "", layout)
                for run in records.runs]
    control = is_control(records.manifest)
    if not tripped and not any(a.total for a in attempts) and not control:
        return None
    tables = ((tripwire_table(tripped, core),) if tripped else ()) + (attempts_table(attempts),)
    findings = ([CONTROL_LINE] if control else []) + trust_findings(tripped, attempts)
    if reach == Reach():
        findings.append(NO_REACH_LINE)
    return ReportSection(TITLE, findings=tuple(findings), tables=tables)
