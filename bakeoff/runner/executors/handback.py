"""Handing a finished stage from a worker's scratch folder back to the driver, and a run's state out to a worker.

A parcel is the stage's record, the repository's new commits (a git bundle) and the predictions the
stage kept. The driver publishes a parcel exactly as the local executor writes a stage: the repo moved
to the stage's commit, predictions, the stage record, the transcript, then the `stage_done` event.
A run's state (what a worker resumes from) is its finished stage records and a bundle of its history.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import durable
from bakeoff.batchfolder.layout import RunLayout
from bakeoff.batchfolder.records import STAGE_NAMES, finished_stages, load_stage_record, write_stage_record
from bakeoff.records import StageRecord
from bakeoff.runner import hostgit
from bakeoff.runner.run import BatchEnv
from bakeoff.runner.summary import stage_done_fields
from bakeoff.runner.transcript import write_transcript
from bakeoff.runner.workspace import RunRepo

_SAFE_NAME = re.compile(r"[A-Za-z0-9._-]+")


@dataclass(frozen=True)
class StageParcel:
    run_id: str
    index: int
    stage: str
    record: StageRecord
    bundle: bytes  # the commits after the last one the driver holds, up to this stage's
    predictions: Mapping[str, bytes] = field(default_factory=dict)  # file name -> content, new or changed


@dataclass(frozen=True)
class RunState:
    """What the driver holds of a run: its finished stages in order, and bundles that rebuild its history."""

    stages: tuple[StageRecord, ...] = ()
    bundles: tuple[bytes, ...] = ()

    def last_sha(self) -> str | None:
        return self.stages[-1].commit.sha if self.stages else None

    def plus(self, parcel: StageParcel) -> RunState:
        return RunState((*self.stages, parcel.record), (*self.bundles, parcel.bundle))


def bundle_since(repo: Path, since: str | None) -> bytes:
    """The repo's main branch as a bundle, without the history up to `since` (which the receiver holds)."""
    with tempfile.TemporaryDirectory(prefix="bakeoff-bundle-") as folder:
        target = Path(folder) / "stage.bundle"
        hostgit.bundle(repo, since, target)
        return target.read_bytes()


def fetch_bundle(repo: Path, bundle: bytes) -> None:
    """The bundle's commits into `repo` (a new repository of bakeoff's own where there is none); no ref moves."""
    if not (repo / ".git").is_dir():
        hostgit.init_own_repository(repo)
    hostgit.check_own_repository(repo)
    with tempfile.TemporaryDirectory(prefix="bakeoff-bundle-") as folder:
        source = Path(folder) / "in.bundle"
        source.write_bytes(bundle)
        hostgit.unbundle(repo, source)


def move_repo_to(repo: Path, sha: str, excerpt: Path | None) -> None:
    """The working tree at `sha` (the branch moved there), data/ holding the excerpt, as after a local stage."""
    run_repo = RunRepo(repo)
    run_repo.reset_to(sha)
    run_repo.restore_data(excerpt)


def state_from_disk(env: BatchEnv, run_id: str) -> RunState:
    """What the batch folder holds of a run, whichever executor wrote it."""
    run_dir = env.run_dir(run_id)
    stages = tuple(finished_stages(run_dir).values())
    if not stages:
        return RunState()
    repo = RunLayout(run_dir).repo
    hostgit.check_own_repository(repo)  # a batch folder someone else made: its repositories are not trusted
    return RunState(stages, (bundle_since(repo, None),))


def restore_state(run_dir: Path, state: RunState) -> None:
    """A worker's scratch copy of the run: stage records and the repository at the last finished stage."""
    for record in state.stages:
        write_stage_record(run_dir, record, None)
    sha = state.last_sha()  # None exactly when no stage has finished
    if sha is not None:
        repo = RunLayout(run_dir).repo
        for bundle in state.bundles:
            fetch_bundle(repo, bundle)
        hostgit.set_branch(repo, sha)


class ParcelMaker:
    """The worker's side: after each stage, the parcel of what changed since the last one."""

    def __init__(self, run_dir: Path, since: str | None) -> None:
        self.run_dir = run_dir
        self.since = since
        self._seen: dict[str, tuple[int, int]] = {}

    def parcel(self, run_id: str, stage: str) -> StageParcel:
        index = STAGE_NAMES.index(stage) + 1
        layout = RunLayout(self.run_dir)
        record = load_stage_record(layout.stage_record(index, stage))
        bundle = bundle_since(layout.repo, self.since)
        self.since = record.commit.sha
        return StageParcel(run_id, index, stage, record, bundle, self._new_predictions())

    def _new_predictions(self) -> dict[str, bytes]:
        folder = RunLayout(self.run_dir).outputs
        found: dict[str, bytes] = {}
        if not folder.is_dir():
            return found
        for path in sorted(folder.iterdir()):
            if not path.is_file() or path.is_symlink():
                continue
            stat = path.stat()
            mark = (stat.st_size, stat.st_mtime_ns)
            if self._seen.get(path.name) != mark:
                self._seen[path.name] = mark
                found[path.name] = path.read_bytes()
        return found


def publish_stage(env: BatchEnv, parcel: StageParcel) -> None:
    """The driver's side: write the stage into the batch folder in the local executor's order."""
    run_dir = env.run_dir(parcel.run_id)
    layout = RunLayout(run_dir)
    fetch_bundle(layout.repo, parcel.bundle)
    move_repo_to(layout.repo, parcel.record.commit.sha, env.corpus.excerpt)
    for name, data in parcel.predictions.items():
        if _SAFE_NAME.fullmatch(name) and name not in (".", ".."):
            durable.write_bytes(layout.outputs / name, data, mode=durable.PRIVATE)
    write_stage_record(run_dir, parcel.record, env.counter)
    stages = dict(finished_stages(run_dir))
    stages[parcel.stage] = parcel.record
    write_transcript(layout.transcript, stages.values(), env.counter)
    env.journal.append("stage_done", run_id=parcel.run_id, stage=parcel.stage, **stage_done_fields(parcel.record))

