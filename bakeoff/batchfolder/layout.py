"""Where everything in a batch folder lives: the one definition of its layout (docs/records.md).

    BATCH/batch.json             the plan and the run order (BatchRecord)
    BATCH/plan.toml              the plan file as given
    BATCH/events.jsonl           the journal
    BATCH/batch.lock             the writer's lock
    BATCH/runs/<run_id>/         one run (RunLayout): stages/, steps/ (a loop's), repo/, run.json...
    BATCH/report/                `bakeoff report`'s folder
    BATCH/review/, BATCH/reviews/  review result folders kept with the batch (ReviewLayout)

Nothing here reads or writes: bakeoff.batchfolder.records and .read do, through these paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

BATCH_FILE = "batch.json"
PLAN_FILE = "plan.toml"
EVENTS_FILE = "events.jsonl"
LOCK_FILE = "batch.lock"
RUNS_DIR = "runs"
REPORT_DIR = "report"
REVIEW_DIRS = ("review", "reviews")


@dataclass(frozen=True)
class RunLayout:
    """One run's folder: runs/<run_id>/."""

    folder: Path

    @property
    def record(self) -> Path:
        return self.folder / "run.json"

    @property
    def analysis(self) -> Path:
        """Written by `bakeoff analyze` beside run.json."""
        return self.folder / "analysis.json"

    @property
    def transcript(self) -> Path:
        return self.folder / "transcript.jsonl"

    @property
    def repo(self) -> Path:
        return self.folder / "repo"

    @property
    def outputs(self) -> Path:
        """What the hidden step of each check wrote, kept out of the repository (the folder's old name stays)."""
        return self.folder / "predictions"

    @property
    def stages(self) -> Path:
        return self.folder / "stages"

    @property
    def hidden_inputs(self) -> Path:
        """The folder mounted where the hidden inputs belong, filled only while the harness grades."""
        return self.folder / "hidden_inputs"

    def stage_record(self, index: int, stage: str) -> Path:
        return self.stages / f"{index}-{stage}.json"

    @property
    def steps(self) -> Path:
        """A loop's steps: one record per step (Scaffold.step_stage)."""
        return self.folder / "steps"

    def step_record(self, step: int) -> Path:
        return self.steps / f"{step:03d}.json"


@dataclass(frozen=True)
class WriterFolder:
    """What every folder one writer fills has: its journal and the writer's lock (a batch's, a review's)."""

    folder: Path

    @property
    def events(self) -> Path:
        return self.folder / EVENTS_FILE

    @property
    def lock(self) -> Path:
        return self.folder / LOCK_FILE


@dataclass(frozen=True)
class BatchLayout(WriterFolder):
    """A batch folder's paths."""

    @property
    def record(self) -> Path:
        return self.folder / BATCH_FILE

    @property
    def plan_file(self) -> Path:
        return self.folder / PLAN_FILE

    @property
    def runs(self) -> Path:
        return self.folder / RUNS_DIR

    @property
    def report(self) -> Path:
        return self.folder / REPORT_DIR

    def run(self, run_id: str) -> RunLayout:
        return RunLayout(self.runs / run_id)

    def is_batch(self) -> bool:
        return self.record.is_file()


@dataclass(frozen=True)
class ReviewLayout(WriterFolder):
    """A `bakeoff review --out` folder: one reviewer's batch folder, with the batch's journal and lock."""

    @property
    def summary(self) -> Path:
        """review.json, written last: a folder with one is a finished review."""
        return self.folder / "review.json"

    @property
    def answers(self) -> Path:
        return self.folder / "answers.jsonl"

    @property
    def resume(self) -> Path:
        """What must not change between the starts of one review."""
        return self.folder / "resume.json"

    @property
    def model_info(self) -> Path:
        return self.folder / "model_info.json"

    def old_partial(self) -> Path:
        """Where a review of bakeoff before the batch-folder layout kept its unfinished answers."""
        return self.folder.parent / f".{self.folder.name}.partial"
