"""A run's transcript: every model answer, in the scripted backend's line format, rebuilt from the stage records.

Rebuilding it from the records (and writing it atomically) after each stage keeps
it consistent with them across kills: a stage that was cut short leaves no line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import durable
from bakeoff.batchfolder.files import WriteCounter, write_atomic_text
from bakeoff.models.base import Completion, Message
from bakeoff.records import CompletionRecord, LoopStep, PromptMessage, StageRecord


def model_turns(stage_records: Iterable[StageRecord], steps: Sequence[LoopStep] = ()
                ) -> list[tuple[str, CompletionRecord, tuple[PromptMessage, ...]]]:
    """(key, completion, messages) of every model call that has an answer, in the order they were made (an
    loop's steps come before its stages' records: the loop ran first)."""
    stepped = [(step.prompt.key, step.completion, step.prompt.messages) for step in steps if step.completion is not None]
    staged = [(prompt.key, completion, prompt.messages)
              for record in stage_records for prompt, completion, _ in record.model_calls() if completion is not None]
    return stepped + staged


def restored_completion(record: CompletionRecord) -> Completion:
    """The backend's Completion a record was made from."""
    return Completion(**{**record.to_json(), "tool_calls": record.tool_calls})


def message_of(message: PromptMessage) -> Message:
    return Message(message.role, message.content, message.tool_calls, message.tool_call_id, message.name)


def transcript_text(stage_records: Iterable[StageRecord], steps: Sequence[LoopStep] = ()) -> str:
    from bakeoff.models.transcript import transcript_line

    lines = []
    for key, completion, messages in model_turns(stage_records, steps):
        line = transcript_line(key, restored_completion(completion), [message_of(m) for m in messages])
        lines.append(durable.dumps(line, ensure_ascii=False, sort_keys=True))
    return "".join(line + "\n" for line in lines)


def write_transcript(path: Path, stage_records: Iterable[StageRecord], counter: WriteCounter | None,
                     steps: Sequence[LoopStep] = ()) -> None:
    write_atomic_text(path, transcript_text(stage_records, steps), counter)

