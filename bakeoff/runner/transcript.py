"""A run's transcript: every model answer, in the scripted backend's line format, rebuilt from the stage records.

Rebuilding it from the records (and writing it atomically) after each stage keeps
it consistent with them across kills: a stage that was cut short leaves no line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from bakeoff.models.base import Completion, Message
from bakeoff.runner.records import WriteCounter, write_atomic_text


def model_turns(stage_records: Iterable[Mapping[str, Any]]) -> list[tuple[str, dict, list[dict]]]:
    """(key, completion, messages) of every model call, in the order they were made."""
    turns = []
    for record in stage_records:
        entries = [record, *record.get("turns", ())]
        for entry in entries:
            prompt, completion = entry.get("prompt"), entry.get("completion")
            if prompt and completion:
                turns.append((prompt["key"], completion, prompt["messages"]))
    return turns


def transcript_text(stage_records: Iterable[Mapping[str, Any]]) -> str:
    from bakeoff.models.transcript import transcript_line

    lines = []
    for key, completion, messages in model_turns(stage_records):
        restored = Completion(**completion)
        line = transcript_line(key, restored, [Message(m["role"], m["content"]) for m in messages])
        lines.append(json.dumps(line, ensure_ascii=False, sort_keys=True))
    return "".join(line + "\n" for line in lines)


def write_transcript(path: Path, stage_records: Iterable[Mapping[str, Any]], counter: WriteCounter | None) -> None:
    write_atomic_text(path, transcript_text(stage_records), counter)
