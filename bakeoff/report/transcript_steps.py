"""A loop's step records on its run's transcript page (the stage a scaffold names its `step_stage`): how the loop
ended against its budgets, then every step in order (what was sent, the answer and its reasoning, each call with its
arguments, what it returned and the command it ran, the files the step changed)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import durable
from bakeoff.models.tools import ARGUMENT_LIMITS
from bakeoff.records import CallResult, Command, LoopStep, StageRecord
from bakeoff.report.transcript_html import Raw, esc, fold, kv, number


def _model_json(text: str) -> Any:
    """A call's arguments as the model wrote them, read within the caps they have everywhere (UntrustedJSON)."""
    return durable.loads(text, limits=ARGUMENT_LIMITS, what="the call's arguments")


def _arguments(text: str) -> str:
    try:
        return durable.dumps(_model_json(text), indent=1, ensure_ascii=False)
    except (durable.UntrustedJSON, durable.JSONUnwritable):  # the model's text: show it as it is
        return text


def _call_title(name: str, arguments: str) -> str:
    """`run: python train.py`, `write_file: train.py`: the call in a line."""
    try:
        value = _model_json(arguments)
    except durable.UntrustedJSON:
        value = None
    if isinstance(value, dict):
        # the model's own JSON (not a record): the argument that says what a call does
        main = next((value[name] for name in ("command", "path") if name in value), None)
        if isinstance(main, str):
            line = " ".join(main.split())
            return f"{name}: {line[:117] + '…' if len(line) > 120 else line}"
    return name or "(no tool named)"


def _result(result: CallResult, command: Callable[[int, Command], str], index: int) -> str:
    css = "good" if result.ok else "bad"
    parts = [kv([("result", Raw(f'<span class="{css}">{"ok" if result.ok else "failed"}</span>')),
                 ("not run because", result.problem.value if result.problem is not None else None),
                 ("CPU", f"{number(result.cpu_s, 2)} s" + ("" if result.cpu_measured else " (wall time: not measured)")
                  if result.command is not None else None)])]
    parts.append(fold("what the model was shown", result.shown))
    if result.command is not None:
        parts.append(command(index, result.command))
    return "".join(parts)


def _step(step: LoopStep, command: Callable[[int, Command], str]) -> str:
    completion, capture = step.completion, step.capture
    calls = completion.tool_calls if completion is not None else ()
    title = "; ".join(_call_title(c.name, c.arguments) for c in calls) or (
        capture.reason.value if capture is not None else "no answer")
    head = kv([
        ("capture", f"{capture.status.value} {capture.reason.value}" if capture is not None else None),
        ("capture detail", capture.detail if capture is not None and capture.detail else None),
        ("files changed", ", ".join(step.files_changed) or "none"),
        ("commit", step.commit.sha[:12]),
        ("tokens", f"prompt {completion.prompt_tokens}, generated {completion.completion_tokens}, "
                   f"reasoning {completion.reasoning_tokens}" if completion is not None else None),
        ("used so far", f"{step.usage.steps} steps, {step.usage.tokens} tokens, {number(step.usage.wall_s, 1)} s wall, "
                        f"{number(step.usage.cpu_s, 1)} s CPU"),
        ("context cut", "; ".join(f"{c.part}: {c.original_chars} to {c.kept_chars} characters" for c in step.prompt.cut)
         or None),
        ("ended the loop", step.ended_by.value if step.ended_by is not None else None),
        ("error", completion.error if completion is not None else None),
    ])
    sent = "\n\n".join(f"=== {m.role} ===\n{m.content}" for m in step.prompt.messages)
    parts = [head, fold(f"sent before this step: {len(step.prompt.messages)} messages (key {step.prompt.key})",
                        sent, open_=False)]
    if completion is not None and completion.reasoning:
        parts.append(fold("reasoning", completion.reasoning, open_=False))
    if completion is not None and completion.text:
        parts.append(fold("answer text", completion.text))
    results = list(step.results)
    for index, call in enumerate(calls):
        parts.append(f"<h4>Call {index + 1}: {esc(call.name or '(none)')}</h4>")
        parts.append(fold("arguments", _arguments(call.arguments), note=call.error))
        if index < len(results):
            parts.append(_result(results[index], command, index + 1))
    return (f'<section class="step" id="step-{esc(step.step)}"><h3>Step {esc(step.step)}: {esc(title)}</h3>'
            + "".join(parts) + "</section>")


def loop_steps_html(record: StageRecord, steps: Sequence[LoopStep], command: Callable[[int, Command], str]) -> str:
    """The loop's summary and its steps (`command` renders a sandbox command as the stages' do)."""
    loop = record.loop
    summary = kv([
        ("ended by", loop.ended_by.value if loop is not None else "the loop did not end"),
        ("used", f"{loop.usage.steps} steps, {loop.usage.tokens} tokens, {number(loop.usage.wall_s, 1)} s wall, "
                 f"{number(loop.usage.cpu_s, 1)} s CPU" if loop is not None else None),
        ("budgets", ", ".join(f"{k} {v:g}" for k, v in loop.budgets.items()) if loop is not None else None),
        ("runs of its own code", loop.own_code_runs if loop is not None else None),
        ("first ran its own code at step", loop.first_own_run if loop is not None else None),
        ("tool calls read as", loop.tool_syntax if loop is not None else None),
    ])
    body = "".join(_step(step, command) for step in steps) or '<p class="note">no step was recorded</p>'
    return f"<h3>The loop</h3>{summary}{body}"
