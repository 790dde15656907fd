"""The parts a task is made of, each a protocol of one or two members (docs/tasks.md, "Adding a task").

A task (bakeoff.taskapi.task.Task) is a value composed of these: its data (Corpus), its grader (Grader), what
`bakeoff score` prints (FolderReport) and, where it has them, its calibration, probes, re-analysis, report
sections and export metadata. A part a task lacks is None in its value: the core does without it, and no task
writes a method to say it has none.

What the report and the exports speak lives above this layer; the few shapes a part hands them are declared
here as protocols those types satisfy (ReportPart, CoreFigures, ProbeRecord, CalibrationRecord).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bakeoff.records import Claim, LadderCheck
from bakeoff.taskapi.corpus import CorpusLayout
from bakeoff.taskapi.grade import Grade
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.taskapi.options import OptionValues
from bakeoff.taskapi.scored import ProbeRecord, ScoredFolder, ScoreReport

if TYPE_CHECKING:
    from rich.console import RenderableType

    from bakeoff.batchfolder.read import BatchRecords, RunRecords
    from bakeoff.taskapi.context import RunContext, StageClock
    from bakeoff.taskapi.plugin import AnalyzeSettings, CoreSection, GenerateRequest, RunAnalysis

Progress = Callable[[str], None]
JsonMapping = Mapping[str, object]  # what a record keeps of a part's result (written as JSON)

# A probe run in evaluate on the final submission: (ctx, clock, final check) -> what the evaluate record keeps.
EvaluateHook = Callable[["RunContext", "StageClock", LadderCheck], JsonMapping]


class Corpus(Protocol):
    """A task's data (generators/<task>/): the files of its folder and how a seeded one is written."""

    @property
    def layout(self) -> CorpusLayout: ...

    def generate(self, request: GenerateRequest, progress: Progress) -> str:
        """Write the seeded data into request.out_dir; a one-line summary for the user."""
        ...


class Grader(Protocol):
    """Grading a workspace in an open sandbox (a run's check and `bakeoff score` alike), and reading the
    model's own estimate of the headline in a text."""

    def grade(self, job: GradeJob) -> Graded: ...

    def parse_claim(self, text: str) -> Claim | None:
        """The estimate in `text` (its source left unset), or None when the text holds none."""
        ...


class FolderReport(Protocol):
    """What `bakeoff score` prints of a folder graded alone (text, and a JSON object for --json)."""

    def __call__(self, folder: ScoredFolder) -> ScoreReport: ...


class FolderProbe(Protocol):
    """A probe of a folder graded alone, run in the same open sandbox after grading (for example a probe of the unit of analysis)."""

    def __call__(self, job: GradeJob, graded: Graded) -> ProbeRecord: ...


class CalibrationRecord(Protocol):
    """A calibration's result as calibration.json keeps it."""

    def to_dict(self) -> dict[str, object]: ...


@dataclass(frozen=True)
class Calibrated:
    """A calibration done: its record, and what `bakeoff calibrate` prints of it (tables, lines)."""

    record: CalibrationRecord
    shown: tuple[RenderableType, ...] = ()


class Calibration(Protocol):
    """The references and the degenerate baselines (cheaters) a task runs on its hidden data (generators/<task>/)."""

    @property
    def cheaters(self) -> tuple[str, ...]: ...

    def calibrate(self, corpus: Path, progress: Progress, options: OptionValues) -> Calibrated:
        """Run the references and cheaters on the hidden data of `corpus`, with the task's calibrate options."""
        ...


class Probes(Protocol):
    """The probes a task runs in evaluate on the final submission."""

    def hooks(self) -> Mapping[str, EvaluateHook]:
        """{name: hook}; what each returns is kept under the evaluate record's extras by its name."""
        ...


class Reanalysis(Protocol):
    """`bakeoff analyze`: recompute a task's probes for the finished runs of a batch."""

    def reanalyse(self, batch_dir: Path, settings: AnalyzeSettings, progress: Progress) -> list[RunAnalysis]: ...


class CoreFigures(Protocol):
    """What a task's report sections may read of the part every task has (bakeoff.analysis.core.CoreSummary)."""

    @property
    def bootstrap_seed(self) -> int: ...


class ReportPart(Protocol):
    """A section of the report (bakeoff.report.sections.ReportSection): a title, findings, tables, plots."""

    @property
    def title(self) -> str: ...


class ReportSections(Protocol):
    """The report's sections for a batch of this task, in order: its own and a CoreSection where the part
    every task has goes (computed once, as `core`)."""

    def __call__(self, batch: BatchRecords, core: CoreFigures, bootstrap_seed: int) -> Sequence[ReportPart | CoreSection]: ...


@dataclass(frozen=True)
class Reach:
    """What a careful analysis of a task can reach on one corpus, from its calibration: the interval of careful's
    headline (a run better than its good end did what careful cannot), and the thinnest interval width the truth
    allows (a run's intervals thinner than that, on the task's own width measure, know more than the data says).
    None where the calibration does not say."""

    careful_low: float | None = None
    careful_high: float | None = None
    thinnest_width: float | None = None
    source: str = ""  # where the figures come from, in words (the report says it)


class Tripwire(Protocol):
    """What a careful analysis of the task can reach, for the report's tripwire (bakeoff.analysis.tripwire)."""

    def reach(self, calibration: Mapping[str, object] | None) -> Reach:
        """From the corpus's calibration.json as read (None: the corpus was never calibrated)."""
        ...

    def width(self, grade: Grade) -> float | None:
        """A run's interval width on the measure `reach` gives the thinnest of (None: the task has none)."""
        ...


class RunMetadata(Protocol):
    """The task's own signals of one run, as the exports' per-run metadata carries them beside every task's."""

    def __call__(self, run: RunRecords) -> JsonMapping: ...
