"""The report's "check before trusting" part: the runs past the tripwire (bakeoff.analysis.tripwire) and what the
transcript scan found (bakeoff.analysis.attempts), each run with its transcript's link.

A batch where nothing tripped and no run reached for anything adds nothing to the report, unless its corpus is a
negative control (`bakeoff generate --control`): then the part says so, since every score there is chance's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bakeoff.analysis.attempts import KINDS, RunAttempts, run_attempts
from bakeoff.analysis.core import CoreSummary
from bakeoff.analysis.tripwire import Tripped, reach_of, tripped_runs
from bakeoff.batchfolder.read import BatchRecords
from bakeoff.report.core import count
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


@dataclass(frozen=True)
class Trust:
    """What the part reports, computed once: the runs past the tripwire, every run's scan, the corpus's kind."""

    tripped: tuple[Tripped, ...]
    attempts: tuple[RunAttempts, ...]
    control: bool
    reach: Reach

    @property
    def anything(self) -> bool:
        return bool(self.tripped) or any(a.total for a in self.attempts) or self.control


def trust_of(records: BatchRecords, plugin: Task, core: CoreSummary) -> Trust:
    reach = reach_of(plugin.tripwire, records.calibration)
    models = {run.run_id: run.model for run in core.runs}
    layout = plugin.corpus_layout()
    attempts = tuple(run_attempts(run, models[run.run_id] if run.run_id in models else "", layout)
                     for run in records.runs)
    return Trust(tuple(tripped_runs(core.runs, core.headline, plugin.tripwire, reach)), attempts,
                 is_control(records.manifest), reach)


def trust_section(trust: Trust, core: CoreSummary) -> ReportSection | None:
    """The part, or None where no run tripped, no run reached for anything and the corpus is no control."""
    if not trust.anything:
        return None
    tables = ((tripwire_table(trust.tripped, core),) if trust.tripped else ()) + (attempts_table(trust.attempts),)
    findings = ([CONTROL_LINE] if trust.control else []) + trust_findings(trust.tripped, trust.attempts)
    if trust.reach == Reach():
        findings.append(NO_REACH_LINE)
    return ReportSection(TITLE, findings=tuple(findings), tables=tables)


def transcript_notes(trust: Trust) -> dict[str, tuple[str, ...]]:
    """run_id -> what its transcript page says first: why to check it, and the places the scan found."""
    notes: dict[str, list[str]] = {}
    for t in trust.tripped:
        notes.setdefault(t.run_id, []).extend(f"tripwire: {sign}" for sign in t.signs)
    for a in trust.attempts:
        notes.setdefault(a.run_id, []).extend(f"reaches for {kind} ({count(a.counts[kind], 'place')}), first at {a.first[kind]}"
                                              for kind in KINDS if kind in a.counts)
    return {run_id: tuple(lines) for run_id, lines in notes.items() if lines}
