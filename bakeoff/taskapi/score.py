"""`bakeoff score REPO --task NAME` for every task: a folder graded alone on the task's hidden data.

The folder is copied, trusting nothing in it (bakeoff.submission.safe_copy: its git never runs, no link leaves
it, no file in it may be the truth), into a scratch workspace on a capped filesystem of its own
(sandbox.scratch); the task's data is mounted read-only from copies on that filesystem (so the sandbox sees
no host path of it; the truth never); a sandbox is opened over it; the task's grader grades it there
(Task.grade, the same path as a run's check) and reports (the task's score_report part). Everything is
removed at the end, also when a signal unwinds it.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bakeoff.batchfolder.files import workspace_text
from bakeoff.errors import BakeoffError
from bakeoff.submission.safe_copy import copy_submission
from bakeoff.taskapi.corpus import CorpusError, CorpusFiles
from bakeoff.taskapi.grading import GradeJob
from bakeoff.taskapi.hidden_inputs import GatedFolder
from bakeoff.taskapi.scored import (
    DEFAULT_DISK_BYTES,
    EnvironmentFailedReport,
    ProbeRecord,
    ScoredFolder,
    ScoreReport,
    ScoreRequest,
    with_environment_failure,
)
from bakeoff.taskapi.workspace import SCRATCH_DIR, real_folder
from sandbox.base import MIB, Mount
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.kinds import BWRAP, UNSAFE, consent_settings
from sandbox.scratch import DiskCap, ScratchFs
from sandbox.submission import SubmissionSandbox

if TYPE_CHECKING:
    from bakeoff.taskapi.task import Task

__all__ = ["DEFAULT_DISK_BYTES", "CorpusNotUsable", "EnvironmentFailedReport", "ProbeRecord", "ScoreReport",
           "ScoreRequest", "ScoredFolder", "ScoringUnavailable", "score", "score_folder", "with_environment_failure"]

FS_SLACK_BYTES = 8 * MIB


class ScoringUnavailable(BakeoffError):
    """bakeoff cannot grade here (no engine, no image, no bwrap, no unsafe consent)."""


class CorpusNotUsable(CorpusError):
    """The corpus folder given to `bakeoff score` lacks a file grading needs."""


class FolderWorkspace:
    """A scratch copy as the Workspace a task's grader grades (files read without following links)."""

    def __init__(self, path: Path) -> None:
        self._path = path

    @property
    def path(self) -> Path:
        return self._path

    def read_file(self, relative: str) -> str | None:
        return workspace_text(self._path, relative)

    def write_file(self, relative: str, content: str) -> Path:
        """Write a file of the copy, replacing (never following) a link planted at its name."""
        target = self._path / relative
        if target.is_symlink():
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return target

    def scratch(self) -> Path:
        return real_folder(self._path, SCRATCH_DIR)


def scoring_kind(unsafe_no_isolation: bool, sandbox_kind: str) -> str:
    """The --unsafe-no-isolation flag is itself the choice of the unisolated kind (and the consent to it)."""
    return UNSAFE if unsafe_no_isolation else sandbox_kind


def scoring_wheelhouse(wheelhouse: Path | None) -> Path:
    """The wheelhouse offline installs read from (the default one when none is given), made if missing."""
    from sandbox.wheelhouse import default_wheelhouse

    folder = wheelhouse or default_wheelhouse()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_scoring_sandbox(box: SubmissionSandbox) -> Any:  # a context manager of a Sandbox
    from sandbox.submission import open_submission_sandbox

    try:
        return open_submission_sandbox(box)
    except SandboxUnavailable as exc:
        raise ScoringUnavailable(
            f"{exc}. Run `bakeoff check` to see which isolation works here"
            + ("" if box.kind == BWRAP else f", or choose another with --sandbox {BWRAP}")
        ) from exc


def corpus_for_scoring(plugin: Task, corpus: Path) -> CorpusFiles:
    if not Path(corpus).is_dir():
        raise CorpusNotUsable(f"corpus folder {corpus} does not exist; {plugin.corpus_layout().hint}")
    try:
        return plugin.corpus_files(Path(corpus))
    except CorpusError as exc:
        raise CorpusNotUsable(str(exc)) from None


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def _scratch_fs(scratch: Path, files: CorpusFiles, request: ScoreRequest) -> ScratchFs:
    """The capped filesystem the workspace lives on (room for the copied inputs on top of the cap)."""
    inputs = sum(_size(mount.host_path) for mount in files.mounts())
    size = request.disk_bytes + inputs + request.disk_bytes // 32 + FS_SLACK_BYTES  # ext4's own metadata (2-8%)
    try:
        return ScratchFs.create(scratch, size, kinds=request.scratch_kinds)
    except SandboxError as exc:
        raise ScoringUnavailable(str(exc)) from exc


def _hidden_gate(fs: ScratchFs, files: CorpusFiles) -> GatedFolder:
    """The hidden inputs behind a gate of their own on the scratch filesystem, as a batch run has them: the
    grading step and the task's probe open it, so a probe's inputs are staged exactly as grading's are."""
    gate = files.hidden_gate(fs.path / "hidden_inputs")
    gate.prepare()
    return gate


def _inputs(fs: ScratchFs, files: CorpusFiles, disk_bytes: int) -> tuple[tuple[Mount, ...], DiskCap | None]:
    """The visible data's mounts, from copies on the scratch filesystem when it is one of its own.

    A bind mount shows its source's path in the sandbox's /proc/self/mountinfo;
    a copy on the scratch filesystem shows only `/inputs/<name>`.
    """
    if not fs.capped:
        return files.visible_mounts(), None
    folder = fs.path / "inputs"
    folder.mkdir(mode=0o755)
    mounts = []
    for mount in files.visible_mounts():
        copy = folder / mount.host_path.name
        if mount.host_path.is_dir():
            shutil.copytree(mount.host_path, copy)
            for path in copy.rglob("*"):
                path.chmod(0o755 if path.is_dir() else 0o444)
        else:
            shutil.copyfile(mount.host_path, copy)
            copy.chmod(0o444)
        mounts.append(dataclasses.replace(mount, host_path=copy))
    return tuple(mounts), fs.disk_cap(cap_bytes=disk_bytes)


def score_folder(plugin: Task, request: ScoreRequest, on_stage: Callable[[str], None] | None = None) -> ScoredFolder:
    """Grade the folder request.repo on the hidden data of request.corpus; the folder itself is never touched."""
    plugin.refuse_options("score", {"train": request.train})  # OptionNotForTask where the task has no training step
    kind = scoring_kind(request.unsafe_no_isolation, request.sandbox_kind)
    settings = {**request.sandbox_options, **consent_settings(kind, request.unsafe_no_isolation, ScoringUnavailable)}
    files = corpus_for_scoring(plugin, request.corpus)
    wheelhouse = scoring_wheelhouse(request.wheelhouse)
    spec = plugin.spec()
    scratch = Path(tempfile.mkdtemp(prefix="bakeoff-score-", dir=request.scratch_parent))
    try:
        with _scratch_fs(scratch, files, request) as fs:
            workspace = FolderWorkspace(fs.path / "workspace")
            mounts, disk_cap = _inputs(fs, files, request.disk_bytes)
            gate = _hidden_gate(fs, files)
            copied = copy_submission(request.repo, workspace.path, files.truth_files())
            # Without a capped scratch filesystem (no root) the same cap is kept by watching the workspace.
            limits = dataclasses.replace(request.limits, timeout_s=request.timeout_s, disk_bytes=request.disk_bytes)
            box = SubmissionSandbox(kind=kind, workspace=workspace.path, inputs=(*mounts, gate.mount()), wheelhouse=wheelhouse,
                                    limits=limits, disk_cap=disk_cap, settings=settings)
            with open_scoring_sandbox(box) as sandbox:
                job = GradeJob(sandbox=sandbox, workspace=workspace, corpus=files, settings=spec.settings,
                               wheelhouse=wheelhouse, outputs_dir=scratch / "outputs", label="score",
                               visible_step=False, train=request.train, timeout_s=request.timeout_s,
                               on_step=on_stage or (lambda _: None), hidden=gate)
                graded = plugin.grade(job)
                probe = plugin.folder_probe(job, graded) if plugin.folder_probe is not None else None
                isolation = str(getattr(sandbox, "kind", kind))
            check = graded.ladder_check()
            claim = plugin.claim(check.visible_output, workspace.read_file("DESIGN.md"),
                                 workspace.read_file("README.md"), check)
            return ScoredFolder(graded, claim, isolation, tuple(copied.notes()), probe)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def score(plugin: Task, request: ScoreRequest, on_stage: Callable[[str], None] | None = None) -> ScoreReport:
    """`bakeoff score REPO`: grade the folder alone (score_folder) and report it as its task does, marked where the
    environment failed it."""
    folder = score_folder(plugin, request, on_stage)
    return with_environment_failure(plugin.score_report(folder), folder.graded.ladder_check())
