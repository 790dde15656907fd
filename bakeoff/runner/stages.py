"""The six stages of a run: explore, decide, implement, repair, evaluate, docs.

Each stage is a function `(ctx, clock, done) -> StageOutcome`, where `done`
maps the names of the finished stages to their records (read back from disk,
so a resumed run sees exactly what an uninterrupted one would). The runner adds
timings, the commit and the resource peaks, and writes the record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from bakeoff.models.base import turn_key
from bakeoff.runner.context import RunContext, StageClock, execute, messages_from_dicts, output_for_model
from bakeoff.runner.conversation import continued_conversation, stage_conversation
from bakeoff.runner.ladder import TOP_RUNG, LadderCheck, turn_effect
from bakeoff.runner.modelcall import Answer, ask, write_files
from bakeoff.tasks import task_plugin

OK, MODEL_ERROR, UNCAPTURED, UNUSABLE, HARNESS_ERROR = "ok", "model_error", "uncaptured", "unusable", "harness_error"
DISK_FULL = "disk_full"  # a stage whose workspace filled the disk: the model's failure, and the end of its run
ATTRIBUTIONS = (OK, MODEL_ERROR, UNCAPTURED, UNUSABLE, HARNESS_ERROR)
NO_EXPLORATION = "(no exploration output: the exploration script did not run)"
NO_DESIGN = "(there is no design document)"


@dataclass(frozen=True)
class StageOutcome:
    attribution: str
    attribution_reason: str | None = None
    prompt: dict[str, Any] | None = None
    completion: dict[str, Any] | None = None
    capture: dict[str, Any] | None = None
    files_written: tuple[dict[str, Any], ...] = ()
    commands: tuple[dict[str, Any], ...] = ()
    shown_to_model: str | None = None  # what the harness handed back (exploration output...)
    check: dict[str, Any] | None = None
    turns: tuple[dict[str, Any], ...] = ()
    claim: dict[str, Any] | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)


def _answered(answer: Answer, conversation, **more: Any) -> dict[str, Any]:
    return dict(prompt=conversation.to_dict(), completion=answer.completion_dict(), capture=answer.capture_dict(), **more)


def _not_captured(answer: Answer, conversation) -> StageOutcome | None:
    """The outcome for an answer that cannot be worked with, or None when it can."""
    if answer.harness_error is not None:
        return StageOutcome(HARNESS_ERROR, answer.harness_error, prompt=conversation.to_dict())
    if not answer.captured:
        return StageOutcome(answer.capture.status, answer.capture.reason, **_answered(answer, conversation))
    return None


def _budget(ctx: RunContext, stage: str) -> int:
    return ctx.task.settings.prompt_budget_chars(stage)


def _is_python(path: str) -> bool:
    return path.endswith(".py")


def _is_code(path: str) -> bool:
    return path.endswith(".py") or path == "requirements.txt"


def explore(ctx: RunContext, clock: StageClock, done: Mapping[str, dict]) -> StageOutcome:
    conversation = stage_conversation(turn_key("explore", 1), ctx.shared, ctx.task.prompts["explore"], {}, _budget(ctx, "explore"))
    answer = ask(ctx, clock, conversation, "explore", expect="code")
    failed = _not_captured(answer, conversation)
    if failed:
        return failed
    from bakeoff.answers import extract_files

    scripts = {path: text for path, text in extract_files(answer.completion.text).items() if _is_python(path)}
    if not scripts:
        return StageOutcome(UNUSABLE, "no_python_script", **_answered(answer, conversation))
    script = "explore.py" if "explore.py" in scripts else sorted(scripts)[0]
    written = write_files(ctx, scripts, _is_python)
    result, record = execute(ctx, clock, "explore", ["python", script], ctx.task.settings.timeout_for("explore"))
    shown = output_for_model(result, ctx.task.settings.feedback_chars)
    attribution, reason = (OK, None) if result.ok else (MODEL_ERROR, (record["crash"] or {}).get("crash_class"))
    return StageOutcome(attribution, reason, files_written=tuple(written), commands=(record,), shown_to_model=shown,
                        **_answered(answer, conversation))


def _text_document(ctx: RunContext, answer: Answer, name: str) -> list[dict[str, Any]]:
    """The document the answer gives as a named file, else the whole answer (a design is prose)."""
    from bakeoff.answers import extract_files

    files = extract_files(answer.completion.text)
    text = files.get(name) or answer.completion.text
    return write_files(ctx, {name: text}, lambda path: path == name)


def decide(ctx: RunContext, clock: StageClock, done: Mapping[str, dict]) -> StageOutcome:
    exploration = (done.get("explore") or {}).get("shown_to_model") or NO_EXPLORATION
    conversation = stage_conversation(turn_key("decide", 1), ctx.shared, ctx.task.prompts["decide"],
                                      {"exploration_output": exploration}, _budget(ctx, "decide"))
    answer = ask(ctx, clock, conversation, "decide", expect="text")
    failed = _not_captured(answer, conversation)
    if failed:
        return failed
    written = _text_document(ctx, answer, "DESIGN.md")
    return StageOutcome(OK, None, files_written=tuple(written), **_answered(answer, conversation))


def _check_attribution(check: LadderCheck) -> tuple[str, str | None]:
    if check.rung >= TOP_RUNG:
        return OK, None
    return MODEL_ERROR, check.crash_class or check.status


def implement(ctx: RunContext, clock: StageClock, done: Mapping[str, dict]) -> StageOutcome:
    design = ctx.repo.read_file("DESIGN.md") or NO_DESIGN
    conversation = stage_conversation(turn_key("implement", 1), ctx.shared, ctx.task.prompts["implement"],
                                      {"design": design}, _budget(ctx, "implement"))
    answer = ask(ctx, clock, conversation, "implement", expect="code")
    if answer.harness_error is not None:
        return StageOutcome(HARNESS_ERROR, answer.harness_error, prompt=conversation.to_dict())
    written: list[dict[str, Any]] = []
    if answer.captured:
        from bakeoff.answers import extract_files

        written = write_files(ctx, extract_files(answer.completion.text), _is_code)
    # The check runs whatever the answer was: it is the "before" of the first repair turn.
    check, commands = task_plugin(ctx.task.name).check(ctx, clock, "implement")
    if answer.captured:
        attribution, reason = _check_attribution(check)
    else:
        attribution, reason = answer.capture.status, answer.capture.reason
    return StageOutcome(attribution, reason, files_written=tuple(written), commands=tuple(commands),
                        check=check.to_dict(), **_answered(answer, conversation))


def _repair_prompt(ctx: RunContext, before: LadderCheck) -> tuple[str, dict[str, str], str]:
    """(template, parts, why the turn was granted)."""
    if not before.visible_ok:
        failure = before.visible_failure or f"The submission did not work ({before.status})."
        return ctx.task.prompts["repair"], {"failure": failure}, "visible_failure"
    return ctx.task.prompts["repair_always"], {"train_output": before.train_output or "(no output)"}, "always_repair"


def repair(ctx: RunContext, clock: StageClock, done: Mapping[str, dict]) -> StageOutcome:
    implement_record = done["implement"]
    before = LadderCheck.from_dict(implement_record["check"])
    messages = messages_from_dicts(implement_record["prompt"]["messages"])
    answer_text = (implement_record.get("completion") or {}).get("text") or ""
    settings = ctx.task.settings
    turns: list[dict[str, Any]] = []
    commands: list[dict[str, Any]] = []
    for turn in range(1, settings.repair_turns + 1):
        if before.visible_ok and not settings.always_repair:
            break
        template, parts, because = _repair_prompt(ctx, before)
        conversation = continued_conversation(turn_key("implement", turn + 1), messages, answer_text, template,
                                              parts, _budget(ctx, "repair"))
        answer = ask(ctx, clock, conversation, "repair", expect="code")
        entry = {"turn": turn, "granted_because": because, **_answered(answer, conversation)}
        if answer.harness_error is not None:
            turns.append({**entry, "harness_error": answer.harness_error, "before": before.to_dict(),
                          "after": before.to_dict(), "effect": "unchanged", "files_written": []})
            return StageOutcome(HARNESS_ERROR, answer.harness_error, turns=tuple(turns), commands=tuple(commands),
                                check=before.to_dict())
        written: list[dict[str, Any]] = []
        after = before
        if answer.captured:
            from bakeoff.answers import extract_files

            written = write_files(ctx, extract_files(answer.completion.text), _is_code)
            after, turn_commands = task_plugin(ctx.task.name).check(ctx, clock, f"repair-{turn}")
            commands.extend(turn_commands)
        turns.append({**entry, "files_written": written, "before": before.to_dict(), "after": after.to_dict(),
                      "effect": turn_effect(before, after, task_plugin(ctx.task.name).headline)})
        messages, answer_text = conversation.messages, answer.completion.text if answer.completion else ""
        before = after
    return StageOutcome(*_repair_attribution(turns, before), commands=tuple(commands), turns=tuple(turns),
                        check=before.to_dict())


def _repair_attribution(turns: list[dict[str, Any]], final: LadderCheck) -> tuple[str, str | None]:
    statuses = [(t.get("capture") or {}).get("status") for t in turns]
    for status in (UNCAPTURED, UNUSABLE):
        if status in statuses:
            return status, next(t["capture"]["reason"] for t in turns if (t.get("capture") or {}).get("status") == status)
    return _check_attribution(final)


def final_check(done: Mapping[str, dict]) -> LadderCheck:
    """The last ladder check of the run: the one of a stage that filled the disk, else repair's, else implement's."""
    for record in done.values():
        if record.get("attribution_reason") == DISK_FULL and record.get("check"):
            return LadderCheck.from_dict(record["check"])
    for stage in ("repair", "implement"):
        check = (done.get(stage) or {}).get("check")
        if check:
            return LadderCheck.from_dict(check)
    return LadderCheck(0, "no_train_script", "train", None)


def find_claim(ctx: RunContext, check: LadderCheck, include_readme: bool) -> dict[str, Any]:
    """The model's own estimate, as its task reads it (its output, else its design, else after docs its README)."""
    return task_plugin(ctx.task.name).claim(ctx, check, include_readme)


# Evaluate hooks: extra measurements on the final submission (the analysis adds its probes here).
EvaluateHook = Callable[[RunContext, StageClock, LadderCheck], Mapping[str, Any]]


def _run_hook(hook: EvaluateHook, ctx: RunContext, clock: StageClock, check: LadderCheck) -> dict[str, Any]:
    """A hook that fails is recorded as such; the measurement is lost, the run is not."""
    from sandbox.errors import SandboxError

    try:
        return dict(hook(ctx, clock, check))
    except SandboxError:
        raise  # the sandbox itself broke: a harness failure of the stage
    except Exception as exc:  # noqa: BLE001
        return {"hook_error": f"{type(exc).__name__}: {exc}"}


def make_evaluate(hooks: Mapping[str, EvaluateHook] | None = None):
    def evaluate(ctx: RunContext, clock: StageClock, done: Mapping[str, dict]) -> StageOutcome:
        check = final_check(done)
        claim = find_claim(ctx, check, include_readme=False)
        extras = {name: _run_hook(hook, ctx, clock, check) for name, hook in (hooks or {}).items()}
        attribution, reason = _check_attribution(check)
        return StageOutcome(attribution, reason, check=check.to_dict(), claim=claim, extras=extras)

    return evaluate


def docs(ctx: RunContext, clock: StageClock, done: Mapping[str, dict]) -> StageOutcome:
    check = final_check(done)
    parts = {"design": ctx.repo.read_file("DESIGN.md") or NO_DESIGN, "train_output": check.train_output or "(no output)"}
    conversation = stage_conversation(turn_key("docs", 1), ctx.shared, ctx.task.prompts["docs"], parts, _budget(ctx, "docs"))
    answer = ask(ctx, clock, conversation, "docs", expect="text")
    failed = _not_captured(answer, conversation)
    if failed:
        return failed
    written = _text_document(ctx, answer, "README.md")
    claim = find_claim(ctx, check, include_readme=True)
    return StageOutcome(OK, None, files_written=tuple(written), claim=claim, **_answered(answer, conversation))


STAGE_NAMES = ("explore", "decide", "implement", "repair", "evaluate", "docs")


def stage_functions(evaluate_hooks: Mapping[str, EvaluateHook] | None = None) -> dict[str, Callable]:
    return {
        "explore": explore,
        "decide": decide,
        "implement": implement,
        "repair": repair,
        "evaluate": make_evaluate(evaluate_hooks),
        "docs": docs,
    }
