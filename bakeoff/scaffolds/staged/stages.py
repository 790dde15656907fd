"""The staged scaffold's six stages: explore, decide, implement, repair, evaluate, docs.

Each stage is a function `(ctx, clock, done) -> StageOutcome`, where `done`
maps the names of the finished stages to their records (bakeoff.records.StageRecord,
read back from disk, so a resumed run sees exactly what an uninterrupted one would).
The runner adds timings, the commit and the resource peaks, and writes the record. What every scaffold
shares (the outcome, the check, the final check, evaluate) is bakeoff.runner.scaffold_kit's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bakeoff.models.base import Message, turn_key
from bakeoff.records import (
    Attribution,
    Capture,
    Command,
    FileWritten,
    LadderCheck,
    Prompt,
    RepairEffect,
    RepairGrant,
    RepairTurn,
    Stage,
    turn_effect,
)
from bakeoff.runner.conversation import Conversation, continued_conversation, stage_conversation
from bakeoff.runner.modelcall import Answer, ask, write_files
from bakeoff.runner.scaffold_kit import (
    NO_CHECK,
    Done,
    StageFunction,
    StageOutcome,
    check_attribution,
    crash_attribution,
    final_check,
    find_claim,
    ladder_check,
    make_evaluate,
)
from bakeoff.taskapi.context import RunContext, StageClock, execute, output_for_model
from bakeoff.taskapi.parts import EvaluateHook

__all__ = ["stage_functions"]

# The stages' names for the attributions (bakeoff.records.Attribution holds the one definition).
OK, MODEL_ERROR, UNCAPTURED, UNUSABLE, HARNESS_ERROR = (
    Attribution.OK, Attribution.MODEL_ERROR, Attribution.UNCAPTURED, Attribution.UNUSABLE, Attribution.HARNESS_ERROR,
)
NO_EXPLORATION = "(no exploration output: the exploration script did not run)"
NO_DESIGN = "(there is no design document)"


def _answered(answer: Answer, conversation: Conversation) -> dict[str, Any]:
    """The prompt, completion and capture fields of an outcome (or a repair turn) for one model call."""
    return dict(prompt=conversation.to_prompt(), completion=answer.completion_record(), capture=answer.capture)


def _capture_attribution(capture: Capture) -> tuple[Attribution, str]:
    """An answer that was not captured: the stage is uncaptured or unusable, for the capture's reason."""
    return Attribution(capture.status.value), capture.reason


def _not_captured(answer: Answer, conversation: Conversation) -> StageOutcome | None:
    """The outcome for an answer that cannot be worked with, or None when it can."""
    if answer.harness_error is not None:
        return StageOutcome(HARNESS_ERROR, answer.harness_error, prompt=conversation.to_prompt())
    if not answer.captured and answer.capture is not None:
        return StageOutcome(*_capture_attribution(answer.capture), **_answered(answer, conversation))
    return None


def _budget(ctx: RunContext, stage: str) -> int:
    return ctx.task.settings.prompt_budget_chars(stage)


def _is_python(path: str) -> bool:
    return path.endswith(".py")


def _is_code(path: str) -> bool:
    return path.endswith(".py") or path == "requirements.txt"


def explore(ctx: RunContext, clock: StageClock, done: Done) -> StageOutcome:
    conversation = stage_conversation(turn_key("explore", 1), ctx.shared, ctx.task.prompts["explore"], {}, _budget(ctx, "explore"))
    answer = ask(ctx, clock, conversation, "explore", expect="code")
    failed = _not_captured(answer, conversation)
    if failed:
        return failed
    from bakeoff.answers import extract_files

    scripts = {path: text for path, text in extract_files(answer.text).items() if _is_python(path)}
    if not scripts:
        return StageOutcome(UNUSABLE, "no_python_script", **_answered(answer, conversation))
    script = "explore.py" if "explore.py" in scripts else sorted(scripts)[0]
    written = write_files(ctx, scripts, _is_python)
    result, record = execute(ctx, clock, "explore", ["python", script], ctx.task.settings.timeout_for("explore"))
    shown = output_for_model(result, ctx.task.settings.feedback_chars)
    attribution, reason = (OK, None) if result.ok else _crash_attribution(record)
    return StageOutcome(attribution, reason, files_written=tuple(written), commands=(record,), shown_to_model=shown,
                        **_answered(answer, conversation))


def _crash_attribution(record: Command) -> tuple[Attribution, str | None]:
    """A script that crashed: the model's error for its crash class, the harness's where the environment failed it."""
    crash = record.crash
    if crash is None:
        return MODEL_ERROR, None
    return crash_attribution(crash.crash_class, crash.detail) or (MODEL_ERROR, crash.crash_class)


def _text_document(ctx: RunContext, answer: Answer, name: str) -> list[FileWritten]:
    """The document the answer gives as a named file, else the whole answer (a design is prose)."""
    from bakeoff.answers import extract_files

    files = extract_files(answer.text)
    text = files.get(name) or answer.text
    return write_files(ctx, {name: text}, lambda path: path == name)


def decide(ctx: RunContext, clock: StageClock, done: Done) -> StageOutcome:
    explored = done.get(Stage.EXPLORE)
    exploration = (explored.shown_to_model if explored else None) or NO_EXPLORATION
    conversation = stage_conversation(turn_key("decide", 1), ctx.shared, ctx.task.prompts["decide"],
                                      {"exploration_output": exploration}, _budget(ctx, "decide"))
    answer = ask(ctx, clock, conversation, "decide", expect="text")
    failed = _not_captured(answer, conversation)
    if failed:
        return failed
    written = _text_document(ctx, answer, "DESIGN.md")
    return StageOutcome(OK, None, files_written=tuple(written), **_answered(answer, conversation))


def implement(ctx: RunContext, clock: StageClock, done: Done) -> StageOutcome:
    design = ctx.repo.read_file("DESIGN.md") or NO_DESIGN
    conversation = stage_conversation(turn_key("implement", 1), ctx.shared, ctx.task.prompts["implement"],
                                      {"design": design}, _budget(ctx, "implement"))
    answer = ask(ctx, clock, conversation, "implement", expect="code")
    if answer.harness_error is not None:
        return StageOutcome(HARNESS_ERROR, answer.harness_error, prompt=conversation.to_prompt())
    written: list[FileWritten] = []
    if answer.captured:
        from bakeoff.answers import extract_files

        written = write_files(ctx, extract_files(answer.text), _is_code)
    # The check runs whatever the answer was: it is the "before" of the first repair turn.
    check, commands = ladder_check(ctx, clock, Stage.IMPLEMENT)
    if answer.captured or answer.capture is None:
        attribution, reason = check_attribution(check)
    else:
        attribution, reason = _capture_attribution(answer.capture)
    return StageOutcome(attribution, reason, files_written=tuple(written), commands=tuple(commands),
                        check=check, **_answered(answer, conversation))


def _repair_prompt(ctx: RunContext, before: LadderCheck) -> tuple[str, dict[str, str], RepairGrant]:
    """(template, parts, why the turn was granted)."""
    if not before.visible_ok:
        failure = before.visible_failure or f"The submission did not work ({before.status})."
        return ctx.task.prompts["repair"], {"failure": failure}, RepairGrant.VISIBLE_FAILURE
    visible = {"visible_output": before.visible_output or "(no output)"}
    return ctx.task.prompts["repair_always"], visible, RepairGrant.ALWAYS_REPAIR


def _earlier_messages(prompt: Prompt | None) -> tuple[Message, ...]:
    return tuple(Message(m.role, m.content) for m in prompt.messages) if prompt is not None else ()


def repair(ctx: RunContext, clock: StageClock, done: Done) -> StageOutcome:
    implement_record = done[Stage.IMPLEMENT]
    before = implement_record.check or NO_CHECK
    messages = _earlier_messages(implement_record.prompt)
    answer_text = implement_record.completion.text if implement_record.completion else ""
    settings = ctx.task.settings
    turns: list[RepairTurn] = []
    commands: list[Command] = []
    for turn in range(1, settings.repair_turns + 1):
        if before.visible_ok and not settings.always_repair:
            break
        template, parts, because = _repair_prompt(ctx, before)
        conversation = continued_conversation(turn_key("implement", turn + 1), messages, answer_text, template,
                                              parts, _budget(ctx, "repair"))
        answer = ask(ctx, clock, conversation, "repair", expect="code")
        asked = _answered(answer, conversation)
        if answer.harness_error is not None:
            turns.append(RepairTurn(turn, because, **asked, files_written=(), before=before, after=before,
                                    effect=RepairEffect.UNCHANGED, harness_error=answer.harness_error))
            return StageOutcome(HARNESS_ERROR, answer.harness_error, turns=tuple(turns), commands=tuple(commands),
                                check=before)
        written: list[FileWritten] = []
        after = before
        if answer.captured:
            from bakeoff.answers import extract_files

            written = write_files(ctx, extract_files(answer.text), _is_code)
            after, turn_commands = ladder_check(ctx, clock, f"repair-{turn}")
            commands.extend(turn_commands)
        effect = turn_effect(before, after)
        turns.append(RepairTurn(turn, because, **asked, files_written=tuple(written), before=before, after=after,
                                effect=effect))
        messages, answer_text = conversation.messages, answer.text
        before = after
    return StageOutcome(*_repair_attribution(turns, before), commands=tuple(commands), turns=tuple(turns),
                        check=before)


def _repair_attribution(turns: list[RepairTurn], final: LadderCheck) -> tuple[Attribution, str | None]:
    """Uncaptured if any turn's answer was, else unusable if any was, else what the final check says."""
    captures = [t.capture for t in turns if t.capture is not None]
    for status in (UNCAPTURED, UNUSABLE):
        for capture in captures:
            if capture.status == status:
                return _capture_attribution(capture)
    return check_attribution(final)


def docs(ctx: RunContext, clock: StageClock, done: Done) -> StageOutcome:
    check = final_check(done)
    parts = {"design": ctx.repo.read_file("DESIGN.md") or NO_DESIGN, "visible_output": check.visible_output or "(no output)"}
    conversation = stage_conversation(turn_key("docs", 1), ctx.shared, ctx.task.prompts["docs"], parts, _budget(ctx, "docs"))
    answer = ask(ctx, clock, conversation, "docs", expect="text")
    failed = _not_captured(answer, conversation)
    if failed:
        return failed
    written = _text_document(ctx, answer, "README.md")
    claim = find_claim(ctx, check, include_readme=True)
    return StageOutcome(OK, None, files_written=tuple(written), claim=claim, **_answered(answer, conversation))


def stage_functions(evaluate_hooks: Mapping[str, EvaluateHook] | None = None) -> dict[str, StageFunction]:
    return {
        Stage.EXPLORE: explore,
        Stage.DECIDE: decide,
        Stage.IMPLEMENT: implement,
        Stage.REPAIR: repair,
        Stage.EVALUATE: make_evaluate(evaluate_hooks),
        Stage.DOCS: docs,
    }
