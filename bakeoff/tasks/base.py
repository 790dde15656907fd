"""The task plug-in interface: everything the harness needs to know about one take-home, found from its name.

The runner, the batch, resume, the sandbox, the capture audit, the repair ladder and the report's
scaffolding are the same for every task; what differs is here, behind `TaskPlugin`:

- the statement, prompts and settings (`spec`: the TaskSpec read from task_specs/<name>/);
- what its data folder holds and what a run's sandbox may see of it (`corpus_layout`: the truth never);
- the generator (`generate`) and the references with their calibration (`references`, `calibrate`);
- the in-sandbox check of a submission, the ladder (`check`), and what the model claims about itself (`claim`);
- how a ladder check is compared before and after a repair turn (`headline`) and what of it the run
  record's outcome keeps (`outcome_fields`);
- the grader of a submission folder on its own (`score`, for `bakeoff score REPO --task NAME`);
- the probes run in evaluate (`evaluate_hooks`) and the report's task-specific sections (`report_sections`).

A plug-in is a class with no state of its own; the registry (bakeoff.tasks.registry) makes one per lookup.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from bakeoff.errors import BakeoffError

if TYPE_CHECKING:
    from bakeoff.records import Command
    from bakeoff.runner.context import CorpusFiles, CorpusLayout, RunContext, StageClock
    from bakeoff.runner.ladder import Headline, LadderCheck
    from bakeoff.runner.task import TaskSpec

# A probe run in evaluate on the final submission: (ctx, clock, final check) -> what the evaluate record keeps.
EvaluateHook = Callable[["RunContext", "StageClock", "LadderCheck"], Mapping[str, Any]]
OnStage = Callable[[str], None]
Found = TypeVar("Found")


class OptionNotForTask(BakeoffError):
    """An option of one take-home (`bakeoff generate`, `calibrate` or `score`) given with --task naming another."""


@dataclass(frozen=True)
class ScoreRequest:
    """`bakeoff score REPO --task NAME`: what to grade and how (isolation, limits), task-independent."""

    repo: Path
    corpus: Path
    sandbox_kind: str = "docker"
    unsafe_no_isolation: bool = False
    train: bool = False  # spam_classifier: run train.py first; a task without training refuses it
    timeout_s: float = 600.0
    wheelhouse: Path | None = None
    disk_bytes: int = 4 * 1024**3
    sandbox_options: Mapping[str, object] = field(default_factory=dict)


class ScoreReport(ABC):
    """What grading a submission folder alone found: printable for people, a JSON object for scripts."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]: ...

    @abstractmethod
    def format_text(self) -> str: ...


@dataclass(frozen=True)
class GenerateRequest:
    """`bakeoff generate --task NAME`: the folder, the seed and the task's own options that were given."""

    out_dir: Path
    seed: int
    options: Mapping[str, Any]  # only those given on the command line, by option name
    force: bool = False
    secret_file: Path | None = None  # the hidden part's secret (generators.secret); None: a fresh one


class TaskPlugin(ABC):
    """One take-home. Subclasses set `name` (the task_specs/ folder) and implement the abstract methods."""

    name: ClassVar[str]
    # The command-line options of `bakeoff generate` that belong to this task (by their Python name).
    generate_options: ClassVar[tuple[str, ...]] = ()
    # Whether `bakeoff analyze` can recompute this task's probes for an existing batch (bakeoff.analysis.batch_analyze).
    reanalysable: ClassVar[bool] = False

    # -- the statement and the data ---------------------------------------------------------------
    def spec(self, overrides: Mapping[str, Any] | None = None) -> TaskSpec:
        from bakeoff.runner.task import load_task

        return load_task(self.name, overrides)

    @abstractmethod
    def corpus_layout(self) -> CorpusLayout:
        """The files of this task's data folder and where a run's sandbox sees them (read-only)."""

    def corpus_files(self, folder: Path) -> CorpusFiles:
        from bakeoff.runner.context import CorpusFiles

        return CorpusFiles.from_folder(folder, self.corpus_layout())

    @abstractmethod
    def generate(self, request: GenerateRequest, progress: Callable[[str], None] = lambda _: None) -> str:
        """Write the task's seeded data into request.out_dir; return a one-line summary for the user."""

    @abstractmethod
    def ensure_corpus(self, folder: Path, *, demo: bool = False) -> Path:
        """`folder` if it already holds this task's data, else data generated into it (small when `demo`)."""

    def demo_description(self) -> str:
        """How big the demo's data is, in words (`bakeoff demo` says it while generating)."""
        return "small"

    # -- the ladder ------------------------------------------------------------------------------
    @property
    @abstractmethod
    def headline(self) -> Headline:
        """The number a repair turn is judged by once a check is scored (with its direction and noise)."""

    @abstractmethod
    def check(self, ctx: RunContext, clock: StageClock, label: str) -> tuple[LadderCheck, list[Command]]:
        """Install, run the visible smoke test and the hidden runs in the run's sandbox; grade on the host.

        Returns the ladder check and the command records; `label` names what is kept in the run folder.
        """

    @abstractmethod
    def claim(self, ctx: RunContext, check: LadderCheck, include_readme: bool) -> dict[str, Any]:
        """The model's own estimate of its result and where it was found, beside the real one (a stage record's `claim`)."""

    def find_claim(self, ctx: RunContext, check: LadderCheck, include_readme: bool,
                   parse: Callable[[str], Found | None]) -> tuple[Found, str] | None:
        """The first claim `parse` reads in the visible run's output, else the design, else (after docs) the
        README, with where it was found (train_output, design, readme); None when none holds one."""
        sources = [("train_output", check.train_output), ("design", ctx.repo.read_file("DESIGN.md") or "")]
        if include_readme:
            sources.append(("readme", ctx.repo.read_file("README.md") or ""))
        for source, text in sources:
            found = parse(text)
            if found is not None:
                return found, source
        return None

    @abstractmethod
    def outcome_fields(self, check: LadderCheck, claim: Mapping[str, Any]) -> dict[str, Any]:
        """The task's own fields of run.json's `outcome` (beside status, rung, failed_step, crash_class...)."""

    # -- grading a folder alone ------------------------------------------------------------------
    @abstractmethod
    def score(self, request: ScoreRequest, on_stage: OnStage | None = None) -> ScoreReport:
        """Grade the submission folder request.repo on the hidden data of request.corpus (the folder is never changed)."""

    # -- references, probes, report --------------------------------------------------------------
    @abstractmethod
    def references(self) -> tuple[str, ...]:
        """The names of the reference submissions that calibrate the grading."""

    def cheaters(self) -> tuple[str, ...]:
        """The degenerate baselines calibration runs beside the references (careful must beat each one)."""
        return ()

    @abstractmethod
    def calibrate(self, corpus: Path, progress: Callable[[str], None], **options: Any) -> Any:
        """Run the references on the hidden data of `corpus`; the result has `to_dict()`."""

    def calibration_tables(self, calibration: Any) -> list[Any]:
        """What `bakeoff calibrate` prints of a calibration: rich renderables (tables, lines)."""
        return []

    def evaluate_hooks(self, enabled: bool = True) -> dict[str, EvaluateHook]:
        """{name: hook} run in evaluate on the final submission; none unless the task has probes."""
        return {}

    def report_sections(self, batch: Any, bootstrap_seed: int = 0) -> list[Any]:
        """The report's task-specific sections (bakeoff.report.sections.ReportSection) for a batch of this task:
        its findings, tables and plots, ahead of what every task's report has. None by default."""
        return []
