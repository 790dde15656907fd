"""Pieces both Inspect exports share: importing the library, messages, writing and reading back.

inspect-ai is imported only here and only when an Inspect export is asked for (the
`bakeoff[inspect]` extra); without it, ExportExtraMissing names the extra.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bakeoff.export.errors import ExportExtraMissing, ExportOutputInvalid
from bakeoff.models.tools import ToolCall
from bakeoff.records import CallResult, CompletionRecord, Prompt

EXTRA = "inspect"
SCORER = "bakeoff"
_STOP = {"stop": "stop", "length": "max_tokens", "max_tokens": "max_tokens"}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def require_inspect():
    """The inspect_ai modules an export uses, or ExportExtraMissing."""
    try:
        import inspect_ai.event as events
        import inspect_ai.log as log
        import inspect_ai.model as model
        import inspect_ai.scorer as scorer
        import inspect_ai.tool  # noqa: F401 - a loop's calls (tool_call, tool_message) need it too
    except ImportError as exc:
        raise ExportExtraMissing(
            f"the inspect format needs inspect-ai ({exc.name or exc} is missing): "
            f"pip install 'bakeoff[{EXTRA}]'") from None
    return log, model, scorer, events


def safe_name(text: str) -> str:
    return _UNSAFE.sub("_", str(text)).strip("._") or "x"


def model_name(label: str) -> str:
    """Inspect names models provider/model; bakeoff's labels are its own provider's names."""
    return f"bakeoff/{label}"


def when(text: Any) -> _dt.datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = _dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=_dt.UTC)


def iso(text: Any) -> str | None:
    moment = when(text)
    return moment.isoformat() if moment else None


def chat_message(role: str, content: str, metadata: Mapping[str, Any] | None = None, reasoning: str | None = None,
                 tool_calls: Sequence[Any] | None = None):
    """One message; `tool_calls` (Inspect's, from tool_call) on an assistant's answer that called tools."""
    _, model, _, _ = require_inspect()
    meta = dict(metadata or {})
    if role == "system":
        return model.ChatMessageSystem(content=content, metadata=meta or None)
    if role == "assistant":
        body: Any = content
        if reasoning:
            body = [model.ContentReasoning(reasoning=reasoning), model.ContentText(text=content)]
        return model.ChatMessageAssistant(content=body, metadata=meta or None, source="generate",
                                          tool_calls=list(tool_calls) if tool_calls else None)
    return model.ChatMessageUser(content=content, metadata=meta or None)


def tool_call(call: ToolCall, ident: str):
    """A loop's tool call as Inspect's ToolCall: arguments that do not parse as a JSON object are its parse error."""
    import inspect_ai.tool as tool

    problem = call.error
    try:
        arguments = call.parsed_arguments()
    except ValueError as exc:
        arguments, problem = {}, problem or str(exc)
    if not isinstance(arguments, dict):
        arguments, problem = {}, problem or f"the arguments are not a JSON object: {call.arguments[:200]}"
    return tool.ToolCall(id=ident, function=call.name or "?", arguments=arguments, parse_error=problem)


def tool_message(result: CallResult, ident: str, metadata: Mapping[str, Any]):
    """What a call returned, as the model was shown it; a call that was not run (the capture audit's reason) is
    Inspect's parsing error, a tool that ran and failed its own (unknown) error."""
    import inspect_ai.tool as tool

    _, model, _, _ = require_inspect()
    error = None
    if result.problem is not None:
        error = tool.ToolCallError("parsing", f"{result.problem}: {result.shown}")
    elif not result.ok:
        error = tool.ToolCallError("unknown", result.shown)
    return model.ChatMessageTool(content=result.shown, tool_call_id=ident, function=result.tool, error=error,
                                 metadata=dict(metadata) or None)


def model_output(label: str, text: str, finish_reason: str, prompt_tokens: int, completion_tokens: int,
                 error: str | None = None, reasoning: str = ""):
    """An answer that is not a completion record (a review's) as Inspect's model output."""
    return _output(label, text, reasoning or None, finish_reason, prompt_tokens, completion_tokens, None, None, error)


def _output(label: str, text: str, reasoning: str | None, finish_reason: str, prompt_tokens: int,
            completion_tokens: int, cached: int | None, reasoning_tokens: int | None, error: str | None):
    _, model, _, _ = require_inspect()
    usage = model.ModelUsage(input_tokens=prompt_tokens, output_tokens=completion_tokens,
                             total_tokens=prompt_tokens + completion_tokens, input_tokens_cache_read=cached,
                             reasoning_tokens=reasoning_tokens)
    stop = _STOP.get(finish_reason, "unknown")
    return model.ModelOutput(model=model_name(label), usage=usage, error=error,
                             choices=[model.ChatCompletionChoice(message=chat_message("assistant", text, None, reasoning),
                                                                 stop_reason=stop)])


def record_messages(prompt: Prompt | None, metadata: Mapping[str, Any]) -> list:
    """A stage's prompt (a typed record) as Inspect chat messages."""
    return [chat_message(str(m.role), m.content, metadata) for m in (prompt.messages if prompt is not None else ())]


def record_output(label: str, completion: CompletionRecord | None):
    """A stage's completion (a typed record) as Inspect's model output."""
    if completion is None:
        return _output(label, "", None, "", 0, 0, None, None, None)
    return _output(label, completion.text, completion.reasoning or None, str(completion.finish_reason),
                   int(completion.prompt_tokens or 0), int(completion.completion_tokens or 0),
                   completion.cached_prompt_tokens, completion.reasoning_tokens or None, completion.error)


def metric(log, name: str, value: Any):
    return log.EvalMetric(name=name, value=float(value)) if isinstance(value, (int, float)) else None


def eval_score(log, name: str, values: Mapping[str, Any], scored: int, unscored: int, meta: Mapping[str, Any] | None = None):
    metrics = {k: m for k, m in ((k, metric(log, k, v)) for k, v in values.items()) if m is not None}
    return log.EvalScore(name=name, scorer=SCORER, scored_samples=scored, unscored_samples=unscored,
                         metrics=metrics, metadata=dict(meta) if meta else None)


def write_and_check(log_obj, path: Path, samples: Sequence[Any]) -> Path:
    """Write with Inspect's own writer, then read back with its reader: the sample count must survive."""
    log, _, _, _ = require_inspect()
    log.write_eval_log(log_obj, str(path), format="eval")
    back = log.read_eval_log(str(path))
    if len(back.samples or []) != len(samples):
        raise ExportOutputInvalid(f"{path} read back with {len(back.samples or [])} samples, not {len(samples)}")
    return path
