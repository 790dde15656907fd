"""Asking the model one turn, timing it, auditing the answer, and writing the files it gave."""

from __future__ import annotations

import hashlib
import posixpath
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from bakeoff.batchfolder.files import is_disk_full
from bakeoff.models.base import Completion, GenerationSettings
from bakeoff.records.parts import Capture, CompletionRecord, FileWritten
from bakeoff.runner.conversation import Conversation
from bakeoff.runner.workspace import DATA_DIR, SCRATCH_DIR, encoded_text, path_failure
from bakeoff.taskapi.context import RunContext, StageClock


@dataclass(frozen=True)
class Answer:
    """One model turn: the completion and its capture audit, or why the harness could not ask."""

    completion: Completion | None
    capture: Capture | None
    harness_error: str | None = None

    @property
    def captured(self) -> bool:
        return self.capture is not None and self.capture.captured

    @property
    def text(self) -> str:
        """The answer's text ("" when nothing came back)."""
        return self.completion.text if self.completion is not None else ""

    def completion_record(self) -> CompletionRecord | None:
        if self.completion is None:
            return None
        return CompletionRecord.from_json(self.completion.to_dict())


def ask(ctx: RunContext, clock: StageClock, conversation: Conversation, stage: str, expect: str) -> Answer:
    """One chat turn. A backend that raises is a harness failure, never the model's."""
    from bakeoff.answers import audit

    settings = GenerationSettings(
        max_tokens=ctx.task.settings.max_tokens_for(stage),
        reasoning_tokens=ctx.task.settings.reasoning_tokens_for(stage),
        temperature=ctx.temperature,
        seed=ctx.seed,
        timeout_s=ctx.task.settings.model_timeout_s,
    )
    started = time.monotonic()
    try:
        completion = ctx.backend.chat(conversation.messages, key=conversation.key, settings=settings)
    except Exception as exc:  # noqa: BLE001 - any backend fault is recorded as the harness's
        return Answer(None, None, f"{type(exc).__name__}: {exc}")
    finally:
        clock.model_s += time.monotonic() - started
    return Answer(completion, audit(completion, expect=expect, token_budget=settings.total_tokens))


def _is_submission_path(path: str) -> bool:
    """A relative path that, once normalised ("src/../.git/x" is ".git/x"), stays out of data/, scratch and .git."""
    parts = PurePosixPath(posixpath.normpath(path)).parts
    return bool(parts) and parts[0] not in (DATA_DIR, SCRATCH_DIR, ".git", "..") and not path.startswith("/")


def write_files(ctx: RunContext, files: dict[str, str], keep: Callable[[str], bool]) -> list[FileWritten]:
    """Write the answer's files that `keep` accepts (never into data/, the scratch folder or .git)."""
    written: list[FileWritten] = []
    for path, content in sorted(files.items()):
        if not (keep(path) and _is_submission_path(path)):
            continue
        data = encoded_text(content)
        try:
            ctx.repo.write_file(path, content)
        except ValueError as exc:  # a path through a link that sandboxed code planted: not written
            written.append(FileWritten(path, len(data), None, refused=str(exc)))
            continue
        except OSError as exc:  # a name too long, a file where a folder is wanted: the model's path, not written
            if is_disk_full(exc):
                raise
            written.append(FileWritten(path, len(data), None, refused=path_failure(path, exc)))
            continue
        written.append(FileWritten(path, len(data), hashlib.sha256(data).hexdigest()))
    return written
