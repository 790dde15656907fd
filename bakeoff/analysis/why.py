"""Why a model scored nothing or little: the dominant reason, with counts, and the plan setting that changes it.

One line per model whose runs mostly did not score (fewer than half of its ended runs, a run graded at the
headline's floor counted with those that did not), read from its records: each unscored run is put down to one
cause, the answer that should have held the code (uncaptured: timed out, empty, a dead engine; unusable: cut off at
the token limit, no code block) or, where the code came back, how the code ended (its crash class), or the harness;
a run graded at the floor (0.000 on a 0-1 score) is put down to that. A cause of calls is counted over the model's
calls, a cause of runs over its runs, the cause that left the most runs unscored first ("5 of 10 calls timed out at
600 s; 5 cut off at the 6,144-token limit"), then the settings that change them, with their values in the batch.

The live display's end, `bakeoff status` and the report's first screen print these lines (the same words).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.analysis.core import UNCAPTURED, grading_of
from bakeoff.batchfolder.read import BatchRecords, RunRecords, read_batch, run_model_label, stage_calls
from bakeoff.errors import BakeoffError
from bakeoff.records import Capture, CaptureReason, CaptureStatus, CrashClass, LadderStatus, RunStatus, Stage
from bakeoff.scaffolds.registry import scaffold_plugin, step_readers
from bakeoff.taskapi.headline import HeadlineSpec
from bakeoff.taskapi.spec import TaskSettings
from bakeoff.taskapi.task import Task

# A model whose ended runs scored less often than this share gets a line; one that scored at least this often, none.
WHY_SHARE = 0.5
MOST_CAUSES = 3  # causes a line names, the dominant first
CALL, RUN = "call", "run"

# The answer that could not be used or never came, in words (a cut answer and a timeout carry their limits).
CAPTURE_PHRASES: dict[str, str] = {
    CaptureReason.EMPTY: "came back empty", CaptureReason.WHITESPACE_ONLY: "came back blank",
    CaptureReason.TRANSPORT_ERROR: "were lost in transport", CaptureReason.BACKEND_ERROR: "failed in the backend",
    CaptureReason.BACKEND_CRASH: "ended with the engine crashed",
    CaptureReason.CONTEXT_TRUNCATED: "had a prompt longer than the model's context",
    CaptureReason.NO_ANSWER: "reasoned and stopped without answering",
    CaptureReason.NO_CODE: "held no code block", CaptureReason.NO_VERDICT: "held no verdict",
    CaptureReason.NO_TOOL_CALL: "held no tool call", CaptureReason.MALFORMED_CALL: "held a malformed tool call",
    CaptureReason.UNKNOWN_TOOL: "called an unknown tool", CaptureReason.BAD_ARGUMENTS: "called a tool with bad arguments",
}
# What a setting cannot change is said so: the line never points at a knob that does not help.
NO_SETTING = None
CHECK = "the endpoint or engine, not the model (`bakeoff check` tests it)"
CONTEXT = "[task_settings] context_tokens, and the model's n_ctx"
CAPTURE_SETTINGS: dict[str, str | None] = {
    CaptureReason.EMPTY: CHECK, CaptureReason.WHITESPACE_ONLY: CHECK, CaptureReason.TRANSPORT_ERROR: CHECK,
    CaptureReason.BACKEND_ERROR: CHECK, CaptureReason.BACKEND_CRASH: CHECK, CaptureReason.CONTEXT_TRUNCATED: CONTEXT,
}


@dataclass(frozen=True)
class Cause:
    """One reason runs did not score: what happened (`phrase`), counted by call or by run, and what to change."""

    key: str
    phrase: str
    unit: str  # CALL or RUN
    setting: str | None  # the plan setting that changes it, with its value; None where none does


@dataclass(frozen=True)
class CauseCount:
    cause: Cause
    count: int  # calls or runs, as the cause's unit
    runs_left_unscored: int  # the model's unscored runs this cause explains


@dataclass(frozen=True)
class Why:
    """A model's line: how many of its ended runs scored, and why the others did not."""

    model: str
    runs: int  # ended runs (finished or failed by the harness)
    scored: int
    calls: int
    counts: tuple[CauseCount, ...]  # the dominant first

    @property
    def text(self) -> str:
        parts: list[str] = []
        units_said: set[str] = set()
        for c in self.counts:
            total = self.calls if c.cause.unit == CALL else self.runs
            first = c.cause.unit not in units_said
            units_said.add(c.cause.unit)
            amount = f"{c.count} of {total} {c.cause.unit}s" if first else f"{c.count}"
            parts.append(f"{amount} {c.cause.phrase}")
        settings = list(dict.fromkeys(c.cause.setting for c in self.counts if c.cause.setting))
        change = f"; change: {'; '.join(settings)}" if settings else "; no plan setting changes this"
        return f"{self.model}: scored {self.scored} of {self.runs} runs: {'; '.join(parts)}{change}."


# -- one call, one run ---------------------------------------------------------------------------------

def _budget(stage: str | None, completion: Any, settings: TaskSettings | None) -> int | None:
    """The token limit a cut answer met: the one its call recorded, else the batch's for its stage."""
    if completion is not None and completion.token_budget:
        return int(completion.token_budget)
    if settings is None or stage is None:
        return None
    return settings.max_tokens_for(stage) + settings.reasoning_tokens_for(stage)


def _budget_setting(stage: str | None, scaffold: str, settings: TaskSettings | None) -> str:
    if stage is None:  # a loop's step: its scaffold's own budget
        return f"the {scaffold} scaffold's token budget per step ([scaffold_settings.{scaffold}])"
    if settings is None:
        return f"[task_settings.max_tokens] {stage} and [task_settings.reasoning_tokens] {stage}"
    return (f"[task_settings.max_tokens] {stage} (now {settings.max_tokens_for(stage):,}) and "
            f"[task_settings.reasoning_tokens] {stage} (now {settings.reasoning_tokens_for(stage):,})")


def capture_cause(capture: Capture, stage: str | None, completion: Any, settings: TaskSettings | None,
                  scaffold: str) -> Cause:
    """The cause of one call that was not captured, worded with the limit it met."""
    reason = capture.reason
    if reason == CaptureReason.TIMEOUT:
        limit = f" at {settings.model_timeout_s:g} s" if settings is not None else ""
        now = f" (now {settings.model_timeout_s:g})" if settings is not None else ""
        return Cause(f"{reason}{limit}", f"timed out{limit}", CALL, f"[task_settings] model_timeout_s{now}")
    if reason in (CaptureReason.CUT_OFF, CaptureReason.RUNAWAY_REASONING):
        if capture.budget_cut is False:  # something else ended it: the context filled
            return Cause(f"{reason} context", "were cut off when the context filled", CALL, CONTEXT)
        budget = _budget(stage, completion, settings)
        limit = f"the {budget:,}-token limit" if budget else "the token limit"
        phrase = f"cut off at {limit}" if reason == CaptureReason.CUT_OFF else f"were still reasoning at {limit}"
        setting = _budget_setting(stage, scaffold, settings)
        if reason == CaptureReason.RUNAWAY_REASONING:
            setting += ', or reasoning = "off" for the model'
        return Cause(f"{reason} {budget}", phrase, CALL, setting)
    return Cause(str(reason), CAPTURE_PHRASES.get(reason, str(reason)), CALL, CAPTURE_SETTINGS.get(reason, NO_SETTING))


def _calls(run: RunRecords) -> list[tuple[str | None, Capture, Any]]:
    """(stage, capture, completion) of every model call of a run; a loop's steps have no stage of their own."""
    found: list[tuple[str | None, Capture, Any]] = []
    for name, record in run.stages.items():
        for part in stage_calls(record):
            if part.capture is not None:
                found.append((name, part.capture, part.completion))
    found += [(None, step.capture, step.completion) for step in run.steps if step.capture is not None]
    return found


def _code_calls(run: RunRecords) -> list[tuple[str | None, Capture, Any]]:
    """The calls that write the code: the code stage's (and its repair turns'), or a loop's steps."""
    code_stage = scaffold_plugin(run.scaffold).stage_of_code()
    calls = [c for c in _calls(run) if c[0] in (code_stage, Stage.REPAIR)]
    return calls or [c for c in _calls(run) if c[0] is None]


def crash_cause(run: RunRecords, settings: TaskSettings | None) -> Cause:
    """How a run whose code came back ended without a score: its crash class, else its ladder status."""
    outcome = run.run.outcome if run.run is not None else None
    key = str(outcome.crash_class or outcome.status) if outcome is not None else "unknown"
    turns = f" (now {settings.repair_turns})" if settings is not None else ""
    if key == LadderStatus.NO_SCRIPT:
        return Cause(key, "left no script to run", RUN, NO_SETTING)
    if key == LadderStatus.NOT_CHECKED:
        return Cause(key, "ended before their code was checked", RUN, NO_SETTING)
    if key in (CrashClass.TIMEOUT, LadderStatus.TIMEOUT):
        return Cause(key, "ran past the sandbox's time limit", RUN, "[task_settings.timeouts_s]")
    if key in (CrashClass.OUT_OF_MEMORY, LadderStatus.OUT_OF_MEMORY):
        return Cause(key, "ran out of memory in the sandbox", RUN, "[limits] memory_mb")
    if key == LadderStatus.BAD_OUTPUT:
        return Cause(key, "wrote output the grader could not use", RUN, f"[task_settings] repair_turns{turns}")
    if key == LadderStatus.DEPENDENCY_UNAVAILABLE:
        return Cause(key, "declared a requirement that could not be installed", RUN, "the wheelhouse (--wheelhouse)")
    return Cause(key, f"crashed on {key}", RUN, f"[task_settings] repair_turns{turns}")


def at_floor(value: float | None, headline: HeadlineSpec | None) -> bool:
    """Whether a scored run's value prints as the worst one its grader can give (0.000 on a 0-1 score): it scored
    nothing. A headline unbounded on its bad side has no floor."""
    if value is None or headline is None:
        return False
    floor = headline.lowest if headline.higher_is_better else headline.highest
    return floor is not None and headline.show(value) == headline.show(floor)


def floor_cause(headline: HeadlineSpec, value: float) -> Cause:
    """A run whose code ran and was graded, at the floor: no setting of the plan's makes the answers better."""
    return Cause("floor", f"were graded at the floor ({headline.label} {headline.show(value)}): the code ran and its "
                 "answers earned nothing (its transcripts show what it did)", RUN, NO_SETTING)


def run_cause(run: RunRecords, settings: TaskSettings | None, headline: HeadlineSpec | None = None) -> Cause | None:
    """Why one ended run did not score, or scored at the floor (None for a run that scored more, or unfinished)."""
    record = run.run
    if record is None:
        return None
    if record.status == RunStatus.HARNESS_FAILED:
        return Cause("harness", "failed in the harness", RUN, CHECK)
    if record.outcome.status == LadderStatus.SCORED:
        value = record.outcome.headline_value
        if headline is not None and value is not None and at_floor(value, headline):
            return floor_cause(headline, value)
        return None
    code = _code_calls(run)
    missed = [c for c in code if c[1].status != CaptureStatus.CAPTURED]
    grading, reason = grading_of(run)
    if grading == UNCAPTURED and missed:  # the code's answer never came: the first one that did not
        uncaptured = [c for c in missed if c[1].status == CaptureStatus.UNCAPTURED] or missed
        stage, capture, completion = uncaptured[0]
        return capture_cause(capture, stage, completion, settings, run.scaffold)
    if grading == UNCAPTURED:  # no call's audit recorded: the code stage's attribution says why, counted by run
        if reason in tuple(CaptureReason):
            lost = Capture(CaptureStatus.UNCAPTURED, CaptureReason(reason))
            return dataclasses.replace(capture_cause(lost, None, None, settings, run.scaffold), unit=RUN)
        return Cause("uncaptured", "never got the code's answer back", RUN, CHECK)
    if code and len(missed) == len(code):  # no code answer could be used: nothing of the model's ran; the last one
        stage, capture, completion = code[-1]
        return capture_cause(capture, stage, completion, settings, run.scaffold)
    return crash_cause(run, settings)


# -- per model -------------------------------------------------------------------------------------

def model_why(model: str, runs: Sequence[RunRecords], settings: TaskSettings | None,
              headline: HeadlineSpec | None = None) -> Why | None:
    """The model's line, or None where it scored above the floor in at least WHY_SHARE of its ended runs (or none
    ended)."""
    ended = [r for r in runs if r.run is not None]
    causes = [run_cause(r, settings, headline) for r in ended]
    scored = sum(r.run is not None and r.run.status != RunStatus.HARNESS_FAILED
                 and r.run.outcome.status == LadderStatus.SCORED for r in ended)
    if not ended or len(ended) - sum(c is not None for c in causes) >= WHY_SHARE * len(ended):
        return None
    explained = Counter(c for c in causes if c is not None)
    calls: Counter[Cause] = Counter()
    total_calls = 0
    for run in runs:
        for stage, capture, completion in _calls(run):
            total_calls += 1
            if capture.status != CaptureStatus.CAPTURED:
                calls[capture_cause(capture, stage, completion, settings, run.scaffold)] += 1
    counts = [CauseCount(cause, calls[cause] if cause.unit == CALL else n, n) for cause, n in explained.items()]
    counts += [CauseCount(cause, n, 0) for cause, n in calls.items() if cause not in explained]
    counts.sort(key=lambda c: (-c.runs_left_unscored, -c.count))
    return Why(model, len(ended), scored, total_calls, tuple(counts[:MOST_CAUSES]))


def batch_why(records: BatchRecords, settings: TaskSettings | None,
              headline: HeadlineSpec | None = None) -> tuple[Why, ...]:
    """Every row's line, in the batch's row order, for the rows that scored nothing or little."""
    lines = []
    for label in records.model_labels():
        why = model_why(label, [r for r in records.runs if run_model_label(r) == label], settings, headline)
        if why is not None:
            lines.append(why)
    return tuple(lines)


WHY_HEADING = "Why a model scored nothing or little:"


def why_lines(records: BatchRecords, settings: TaskSettings | None, headline: HeadlineSpec | None = None) -> list[str]:
    return [why.text for why in batch_why(records, settings, headline)]


def batch_settings(records: BatchRecords, task: Task) -> TaskSettings | None:
    """The task settings the batch ran with (its task's, with the plan's [task_settings]); None where the task's
    spec cannot be read here (the lines then name the settings without their values)."""
    try:
        return task.spec(dict(records.plan.task_settings)).settings
    except BakeoffError:
        return None


def folder_why_lines(folder: Path, task: Task | None) -> list[str]:
    """The lines of the batch in `folder` as it stands (a run still going counts once it ends; a damaged run is
    left out), for the live display's end and `bakeoff status`; none where the folder cannot be read."""
    try:
        records = read_batch(folder, refuse_damaged_runs=True, step_readers=step_readers)
    except BakeoffError:
        return []
    if task is None:
        return why_lines(records, None)
    return why_lines(records, batch_settings(records, task), task.headline)
