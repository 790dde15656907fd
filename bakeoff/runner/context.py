"""What every stage of a run is handed: the run's repo, sandbox, model, corpus and task, and its clocks."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from bakeoff.errors import BakeoffError
from bakeoff.models.base import Message, ModelBackend
from bakeoff.runner.task import TaskSpec
from bakeoff.runner.workspace import RunRepo
from sandbox.base import ExecResult, Sandbox

HOLDOUT_IN_SANDBOX = "/holdout/holdout.csv"
WORKSPACE_IN_SANDBOX = "/workspace"


class CorpusError(BakeoffError):
    """The corpus folder is missing a file the run needs."""


@dataclass(frozen=True)
class CorpusFiles:
    folder: Path
    train: Path
    holdout: Path
    answers: Path
    excerpt: Path
    manifest: Path

    @classmethod
    def from_folder(cls, folder: Path) -> "CorpusFiles":
        folder = Path(folder).resolve()
        files = cls(
            folder,
            folder / "train.csv",
            folder / "holdout.csv",
            folder / "holdout_answers.csv",
            folder / "excerpt.txt",
            folder / "manifest.json",
        )
        missing = [p.name for p in (files.train, files.holdout, files.answers, files.excerpt) if not p.is_file()]
        if missing:
            raise CorpusError(f"corpus folder {folder} lacks {', '.join(missing)}; make one with `bakeoff generate`")
        return files

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

    def timings(self, started_at: str, finished_at: str) -> dict[str, Any]:
        wall = time.monotonic() - self.started
        return {
            "started_at": started_at,
            "finished_at": finished_at,
            "wall_s": wall,
            "model_s": self.model_s,
            "sandbox_s": self.sandbox_s,
            "scoring_s": self.scoring_s,
            "harness_s": max(0.0, wall - self.model_s - self.sandbox_s - self.scoring_s),
        }


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


def command_record(purpose: str, result: ExecResult, crash: Any = None) -> dict[str, Any]:
    """An execution as the stage record keeps it."""
    return {
        "purpose": purpose,
        "argv": list(result.argv),
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "oom_killed": result.oom_killed,
        "duration_s": result.duration_s,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "stdout_dropped_bytes": result.stdout_dropped_bytes,
        "stderr_dropped_bytes": result.stderr_dropped_bytes,
        "isolation": result.isolation,
        "crash": crash,
    }


def crash_of(result: ExecResult) -> dict[str, Any] | None:
    """The crash classification of a failed execution (None when it succeeded)."""
    if result.ok:
        return None
    from bakeoff.grading.crashes import classify

    info = classify(result)
    return {"crash_class": info.crash_class, "detail": info.detail, "traceback_tail": info.traceback_tail}


def execute(
    ctx: RunContext, clock: StageClock, purpose: str, argv: Sequence[str], timeout_s: float
) -> tuple[ExecResult, dict[str, Any]]:
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
        parts.append(f"[killed: the command ran longer than the time limit]")
    if result.oom_killed:
        parts.append("[killed: the command ran out of memory]")
    if result.exit_code not in (0, None):
        parts.append(f"[exit status {result.exit_code}]")
    text = "\n".join(p for p in parts if p) or "(no output)"
    return shorten(text, limit)


def messages_from_dicts(items: Sequence[Mapping[str, str]]) -> tuple[Message, ...]:
    return tuple(Message(item["role"], item["content"]) for item in items)
