"""Scoring one submission repository: `bakeoff score` as a library call.

`score_submission` copies the repository (trusting nothing in it, see
bakeoff.grading.safe_copy) into a scratch workspace on a capped filesystem of
its own (sandbox.scratch), opens a sandbox over it with copies of the
corpus's holdout features (never its answers) mounted read-only, grades it
there (bakeoff.grading.grade) and scores on the host. Everything is
removed at the end, also when a signal unwinds it (bakeoff.cli.score). The stage runner grades inside its own sandbox with
`grade_in_sandbox` directly.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from bakeoff.errors import BakeoffError
from bakeoff.grading.grade import GradingRequest, grade_in_sandbox
from bakeoff.grading.inputs import HOLDOUT_IN_SANDBOX, CorpusFiles, copy_working_tree, find_corpus_files
from bakeoff.grading.outcome import SubmissionOutcome
from sandbox.base import GIB, MIB, Limits, Mount
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.kinds import BWRAP, UNSAFE, consent_settings
from sandbox.scratch import KINDS as SCRATCH_KINDS
from sandbox.scratch import DiskCap, ScratchFs
from sandbox.submission import SubmissionSandbox

Found = TypeVar("Found")
DEFAULT_DISK_BYTES = 4 * GIB
FS_SLACK_BYTES = 8 * MIB

__all__ = [
    "GradingRequest",
    "ScoreOptions",
    "ScoringUnavailable",
    "SubmissionOutcome",
    "grade_in_sandbox",
    "score_submission",
]


class ScoringUnavailable(BakeoffError):
    """bakeoff cannot grade here (no engine, no image, no bwrap, no unsafe consent)."""


@dataclass(frozen=True)
class ScoreOptions:
    """How to grade: which isolation, whether to train, the per-command time limit."""

    sandbox_kind: str = "docker"
    unsafe_no_isolation: bool = False  # must be set to use the "none" kind
    train: bool = False
    timeout_s: float = 600.0
    wheelhouse: Path | None = None  # None: sandbox.wheelhouse.default_wheelhouse()
    limits: Limits = field(default_factory=Limits)
    sandbox_options: Mapping[str, object] = field(default_factory=dict)  # the driver's settings, e.g. an image name
    scratch_parent: Path | None = None  # where the scratch workspace is made; None: the system's temp folder
    # The cap on what the submission's files and commands may occupy in the workspace (and /deps).
    disk_bytes: int = DEFAULT_DISK_BYTES
    scratch_kinds: tuple[str, ...] = SCRATCH_KINDS  # tried in order: loop ext4, tmpfs, plain folder (no cap)


def score_submission(
    repo: Path,
    corpus: Path,
    options: ScoreOptions = ScoreOptions(),
    on_stage: Callable[[str], None] | None = None,
) -> SubmissionOutcome:
    """Grade the submission in `repo` on the corpus's hidden holdout; `repo` itself is never touched."""
    kind = scoring_kind(options.unsafe_no_isolation, options.sandbox_kind)
    settings = {**options.sandbox_options, **consent_settings(kind, options.unsafe_no_isolation, ScoringUnavailable)}
    corpus_files = find_corpus_files(corpus, need_train=options.train)
    wheelhouse = scoring_wheelhouse(options.wheelhouse)
    scratch = Path(tempfile.mkdtemp(prefix="bakeoff-score-", dir=options.scratch_parent))
    try:
        with _scratch_fs(scratch, corpus_files, options) as fs:
            workspace = fs.path / "workspace"
            mounts, disk_cap = _inputs(fs, corpus_files, options.disk_bytes)
            copied = copy_working_tree(repo, workspace, protected=corpus_files.protected)
            box = SubmissionSandbox(kind=kind, workspace=workspace, inputs=mounts, wheelhouse=wheelhouse,
                                    limits=_limits(options), disk_cap=disk_cap, settings=settings)
            request = GradingRequest(
                features_in_sandbox=HOLDOUT_IN_SANDBOX,
                answers=corpus_files.holdout_answers,
                wheelhouse=wheelhouse,
                train=options.train,
                timeout_s=options.timeout_s,
            )
            with open_scoring_sandbox(box) as sandbox:
                outcome = grade_in_sandbox(sandbox, workspace, request, on_stage or (lambda stage: None))
            outcome = dataclasses.replace(outcome, workspace_notes=copied.notes())
            return with_claim(outcome, workspace)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _scratch_fs(scratch: Path, corpus_files: CorpusFiles, options: ScoreOptions) -> ScratchFs:
    """The capped filesystem the workspace lives on (room for the copied inputs on top of the cap)."""
    inputs = sum(mount.host_path.stat().st_size for mount in corpus_files.mounts())
    size = options.disk_bytes + inputs + options.disk_bytes // 32 + FS_SLACK_BYTES  # ext4's own metadata (2-8%)
    try:
        return ScratchFs.create(scratch, size, kinds=options.scratch_kinds)
    except SandboxError as exc:
        raise ScoringUnavailable(str(exc)) from exc


def _inputs(fs: ScratchFs, corpus_files: CorpusFiles, disk_bytes: int) -> tuple[tuple[Mount, ...], DiskCap | None]:
    """The corpus mounts, from copies on the scratch filesystem when it is one of its own.

    A bind mount shows its source's path in the sandbox's /proc/self/mountinfo;
    a copy on the scratch filesystem shows only `/inputs/holdout.csv`.
    """
    if not fs.capped:
        return corpus_files.mounts(), None
    folder = fs.path / "inputs"
    folder.mkdir(mode=0o755)
    mounts = []
    for mount in corpus_files.mounts():
        copy = folder / mount.host_path.name
        shutil.copyfile(mount.host_path, copy)
        copy.chmod(0o444)
        mounts.append(dataclasses.replace(mount, host_path=copy))
    return tuple(mounts), fs.disk_cap(cap_bytes=disk_bytes)


# Where a submission states its own estimate, in the order they are trusted (after its visible run's output).
CLAIM_FILES = (("design", "DESIGN.md"), ("readme", "README.md"))


def claim_in_submission(visible_output: str, workspace: Path, parse: Callable[[str], Found | None]) -> tuple[Found, str] | None:
    """The first claim `parse` reads in the visible run's output, then the submission's documents, with where
    (train_output, design, readme); None when none holds one. A linked document is never read."""
    sources = [("train_output", visible_output)]
    for source, name in CLAIM_FILES:
        path = workspace / name
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() and not path.is_symlink() else ""
        sources.append((source, text))
    for source, text in sources:
        found = parse(text)
        if found is not None:
            return found, source
    return None


def with_claim(outcome: SubmissionOutcome, workspace: Path) -> SubmissionOutcome:
    """The outcome with the submission's EXPECTED_F1 claim: training output first, then its documents."""
    from bakeoff.answers import parse_expected_f1

    train = outcome.step("train")
    found = claim_in_submission(train.stdout_tail if train else "", workspace, parse_expected_f1)
    if found is None:
        return outcome
    value, source = found
    return dataclasses.replace(outcome, claimed_f1=value, claim_source=source)


def scoring_kind(unsafe_no_isolation: bool, sandbox_kind: str) -> str:
    """The --unsafe-no-isolation flag is itself the choice of the unisolated kind (and the consent to it)."""
    return UNSAFE if unsafe_no_isolation else sandbox_kind


def _limits(options: ScoreOptions) -> Limits:
    # Without a capped scratch filesystem (no root) the same cap is kept by watching the workspace.
    return dataclasses.replace(options.limits, timeout_s=options.timeout_s, disk_bytes=options.disk_bytes)


def scoring_wheelhouse(wheelhouse: Path | None) -> Path:
    """The wheelhouse offline installs read from (the default one when none is given), made if missing."""
    from sandbox.wheelhouse import default_wheelhouse

    folder = wheelhouse or default_wheelhouse()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_scoring_sandbox(box: SubmissionSandbox):  # -> Sandbox; unavailable isolation is ScoringUnavailable
    from sandbox.submission import open_submission_sandbox

    try:
        return open_submission_sandbox(box)
    except SandboxUnavailable as exc:
        raise ScoringUnavailable(
            f"{exc}. Run `bakeoff check` to see which isolation works here"
            + ("" if box.kind == BWRAP else f", or choose another with --sandbox {BWRAP}")
        ) from exc
