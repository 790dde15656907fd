"""What every stage of a run is handed: the run's repo, sandbox, model, corpus and task, and its clocks."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bakeoff.errors import BakeoffError
from bakeoff.models.base import Message, ModelBackend
from bakeoff.records.parts import Command, Crash, Timings, crash_class_of
from bakeoff.runner.task import TaskSpec
from bakeoff.runner.workspace import RunRepo
from sandbox.base import ExecResult, Sandbox


class CorpusError(BakeoffError):
    """The corpus folder is missing a file the run needs."""


@dataclass(frozen=True)
class CorpusLayout:
    """What a task's data folder holds, as its plug-in (bakeoff.tasks) declares it.

    Paths are relative to the folder; a part may be a file or a folder of files. `mounts` are what a
    run's sandbox sees (read-only, `(part, path in the sandbox)`, relative targets under the workspace);
    a part holding the truth is in `required` only, never in `mounts`.
    """

    required: tuple[str, ...]
    mounts: tuple[tuple[str, str], ...]
    excerpt: str = "excerpt.txt"
    excerpt_of: str = "the data"  # the file the excerpt's lines come from, as the prompts name it
    manifest: str = "manifest.json"
    hint: str = "make one with `bakeoff generate`"


@dataclass(frozen=True)
class CorpusFiles:
    folder: Path
    layout: CorpusLayout

    @property
    def excerpt(self) -> Path:
        return self.folder / self.layout.excerpt

    @property
    def manifest(self) -> Path:
        return self.folder / self.layout.manifest

    def path(self, part: str) -> Path:
        return self.folder / part

    @classmethod
    def from_folder(cls, folder: Path, layout: CorpusLayout) -> CorpusFiles:
        files = cls(Path(folder).resolve(), layout)
        wanted = (*layout.required, layout.excerpt)
        missing = [part for part in wanted if not files.path(part).exists()]
        if missing:
            raise CorpusError(f"corpus folder {files.folder} lacks {', '.join(missing)}; {layout.hint}")
        return files

    def files(self) -> list[Path]:
        """Every file a run reads or is graded with (folders expanded, sorted), the excerpt and the manifest;
        a file that is absent is listed all the same (the fingerprint records it as absent)."""
        listed: list[Path] = []
        for part in (*self.layout.required, self.layout.excerpt, self.layout.manifest):
            path = self.path(part)
            found = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
            listed.extend(p for p in found if p not in listed)
        return listed

    def relative(self, path: Path) -> str:
        return path.relative_to(self.folder).as_posix()

    def mounts(self) -> tuple[Any, ...]:
        """The read-only sandbox mounts of the visible data and the hidden inputs (never the truth)."""
        from sandbox.base import Mount

        return tuple(Mount(self.path(part), target, read_only=True) for part, target in self.layout.mounts)

    def manifest_sha256(self) -> str | None:
        import hashlib

        return hashlib.sha256(self.manifest.read_bytes()).hexdigest() if self.manifest.is_file() else None


@dataclass
class StageClock:
    """Seconds spent per kind of work within one stage; the rest of the wall time is harness overhead."""

    started: float = field(default_factory=time.monotonic)
    model_s: float = 0.0
    sandbox_s: float = 0.0
    scoring_s: float = 0.0

    def timings(self, started_at: str, finished_at: str) -> Timings:
        wall = time.monotonic() - self.started
        return Timings(started_at, finished_at, wall_s=wall, model_s=self.model_s, sandbox_s=self.sandbox_s,
                       scoring_s=self.scoring_s, harness_s=max(0.0, wall - self.model_s - self.sandbox_s - self.scoring_s))


@dataclass(frozen=True)
class RunContext:
    run_id: str
    seed: int
    task: TaskSpec
    repo: RunRepo
    run_dir: Path
    sandbox: Sandbox
    backend: ModelBackend
    corpus: CorpusFiles
    shared: Message  # the system message every stage starts with
    env: Mapping[str, str]  # seeding, given to every execution
    wheelhouse: Path | None = None
    temperature: float = 0.0

    @property
    def predictions_dir(self) -> Path:
        return self.run_dir / "predictions"


def command_record(purpose: str, result: ExecResult, crash: Crash | None = None) -> Command:
    """An execution as the stage record keeps it."""
    return Command.of(purpose, result, result.stdout, result.stderr, result.isolation, crash)


def crash_of(result: ExecResult) -> Crash | None:
    """The crash classification of a failed execution (None when it succeeded)."""
    if result.ok:
        return None
    from bakeoff.grading.crashes import classify

    info = classify(result)
    return Crash(crash_class_of(info.crash_class, "crash_class"), info.detail, info.traceback_tail)


def execute(
    ctx: RunContext, clock: StageClock, purpose: str, argv: Sequence[str], timeout_s: float
) -> tuple[ExecResult, Command]:
    """Run one command in the run's sandbox, seeded; time it as sandbox time; record it."""
    started = time.monotonic()
    try:
        result = ctx.sandbox.exec(list(argv), timeout_s=timeout_s, env=dict(ctx.env))
    finally:
        clock.sandbox_s += time.monotonic() - started
    return result, command_record(purpose, result, crash_of(result))


def output_for_model(result: ExecResult, limit: int) -> str:
    """What an execution printed, as the model is shown it: stdout then stderr, head and tail kept."""
    from bakeoff.runner.conversation import shorten

    parts = [result.stdout.rstrip()]
    if result.stderr.strip():
        parts.append(result.stderr.rstrip())
    if result.timed_out:
        parts.append("[killed: the command ran longer than the time limit]")
    if result.oom_killed:
        parts.append("[killed: the command ran out of memory]")
    if result.exit_code not in (0, None):
        parts.append(f"[exit status {result.exit_code}]")
    text = "\n".join(p for p in parts if p) or "(no output)"
    return shorten(text, limit)


def messages_from_dicts(items: Sequence[Mapping[str, str]]) -> tuple[Message, ...]:
    return tuple(Message(item["role"], item["content"]) for item in items)
