"""The task plug-in interface: everything the harness needs to know about one take-home.

The command-line edge resolves a task's plug-in once, by name (bakeoff.tasks.registry), and hands it down:
the runner, the analysis and the report take it as an argument and never look a task up. What differs
between tasks is here, grouped by concern:

- vocabulary: the headline (HeadlineSpec), the words pages use (TaskWords), its spec folder (statement,
  prompts, settings: task_specs/<name>/);
- corpus: what its data folder holds and what a run's sandbox sees of it, generating it;
- grader: grading a workspace in an open sandbox (`grade`, the one path of a run's check and of
  `bakeoff score`), the model's claim, the report `bakeoff score` prints;
- calibration: the references and cheap baselines run on the hidden data;
- extras: probes run in evaluate, `bakeoff analyze`, the report's task sections.

A plug-in is a class with no state of its own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from bakeoff.errors import BakeoffError
from bakeoff.records import Claim, ClaimSource, LadderCheck
from bakeoff.taskapi.corpus import CorpusFiles, CorpusLayout
from bakeoff.taskapi.grade import Grade
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.taskapi.headline import HeadlineSpec, TaskWords
from bakeoff.taskapi.spec import TaskSpec, load_task

if TYPE_CHECKING:
    from bakeoff.taskapi.context import RunContext, StageClock
    from bakeoff.taskapi.score import ScoredFolder, ScoreReport, ScoreRequest

# A probe run in evaluate on the final submission: (ctx, clock, final check) -> what the evaluate record keeps.
EvaluateHook = Callable[["RunContext", "StageClock", LadderCheck], Mapping[str, Any]]
OnStage = Callable[[str], None]
Found = TypeVar("Found")


class OptionNotForTask(BakeoffError):
    """An option of one take-home (`bakeoff generate`, `calibrate` or `score`) given with --task naming another."""


@dataclass(frozen=True)
class GenerateOption:
    """One option of `bakeoff generate` that belongs to a task: --NAME (underscores as dashes), its type and help.
    Not given, it is left to the task's generator (its default is in the help)."""

    name: str  # the Python name, e.g. holdout_rows (--holdout-rows)
    kind: type  # int or float
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class GenerateRequest:
    """`bakeoff generate --task NAME`: the folder, the seed and the task's own options that were given."""

    out_dir: Path
    seed: int
    options: Mapping[str, Any]  # only those given on the command line, by option name
    force: bool = False
    secret_file: Path | None = None  # the hidden part's secret (generators.secret); None: a fresh one


@dataclass(frozen=True)
class CoreSection:
    """Where the report puts what every task has (bakeoff.report.core: headline per model, crash taxonomy,
    repair turns, paired comparisons) among a task's own sections. `findings=False` when the task writes those
    sentences within its own findings."""

    findings: bool = True


class AnalysisNotAvailable(BakeoffError):
    """The batch's task has no probes that `bakeoff analyze` can recompute."""


@dataclass(frozen=True)
class AnalyzeSettings:
    """`bakeoff analyze`: the isolation and wheelhouse the probes run with, and the task's own options."""

    sandbox: str | None = None  # None: the isolation the batch ran with
    sandbox_options: Mapping[str, Any] = field(default_factory=dict)
    wheelhouse: Path | None = None
    force: bool = False  # recompute runs that already have an analysis record
    options: Mapping[str, Any] = field(default_factory=dict)  # the task's own (its probes' settings)


@dataclass(frozen=True)
class RunAnalysis:
    """What `bakeoff analyze` did with one run."""

    run_id: str
    status: str  # analysed, skipped_existing, skipped_unfinished
    probe_verdict: str | None = None
    retrain_spread: float | None = None


class TaskPlugin(ABC):
    """One take-home. Subclasses set the class attributes and implement the abstract methods."""

    # -- vocabulary --------------------------------------------------------------------------------
    name: ClassVar[str]  # the task_specs/ folder
    headline: ClassVar[HeadlineSpec]
    grade_type: ClassVar[type[Grade] | None] = None  # its grade, typed (bakeoff.taskapi.grade): the core reports it
    words: ClassVar[TaskWords] = TaskWords()

    def spec(self, overrides: Mapping[str, Any] | None = None) -> TaskSpec:
        """Statement, prompts and settings from task_specs/<name>/ (its own settings among them: TaskSettings.own)."""
        return load_task(self.name, overrides)

    # The modules whose code grades this task (a package stands for all of it): with the spec folder they make
    # the task's version, which a leaderboard pools batches by.
    grader_modules: ClassVar[tuple[str, ...]] = ()

    def version(self) -> str:
        """sha256 of the spec folder and the grader modules (bakeoff.taskapi.version): what batch.json keeps."""
        from bakeoff.taskapi.version import task_version

        return task_version(self.name, self.spec().folder, self.grader_modules)

    # -- corpus ------------------------------------------------------------------------------------
    # The script of a submission that the hidden step runs (predict.py, analyze.py): how `bakeoff score` tells a
    # submission of another task from one of this task (bakeoff.tasks.registry.check_submission_task).
    script: ClassVar[str] = ""
    # The generator's name in the manifests it writes (`generator_version` "<generator>-<version>"):
    # how `bakeoff score` tells a corpus's task without --task.
    generator: ClassVar[str] = ""
    # The options of `bakeoff generate` that belong to this task (the command line is built from them).
    generate_options: ClassVar[tuple[GenerateOption, ...]] = ()
    # The generate options of the small data `bakeoff demo` makes.
    demo_options: ClassVar[Mapping[str, Any]] = {}

    @abstractmethod
    def corpus_layout(self) -> CorpusLayout:
        """The files of this task's data folder and where a run's sandbox sees them (read-only)."""

    def corpus_files(self, folder: Path) -> CorpusFiles:
        return CorpusFiles.from_folder(folder, self.corpus_layout())

    @abstractmethod
    def generate(self, request: GenerateRequest, progress: Callable[[str], None] = lambda _: None) -> str:
        """Write the task's seeded data into request.out_dir; return a one-line summary for the user."""

    def ensure_corpus(self, folder: Path, *, demo: bool = False) -> Path:
        """`folder` if it already holds this task's data, else data generated into it (small when `demo`)."""
        if (folder / self.corpus_layout().manifest).is_file():
            return folder
        folder.parent.mkdir(parents=True, exist_ok=True)
        self.generate(GenerateRequest(folder, 0, dict(self.demo_options) if demo else {}, force=folder.exists()))
        return folder

    def demo_description(self) -> str:
        """How big the demo's data is, in words (`bakeoff demo` says it while generating)."""
        return ", ".join(f"{key} {value}" for key, value in self.demo_options.items()) or "small"

    # -- grader ------------------------------------------------------------------------------------
    @abstractmethod
    def grade(self, job: GradeJob) -> Graded:
        """Install, run the visible step (when asked) and the hidden step in job.sandbox; grade on the host."""

    @abstractmethod
    def parse_claim(self, text: str) -> Claim | None:
        """The model's own estimate in a text (its source left unset), or None when the text holds none."""

    def claim(self, visible_output: str, design: str | None, readme: str | None, check: LadderCheck) -> Claim:
        """The first claim found in the visible step's output, else the design, else the README (None where
        not to be read), with where it was found and the real figure beside it."""
        sources = ((ClaimSource.VISIBLE_OUTPUT, visible_output), (ClaimSource.DESIGN, design),
                   (ClaimSource.README, readme))
        for source, text in sources:
            found = self.parse_claim(text) if text else None
            if found is not None:
                return self.with_real(Claim(source, found.claimed, found.real, found.extra), check)
        return self.with_real(Claim(None), check)

    def with_real(self, claim: Claim, check: LadderCheck) -> Claim:
        """The claim with the real figure it is compared with (the headline by default)."""
        return Claim(claim.source, claim.claimed, check.headline_value, claim.extra)

    def score(self, request: ScoreRequest, on_stage: OnStage | None = None) -> ScoreReport:
        """`bakeoff score REPO --task NAME`: grade the folder alone (every task's scaffold, then `grade`) and report."""
        from bakeoff.taskapi.score import score_folder

        return self.score_report(score_folder(self, request, on_stage))

    @abstractmethod
    def score_report(self, folder: ScoredFolder) -> ScoreReport:
        """What `bakeoff score` prints of a folder graded alone (text, and a JSON object for --json)."""

    def check_score_request(self, request: ScoreRequest) -> None:  # noqa: B027 - most tasks take every option
        """Refuse an option of `bakeoff score` this task has no use for (OptionNotForTask)."""

    def probe_scored(self, job: GradeJob, graded: Graded) -> Any:
        """A task's own probe of a folder graded alone, run in the same open sandbox after grade() (ab_test's
        unit probe); what it returns reaches score_report as ScoredFolder.probe. None: no probe."""
        return None

    # -- calibration -------------------------------------------------------------------------------
    def cheaters(self) -> tuple[str, ...]:
        """The degenerate baselines calibration runs beside the references (careful must beat each one)."""
        return ()

    @abstractmethod
    def calibrate(self, corpus: Path, progress: Callable[[str], None], **options: Any) -> Any:
        """Run the references on the hidden data of `corpus`; the result has `to_dict()`."""

    def calibration_tables(self, calibration: Any) -> list[Any]:
        """What `bakeoff calibrate` prints of a calibration: rich renderables (tables, lines)."""
        return []

    # -- extras: probes, analysis, report ----------------------------------------------------------
    # Whether `bakeoff analyze` can recompute this task's probes for an existing batch (`reanalyse`).
    reanalysable: ClassVar[bool] = False

    def evaluate_hooks(self, enabled: bool = True) -> dict[str, EvaluateHook]:
        """{name: hook} run in evaluate on the final submission; none unless the task has probes."""
        return {}

    def reanalyse(self, batch_dir: Path, settings: AnalyzeSettings,
                  progress: Callable[[str], None] = lambda _: None) -> list[RunAnalysis]:
        """`bakeoff analyze`: recompute the probes of a finished batch (only where `reanalysable`)."""
        raise AnalysisNotAvailable(f"bakeoff analyze cannot recompute the probes of this batch (task {self.name}); "
                                   "its probes ran in each run's evaluate stage (stages/5-evaluate.json extras)")

    def export_metadata(self, run: Any) -> Mapping[str, Any]:
        """The task's own signals of one run (bakeoff.batchfolder.read.RunRecords), as the exports' per-run
        metadata carries them beside every task's (grading, crash class, rung, claim...). None by default."""
        return {}

    def report_sections(self, batch: Any, core: Any, bootstrap_seed: int = 0) -> list[Any]:
        """The report's sections for a batch (bakeoff.batchfolder.read.BatchRecords) of this task, in order: its
        own (bakeoff.report.sections.ReportSection: findings, tables, plots) and a CoreSection where the part
        every task has goes. `core` is that part's summary (bakeoff.analysis.core.CoreSummary), computed once for
        the whole report. Only the common part by default."""
        return [CoreSection()]
