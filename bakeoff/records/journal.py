"""One line of a batch's journal (events.jsonl, bakeoff.batchfolder.files.Journal) as its readers use it: the event,
when, the run, stage, step and node it names, and what a finished stage or step measured.

The journal is read while a batch appends to it, by the live display, `bakeoff status` and the batch's own
state, and a line of it is a plain JSON object whatever bakeoff wrote it. So this read is lenient where a record's
is strict: a field that is absent or of another type reads as absent (the readers passed such lines over before),
never as an error. Other keys a line holds (pid, resumed_after, capture...) are not read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JournalEvent:
    event: str  # run_started, stage_started, stage_done, step_started, step_done, run_done, run_failed...
    at: str = ""  # UTC, as written
    run_id: str | None = None
    stage: str | None = None
    step: int | None = None
    node: str | None = None  # run_placed: the Ray node a run went to
    wall_s: float | None = None  # stage_done: the stage's wall time
    completion_tokens: int = 0  # stage_done, step_done: tokens the model generated
    generation_s: float = 0.0  # stage_done, step_done: seconds it generated for

    @classmethod
    def of(cls, line: Mapping[str, Any]) -> JournalEvent:
        """The line's fields that have their type (text, a whole number, a number)."""
        return cls(event=_text(line, "event") or "", at=_text(line, "at") or "", run_id=_text(line, "run_id"),
                   stage=_text(line, "stage"), step=_whole(line, "step"), node=_text(line, "node"),
                   wall_s=_number(line, "wall_s"), completion_tokens=_whole(line, "completion_tokens") or 0,
                   generation_s=_number(line, "generation_s") or 0.0)


def _text(line: Mapping[str, Any], key: str) -> str | None:
    value = line.get(key)
    return value if isinstance(value, str) else None


def _whole(line: Mapping[str, Any], key: str) -> int | None:
    value = line.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(line: Mapping[str, Any], key: str) -> float | None:
    value = line.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
