"""A run's transcript: every model answer, in the scripted backend's line format, rebuilt from the stage records.

Rebuilding it from the records (and writing it atomically) after each stage keeps
it consistent with them across kills: a stage that was cut short leaves no line.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import durable
from bakeoff.batchfolder.files import WriteCounter, write_atomic_text
from bakeoff.models.base import Completion, Message
from bakeoff.records import CompletionRecord, PromptMessage, StageRecord


def model_turns(stage_records: Iterable[StageRecord]) -> list[tuple[str, CompletionRecord, tuple[PromptMessage, ...]]]:
    """(key, completion, messages) of every model call that has an answer, in the order they were made."""
    return [(prompt.key, completion, prompt.messages)
            for record in stage_records for prompt, completion, _ in record.model_calls() if completion is not None]


def transcript_text(stage_records: Iterable[StageRecord]) -> str:
    from bakeoff.models.transcript import transcript_line

    lines = []
    for key, completion, messages in model_turns(stage_records):
        restored = Completion(**completion.to_json())
        line = transcript_line(key, restored, [Message(m.role, m.content) for m in messages])
        lines.append(durable.dumps(line, ensure_ascii=False, sort_keys=True))
    return "".join(line + "\n" for line in lines)


def write_transcript(path: Path, stage_records: Iterable[StageRecord], counter: WriteCounter | None) -> None:
    write_atomic_text(path, transcript_text(stage_records), counter)
