"""A task as one value: its words and its parts (bakeoff.taskapi.parts), composed, nothing to subclass.

The command-line edge looks a task up once, by name (bakeoff.tasks.registry), and hands the value down: the
runner, the analysis and the report take it as an argument and never look a task up. The methods here are the
core's own, the same for every task; a part the task lacks (None) is where the core does without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bakeoff.records import Claim, ClaimSource, LadderCheck
from bakeoff.taskapi.control import ControlNotAvailable, ControlTruth, make_control
from bakeoff.taskapi.corpus import CorpusFiles, CorpusLayout
from bakeoff.taskapi.grade import Grade
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.taskapi.headline import HeadlineSpec, TaskWords
from bakeoff.taskapi.options import OptionNotForTask, OptionValues, TaskOptions
from bakeoff.taskapi.parts import (
    Calibration,
    CoreFigures,
    Corpus,
    EvaluateHook,
    FolderProbe,
    FolderReport,
    Grader,
    JsonMapping,
    Probes,
    Progress,
    Reanalysis,
    ReportPart,
    ReportSections,
    RunMetadata,
    Tripwire,
)
from bakeoff.taskapi.spec import TaskSpec, load_task

if TYPE_CHECKING:
    from bakeoff.batchfolder.read import BatchRecords, RunRecords
    from bakeoff.taskapi.plugin import CoreSection, GenerateRequest


@dataclass(frozen=True)
class Task:
    """One take-home. `name` is its folder in task_specs/, bakeoff/tasks/ and generators/."""

    name: str
    headline: HeadlineSpec
    corpus: Corpus
    grader: Grader
    score_report: FolderReport
    script: str  # the file the hidden step runs: how `bakeoff score` tells another task's submission
    generator: str  # its manifests' `generator_version` "<generator>-<version>": how a corpus's task is told
    words: TaskWords = TaskWords()
    # Its grade, typed (bakeoff.taskapi.grade): the core reads its figures once and reports its breakdowns.
    grade_type: type[Grade] | None = None
    # The modules whose code grades this task (a package stands for all of it): with the spec folder they make
    # the task's version, which a leaderboard pools batches by.
    grader_modules: tuple[str, ...] = ()
    options: TaskOptions = field(default_factory=TaskOptions)
    # False where the claim is about the visible input, whose truth is never read: no real figure beside it.
    claim_has_real: bool = True
    calibration: Calibration | None = None
    probes: Probes | None = None
    analysis: Reanalysis | None = None  # `bakeoff analyze` recomputes the probes
    folder_probe: FolderProbe | None = None  # `bakeoff score` probes the folder after grading it
    report: ReportSections | None = None  # None: only the part every task has
    export: RunMetadata | None = None
    tripwire: Tripwire | None = None  # what a careful analysis can reach: the report flags a run past it
    control: ControlTruth | None = None  # what `bakeoff generate --control` permutes

    # -- vocabulary --------------------------------------------------------------------------------
    def spec(self, overrides: Mapping[str, object] | None = None) -> TaskSpec:
        """Statement, prompts and settings from task_specs/<name>/ (its own settings among them)."""
        return load_task(self.name, overrides)

    def version(self) -> str:
        """sha256 of the spec folder and the grader modules (bakeoff.taskapi.version): what batch.json keeps."""
        from bakeoff.taskapi.version import task_version

        return task_version(self.name, self.spec().folder, self.grader_modules)

    # -- corpus ------------------------------------------------------------------------------------
    def corpus_layout(self) -> CorpusLayout:
        return self.corpus.layout

    def corpus_files(self, folder: Path) -> CorpusFiles:
        return CorpusFiles.from_folder(folder, self.corpus.layout)

    def generate(self, request: GenerateRequest, progress: Progress = lambda _: None) -> str:
        """Write the task's seeded data; with `request.control`, a negative control of it (bakeoff.taskapi.control)."""
        control = self.control
        if request.control and control is None:
            raise ControlNotAvailable(f"the task {self.name} declares no hidden truth to permute: it has no control")
        summary = self.corpus.generate(request, progress)
        if control is None or not request.control:
            return summary
        units = make_control(request.out_dir, control, self.corpus.layout.manifest)
        return (f"{summary}; a NEGATIVE CONTROL: {control.column} of {control.file} permuted across its {units} hidden "
                "units (no analysis can beat chance on it)")

    def ensure_corpus(self, folder: Path, *, demo: bool = False) -> Path:
        """`folder` if it already holds this task's data, else data generated into it (small when `demo`)."""
        from bakeoff.taskapi.plugin import GenerateRequest

        if (folder / self.corpus.layout.manifest).is_file():
            return folder
        folder.parent.mkdir(parents=True, exist_ok=True)
        self.generate(GenerateRequest(folder, 0, dict(self.options.demo) if demo else {}, force=folder.exists()))
        return folder

    def demo_description(self) -> str:
        """How big the demo's data is, in words (`bakeoff demo` says it while generating)."""
        return self.options.demo_description()

    # -- grader ------------------------------------------------------------------------------------
    def grade(self, job: GradeJob) -> Graded:
        return self.grader.grade(job)

    def claim(self, visible_output: str, design: str | None, readme: str | None, check: LadderCheck) -> Claim:
        """The first claim found in the visible step's output, else the design, else the README (None where
        not to be read), with where it was found and, where the task's claim has one, the real figure beside it."""
        sources = ((ClaimSource.VISIBLE_OUTPUT, visible_output), (ClaimSource.DESIGN, design),
                   (ClaimSource.README, readme))
        for source, text in sources:
            found = self.grader.parse_claim(text) if text else None
            if found is not None:
                return self._with_real(Claim(source, found.claimed, found.real, found.extra), check)
        return self._with_real(Claim(None), check)

    def _with_real(self, claim: Claim, check: LadderCheck) -> Claim:
        return Claim(claim.source, claim.claimed, check.headline_value, claim.extra) if self.claim_has_real else claim

    def refuse_options(self, command: str, given: OptionValues) -> None:
        """OptionNotForTask naming each option given (not None, not False) that this task does not declare."""
        own = {option.name for option in self.options.for_command(command)}
        foreign = [name for name, value in given.items() if name not in own and value not in (None, False, ())]
        if foreign:
            flags = ", ".join("--" + name.replace("_", "-") for name in foreign)
            raise OptionNotForTask(f"{flags} do(es) not apply to --task {self.name}")

    # -- extras: probes, report, exports -----------------------------------------------------------
    @property
    def reanalysable(self) -> bool:
        """Whether `bakeoff analyze` can recompute this task's probes for an existing batch."""
        return self.analysis is not None

    def evaluate_hooks(self, enabled: bool = True) -> dict[str, EvaluateHook]:
        """{name: hook} run in evaluate on the final submission: none where the task has no probes or they are off."""
        return dict(self.probes.hooks()) if enabled and self.probes is not None else {}

    def report_sections(self, batch: BatchRecords, core: CoreFigures,
                        bootstrap_seed: int = 0) -> list[ReportPart | CoreSection]:
        """The report's sections in order: the task's own with a CoreSection where the common part goes; only the
        common part when the task has no sections of its own."""
        from bakeoff.taskapi.plugin import CoreSection

        return [CoreSection()] if self.report is None else list(self.report(batch, core, bootstrap_seed))

    def export_metadata(self, run: RunRecords) -> JsonMapping:
        """The task's own signals of one run for the exports' per-run metadata; none without an export part."""
        return {} if self.export is None else self.export(run)

