"""Reading a whole batch folder for the analysis, the report and the exports (layout: bakeoff.batchfolder.layout;
fields: docs/records.md). Nothing here writes.

The records are read through bakeoff.batchfolder.records into the typed classes of bakeoff.records, whose
from_json checks each record's schema tag and the keys it needs. A record that is damaged, or of a schema
this bakeoff does not read, is a BatchFolderError naming it. The corpus's manifest and calibration and a
review's summary are not batch records: they stay mappings, read by their own readers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from bakeoff.batchfolder.files import read_json_object, workspace_text
from bakeoff.batchfolder.layout import REVIEW_DIRS, BatchLayout, RunLayout
from bakeoff.batchfolder.records import (
    read_analysis_record,
    read_batch_record,
    read_run_record,
    read_typed,
)
from bakeoff.errors import BakeoffError
from bakeoff.records import (
    ANALYSIS_SCHEMA,
    DEFAULT_SCAFFOLD,
    STAGE_NAME_PATTERN,
    AnalysisRecord,
    BatchRecord,
    DamagedRecord,
    LoopStep,
    Plan,
    RepairTurn,
    RunRecord,
    Stage,
    StageRecord,
    StepReaders,
    UnknownRecordSchema,
    no_step_readers,
    row_label,
)
from bakeoff.records.codec import decode_or_none
from bakeoff.records.manifest import ManifestHead

__all__ = ["ANALYSIS_FILE", "ANALYSIS_SCHEMA", "JUDGE_FIELD", "BatchFolderError", "BatchRecords", "RefusedRun",
           "RunRecords", "read_batch", "read_json_file", "read_run", "run_model_label", "stage_calls"]

ANALYSIS_FILE = "analysis.json"  # RunLayout.analysis: written by `bakeoff analyze` beside run.json
JUDGE_FIELD = "design_judge"  # analysis.json: the optional model judge's opinion of the design
R = TypeVar("R")


class BatchFolderError(BakeoffError):
    """The folder is not a batch folder, or one of its records cannot be read."""


@dataclass(frozen=True)
class RunRecords:
    """Everything recorded about one run."""

    run_id: str
    folder: Path
    run: RunRecord | None  # run.json; None while the run is unfinished
    stages: Mapping[str, StageRecord]  # stage name -> its record
    analysis: AnalysisRecord | None  # analysis.json, when `bakeoff analyze` has run
    design_text: str | None  # the design document the run ended with (repo/DESIGN.md, else the decide answer)
    steps: tuple[LoopStep, ...] = ()  # a loop's steps in order (a scaffold's step_stage; none for most runs)
    planned_scaffold: str = DEFAULT_SCAFFOLD  # the scaffold the batch's plan gives the run

    @property
    def finished(self) -> bool:
        return self.run is not None

    @property
    def scaffold(self) -> str:
        """How the run was driven: its run record's, else (unfinished) its plan's."""
        return self.run.scaffold if self.run is not None else self.planned_scaffold


@dataclass(frozen=True)
class RefusedRun:
    """A run left out of what is published, and why (a damaged record, a value its task cannot give)."""

    run_id: str
    reason: str


@dataclass(frozen=True)
class BatchRecords:
    folder: Path
    batch: BatchRecord
    runs: tuple[RunRecords, ...]  # in the batch's execution order
    calibration: Mapping[str, Any] | None  # calibration.json of the batch's corpus, when present
    reviews: tuple[tuple[str, Mapping[str, Any]], ...]  # (folder name, metrics) of claim-review results in the batch
    manifest: Mapping[str, Any] | None = None  # the corpus's manifest.json, when it can be found
    refused: tuple[RefusedRun, ...] = ()  # runs whose records cannot be read (or admitted: bakeoff.analysis.admit)

    @property
    def plan(self) -> Plan:
        """The resolved plan the batch was started with (docs/running.md)."""
        return self.batch.plan

    @property
    def secret_id(self) -> str | None:
        """The id of the secret the corpus's hidden part was drawn with, where its manifest names one."""
        return ManifestHead.of(self.manifest).secret_id or None

    def model_labels(self) -> list[str]:
        """The report's rows: every (model, scaffold) of the plan, then any other a run shows; not a row whose
        every run was refused (a row of nothing but a damaged record says nothing)."""
        seen = [row_label(m.label, scaffold) for m, scaffold in self.plan.rows() if m.label]
        for run in self.runs:
            label = run_model_label(run)
            if label not in seen:
                seen.append(label)
        kept = {run_model_label(run) for run in self.runs}
        refused = {r.run_id.rsplit("-r", 1)[0] for r in self.refused} - kept
        return [label for label in seen if label not in refused]


def stage_calls(record: StageRecord) -> tuple[StageRecord | RepairTurn, ...]:
    """The parts of a stage record that may hold a model call: the stage's own, then each repair turn's."""
    return (record, *record.turns)


def run_model_label(run: RunRecords) -> str:
    """The run's row: its model's label, under a scaffold other than the default its row_label."""
    if run.run is not None and run.run.model.label:
        return run.run.row_label
    return run.run_id.rsplit("-r", 1)[0]


def read_json_file(path: Path, reader: Callable[[Path], Any] = read_json_object) -> Any:
    """A record through `reader` (a JSON object by default); BatchFolderError naming the file and what is wrong."""
    try:
        return reader(path)
    except DamagedRecord as exc:
        raise BatchFolderError(str(exc)) from None
    except UnknownRecordSchema as exc:
        raise BatchFolderError(str(exc)) from None
    except OSError as exc:
        raise BatchFolderError(f"cannot read record {path}: {exc}") from None


def read_batch(folder: Path, refuse_damaged_runs: bool = False,
               step_readers: StepReaders = no_step_readers) -> BatchRecords:
    """The batch's records; a record that cannot be read is a BatchFolderError naming it, unless
    `refuse_damaged_runs` (what is published: the report, the leaderboard): then that run alone is left out,
    in `refused`, and the rest is read. `step_readers` decode the step records of a run's scaffold (the
    scaffolds' registry hands them down; the default reads none, and a run that has some is then an error)."""
    layout = BatchLayout(Path(folder))
    folder = layout.folder
    if not layout.is_batch():
        raise BatchFolderError(f"{folder} is not a batch folder (no batch.json)")
    batch: BatchRecord = read_json_file(layout.record, read_batch_record)
    runs_dir = layout.runs
    ordered = list(batch.order)
    present = sorted(p.name for p in runs_dir.iterdir() if p.is_dir()) if runs_dir.is_dir() else []
    run_ids = [r for r in ordered if r in present] + [r for r in present if r not in ordered]
    runs, refused = _read_runs(runs_dir, run_ids, refuse_damaged_runs, _planned_scaffolds(batch.plan), step_readers)
    corpus_files = _corpus_file(folder, batch.plan, "manifest.json")
    manifest = read_json_file(corpus_files) if corpus_files else None
    return BatchRecords(folder, batch, runs, _calibration(folder, batch.plan), _reviews(folder), manifest, refused)


def _planned_scaffolds(plan: Plan) -> Callable[[str], str]:
    """A run id's scaffold as the plan gives it: its row's (run ids are <row>-rNN, bakeoff.runner.plan.RunSlot)."""
    rows = {row_label(model.label, scaffold): scaffold for model, scaffold in plan.rows()}
    return lambda run_id: rows.get(run_id.rpartition("-r")[0], DEFAULT_SCAFFOLD)


def _read_runs(runs_dir: Path, run_ids: list[str], refuse_damaged: bool,
               scaffold_of: Callable[[str], str],
               step_readers: StepReaders) -> tuple[tuple[RunRecords, ...], tuple[RefusedRun, ...]]:
    """The runs that read, and (`refuse_damaged`) the damaged ones refused by name: one bad run then never
    hides the rest of a batch; a batch none of whose runs reads is a BatchFolderError either way."""
    runs, refused = [], []
    for run_id in run_ids:
        try:
            runs.append(read_run(runs_dir / run_id, scaffold_of(run_id), step_readers))
        except BatchFolderError as exc:
            if not refuse_damaged:
                raise
            refused.append(RefusedRun(run_id, str(exc)))
    if refused and not runs:
        raise BatchFolderError(f"no run of {runs_dir.parent} can be read: " + "; ".join(r.reason for r in refused[:3]))
    return tuple(runs), tuple(refused)


def _read_stage(path: Path) -> StageRecord:
    return read_typed(path, StageRecord.from_json)


STAGE_NAME = re.compile(STAGE_NAME_PATTERN)


def _stage_files(layout: RunLayout) -> list[tuple[int, str, Path]]:
    """(index, stage, path) of every stage record file, in index order: a scaffold's own stages included."""
    if not layout.stages.is_dir():
        return []
    found = []
    for path in layout.stages.glob("*.json"):
        index, _, name = path.stem.partition("-")
        if index.isdigit() and STAGE_NAME.fullmatch(name):  # the core's stages, or a scaffold's own
            found.append((int(index), name, path))
    return sorted(found)


def _read_steps(layout: RunLayout, scaffold: str, step_readers: StepReaders) -> tuple[LoopStep, ...]:
    """The run's step records through its scaffold's decoder; steps with no decoder handed down are an error
    (left unread, a loop's calls and tokens would vanish from every number without a word)."""
    if not layout.steps.is_dir():
        return ()
    paths = sorted(p for p in layout.steps.glob("*.json") if p.stem.isdigit())
    if not paths:
        return ()
    reader = step_readers(scaffold)
    if reader is None:
        raise BatchFolderError(f"{layout.steps} holds step records and no reader of scaffold {scaffold!r}'s steps "
                               f"was given (bakeoff.scaffolds.registry.step_readers)")
    return tuple(read_json_file(path, partial(read_typed, parse=reader)) for path in paths)


def read_run(folder: Path, planned_scaffold: str = DEFAULT_SCAFFOLD,
             step_readers: StepReaders = no_step_readers) -> RunRecords:
    """A run's records; `planned_scaffold` is what an unfinished run's plan gives it (read_batch knows it),
    `step_readers` decode its steps (read_batch's)."""
    layout = RunLayout(folder)
    stages: dict[str, StageRecord] = {}
    for _, stage, path in _stage_files(layout):
        stages[stage] = read_json_file(path, _read_stage)
    run = read_json_file(layout.record, read_run_record) if layout.record.is_file() else None
    return RunRecords(
        run_id=folder.name,
        folder=folder,
        run=run,
        stages=stages,
        analysis=read_json_file(layout.analysis, read_analysis_record) if layout.analysis.is_file() else None,
        design_text=_design_text(layout, stages),
        steps=_read_steps(layout, run.scaffold if run is not None else planned_scaffold, step_readers),
        planned_scaffold=planned_scaffold,
    )


def _design_text(layout: RunLayout, stages: Mapping[str, StageRecord]) -> str | None:
    design = workspace_text(layout.repo, "DESIGN.md")  # a capped head, never through a link sandboxed code left
    if design is not None:
        return design
    decide = stages.get(Stage.DECIDE)
    return decide.completion.text if decide is not None and decide.completion is not None else None


def _corpus_file(folder: Path, plan: Plan, name: str) -> Path | None:
    """`name` beside the batch, in its own corpus/, or in the plan's corpus folder."""
    candidates = [folder / name, folder / "corpus" / name]
    if plan.corpus:
        candidates.append(Path(plan.corpus) / name)
    return next((path for path in candidates if path.is_file()), None)


def _calibration(folder: Path, plan: Plan) -> Mapping[str, Any] | None:
    path = _corpus_file(folder, plan, "calibration.json")
    return read_json_file(path) if path else None


REVIEW_FOLDERS = REVIEW_DIRS
REVIEW_SUMMARY_FILE = "review.json"  # what `bakeoff review --out DIR` writes (docs/review.md)
REVIEW_KIND = "claim_review"


def _reviews(folder: Path) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """Every `bakeoff review --out` folder kept under BATCH/review/ or BATCH/reviews/ (found by its review.json)."""
    found = []
    for name in REVIEW_FOLDERS:
        base = folder / name
        if base.is_dir():
            for path in sorted(base.rglob(REVIEW_SUMMARY_FILE)):
                summary = read_json_file(path)
                if _summary_kind(summary) == REVIEW_KIND:
                    found.append((path.parent.relative_to(folder).as_posix(), summary))
    return tuple(found)


@dataclass(frozen=True)
class _SummaryKind:
    """The one field of a summary file read here: which kind it is (the review's own records read the rest)."""

    kind: str = ""


def _summary_kind(summary: Any) -> str:
    found = decode_or_none(_SummaryKind, summary)  # not an object, or a kind that is no text: no review's summary
    return found.kind if found is not None else ""
