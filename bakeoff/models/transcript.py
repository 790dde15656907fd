"""The transcript line format: what a run writes and the scripted backend replays.

One JSON object a line. Replay reads `key`, `text`, `reasoning`
(with `reasoning_unfinished` and `token_budget`), `tool_calls` (a tool loop's calls: `[{"name", "arguments",
"call_id", "error"}]`, arguments as JSON text or, hand-written, an object), `finish_reason`, `error`, `error_kind` and
`reported_prompt_tokens` (the prompt tokens a server says it read: a line with fewer than the words sent replays a
server that cut the prompt, bakeoff.models.truncation); every
other field (messages, token counts, timings...) is a record for people and analysis and is ignored on replay. A line without
`reasoning` (a hand-written script) is read as raw model output: reasoning
markup at the start of its `text` is split off as a model's would be. Keep this stable:
docs/models.md documents it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec

import durable
from bakeoff.models.base import ERROR_KINDS, Completion, Message
from bakeoff.models.errors import ModelFileInvalid
from bakeoff.models.tools import ToolCall


@dataclass(frozen=True)
class ScriptedAnswer:
    """One line of a scripted file or transcript, as replay sees it."""

    line_number: int
    key: str | None
    text: str
    finish_reason: str
    error: str | None
    error_kind: str | None
    reasoning: str | None = None  # None: the line has no `reasoning` field
    reasoning_unfinished: bool = False
    token_budget: int | None = None
    tool_calls: tuple[ToolCall, ...] | None = None  # None: the line has no `tool_calls` field
    reported_prompt_tokens: int | None = None  # None: the line has no `reported_prompt_tokens` field


def transcript_line(key: str, completion: Completion, messages: Sequence[Message] = ()) -> dict:
    """The JSON object a run appends for one chat turn."""
    record = {
        "key": key,
        "text": completion.text,
        "reasoning": completion.reasoning,
        "reasoning_tokens": completion.reasoning_tokens,
        "reasoning_unfinished": completion.reasoning_unfinished,
        "token_budget": completion.token_budget,
        "finish_reason": completion.finish_reason,
        "error": completion.error,
        "error_kind": completion.error_kind,
        "backend": completion.backend,
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "cached_prompt_tokens": completion.cached_prompt_tokens,
        "prompt_seconds": completion.prompt_seconds,
        "generation_seconds": completion.generation_seconds,
        "messages": [m.template_dict() for m in messages],
    }
    if completion.tool_calls:
        record["tool_calls"] = [call.to_dict() for call in completion.tool_calls]
    return record


def append_transcript(path: Path, key: str, completion: Completion, messages: Sequence[Message] = ()) -> None:
    """Append one turn to a durable.Journal: a line cut by a kill is truncated before the next one is written."""
    durable.Journal(Path(path)).append(transcript_line(key, completion, messages), ensure_ascii=False)


class TranscriptLine(msgspec.Struct):
    """The fields of a transcript line that replay reads, typed where a wrong type is refused; every other field
    (messages, token counts, timings...) is for people and analysis, and ignored here. `text` is UNSET on a line
    without it (an error's line)."""

    text: str | msgspec.UnsetType = msgspec.UNSET
    error: str | None = None
    reasoning: str | None = None  # None: no `reasoning` field (a hand-written script's raw output)
    error_kind: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    reported_prompt_tokens: Annotated[int, msgspec.Meta(ge=0)] | None = None
    # Read leniently, as they always were: a key is made text, a budget that is no whole number is no budget.
    key: Any = None
    token_budget: Any = None
    finish_reason: Any = None
    reasoning_unfinished: Any = False


# What a line with a field of the wrong type is told, by field.
_WRONG_TYPE = {"text": "'text', 'reasoning' and 'error' must be strings",
               "reasoning": "'text', 'reasoning' and 'error' must be strings",
               "error": "'text', 'reasoning' and 'error' must be strings",
               "error_kind": f"error_kind must be one of {', '.join(ERROR_KINDS)}",
               "tool_calls": "'tool_calls' must be a list of objects",
               "reported_prompt_tokens": "'reported_prompt_tokens' must be a whole number of tokens"}
_FIELD = re.compile(r"`\$\.(\w+)")


def _decode_line(number: int, raw: str, source: Path) -> TranscriptLine:
    try:
        data = durable.loads(raw, what="the line")
    except durable.UntrustedJSON as exc:
        raise ModelFileInvalid(f"{source}:{number}: not a usable JSON line ({exc})") from None
    if not isinstance(data, dict):
        raise ModelFileInvalid(f"{source}:{number}: a line must be a JSON object")
    try:
        return msgspec.convert(data, TranscriptLine)
    except msgspec.ValidationError as exc:
        field = _FIELD.search(str(exc))
        problem = _WRONG_TYPE.get(field.group(1), str(exc)) if field else str(exc)
        raise ModelFileInvalid(f"{source}:{number}: {problem}") from None


def _parse_line(number: int, raw: str, source: Path) -> ScriptedAnswer:
    line = _decode_line(number, raw, source)
    error = line.error
    if error is None and line.text is msgspec.UNSET:
        raise ModelFileInvalid(f"{source}:{number}: a line needs 'text' or 'error'")
    error_kind = line.error_kind or ("backend_error" if error is not None else None)
    if error_kind is not None and error_kind not in ERROR_KINDS:
        raise ModelFileInvalid(f"{source}:{number}: error_kind must be one of {', '.join(ERROR_KINDS)}")
    budget, calls = line.token_budget, line.tool_calls
    return ScriptedAnswer(
        line_number=number,
        key=str(line.key) if line.key is not None else None,
        text=line.text if isinstance(line.text, str) else "",
        finish_reason=str(line.finish_reason or ("error" if error is not None else "stop")),
        error=error,
        error_kind=error_kind,
        reasoning=line.reasoning,
        reasoning_unfinished=line.reasoning_unfinished is True,
        token_budget=budget if isinstance(budget, int) and not isinstance(budget, bool) else None,
        tool_calls=tuple(ToolCall.from_dict(c) for c in calls) if calls is not None else None,
        reported_prompt_tokens=line.reported_prompt_tokens,
    )


def read_answers(path: Path) -> list[ScriptedAnswer]:
    """Every non-blank line of a scripted file or transcript."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ModelFileInvalid(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise ModelFileInvalid(f"{path}: cannot be read ({exc.strerror})") from None
    answers = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip():
            answers.append(_parse_line(number, raw, path))
    return answers
