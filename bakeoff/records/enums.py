"""The allowed values of record fields, one definition each.

Every enum is a StrEnum: its members compare equal to, and serialise as, the plain
strings the records have always held, so code that still reads a dict sees no change.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import msgspec


class Stage(StrEnum):
    """The six stages of the staged scaffold in their order, `evaluate` every scaffold ends with among them. A
    scaffold may declare stages of its own (its `stages`): a stage record's `stage` is a StageName, any of them."""

    EXPLORE = "explore"
    DECIDE = "decide"
    IMPLEMENT = "implement"
    REPAIR = "repair"
    EVALUATE = "evaluate"
    DOCS = "docs"


# A stage's name as its record and its file (stages/<n>-<name>.json) hold it: the core's stages above, or one a
# scaffold declares.
STAGE_NAME_PATTERN = r"^[a-z][a-z0-9_]*$"
StageName = Annotated[str, msgspec.Meta(pattern=STAGE_NAME_PATTERN)]

# The staged scaffold's stages, in order (the stage record files of a run written before scaffolds).
STAGE_NAMES = (Stage.EXPLORE.value, Stage.DECIDE.value, Stage.IMPLEMENT.value, Stage.REPAIR.value,
               Stage.EVALUATE.value, Stage.DOCS.value)


class Attribution(StrEnum):
    """Whose outcome a stage is (docs/records.md, stage record `attribution`)."""

    OK = "ok"
    MODEL_ERROR = "model_error"  # the model's code failed or did something wrong
    UNCAPTURED = "uncaptured"  # no answer came back: never graded
    UNUSABLE = "unusable"  # an answer came back but cannot be used
    HARNESS_ERROR = "harness_error"  # bakeoff or the sandbox failed


class CaptureStatus(StrEnum):
    """The capture audit of one model answer."""

    CAPTURED = "captured"
    UNCAPTURED = "uncaptured"
    UNUSABLE = "unusable"


class CaptureReason(StrEnum):
    """Why an answer has its capture status (`ok` for a captured one)."""

    OK = "ok"
    # uncaptured: nothing came back
    EMPTY = "empty"
    WHITESPACE_ONLY = "whitespace_only"
    TIMEOUT = "timeout"
    TRANSPORT_ERROR = "transport_error"
    BACKEND_ERROR = "backend_error"
    BACKEND_CRASH = "backend_crash"  # the engine process died
    # the prompt did not reach the model whole: the server cut it, or refused it as longer than its context
    CONTEXT_TRUNCATED = "context_truncated"
    # the endpoint's rate limit (429) outlasted the budget bakeoff waits within: the key's limit, not the model
    RATE_LIMITED = "rate_limited"
    # unusable: an answer came back that cannot be used
    CUT_OFF = "cut_off"
    RUNAWAY_REASONING = "runaway_reasoning"
    NO_ANSWER = "no_answer"
    NO_CODE = "no_code"
    NO_VERDICT = "no_verdict"
    # unusable, a loop's step: what was wrong with its tool calls
    NO_TOOL_CALL = "no_tool_call"  # an answer with no call in it
    MALFORMED_CALL = "malformed_call"  # call markup whose JSON does not parse, or that names no tool
    UNKNOWN_TOOL = "unknown_tool"
    BAD_ARGUMENTS = "bad_arguments"  # arguments that are not the tool's (missing, unknown, of the wrong type)


TOOL_CALL_REASONS = (CaptureReason.NO_TOOL_CALL, CaptureReason.MALFORMED_CALL, CaptureReason.UNKNOWN_TOOL,
                     CaptureReason.BAD_ARGUMENTS)

UNCAPTURED_REASONS = (CaptureReason.EMPTY, CaptureReason.WHITESPACE_ONLY, CaptureReason.TIMEOUT,
                      CaptureReason.TRANSPORT_ERROR, CaptureReason.BACKEND_ERROR, CaptureReason.BACKEND_CRASH,
                      CaptureReason.CONTEXT_TRUNCATED, CaptureReason.RATE_LIMITED)
UNUSABLE_REASONS = (CaptureReason.CUT_OFF, CaptureReason.RUNAWAY_REASONING, CaptureReason.NO_ANSWER,
                    CaptureReason.NO_CODE, CaptureReason.NO_VERDICT, *TOOL_CALL_REASONS)


class RunStatus(StrEnum):
    FINISHED = "finished"  # all six stages ran
    HARNESS_FAILED = "harness_failed"  # bakeoff could not finish it; retried on the next start


class LadderStatus(StrEnum):
    """How grading a submission ended (the ladder check's `status`)."""

    SCORED = "scored"
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    OUT_OF_MEMORY = "out_of_memory"
    BAD_OUTPUT = "bad_output"
    DEPENDENCY_UNAVAILABLE = "dependency_unavailable"
    NO_SCRIPT = "no_script"  # the submission lacks the script the task's hidden step runs
    NOT_CHECKED = "not_checked"  # the run's outcome when no check ever ran


class ClaimSource(StrEnum):
    """Where the model's own estimate of its result was found, in the order it is looked for."""

    VISIBLE_OUTPUT = "visible_output"  # what the submission's visible step printed
    DESIGN = "design"  # DESIGN.md
    README = "readme"  # README.md (after the docs stage, or in a folder graded alone)


class CrashClass(StrEnum):
    """Why a script failed: read from its traceback, or (timeout, out_of_memory) from the sandbox's report."""

    MODULE_NOT_FOUND = "module_not_found"
    # The dynamic loader found no system library the code loads (libgomp.so.1 under lightgbm): the sandbox
    # image lacks it, so the crash is the environment's, never the submission's (ENVIRONMENT_CRASHES).
    MISSING_SYSTEM_LIBRARY = "missing_system_library"
    PICKLE_CLASS_MISSING = "pickle_class_missing"
    FILE_NOT_FOUND = "file_not_found"
    COLUMN_MISSING = "column_missing"
    SYNTAX_ERROR = "syntax_error"
    TYPE_ERROR = "type_error"
    VALUE_ERROR = "value_error"
    DISK_FULL = "disk_full"
    OTHER = "other"
    TIMEOUT = "timeout"
    OUT_OF_MEMORY = "out_of_memory"


# Crashes that say the harness's environment failed, not the code: a stage that ends in one is the harness's
# (Attribution.HARNESS_ERROR), and `bakeoff score` says so and exits non-zero.
ENVIRONMENT_CRASHES = frozenset({CrashClass.MISSING_SYSTEM_LIBRARY})


def environment_failure(crash_class: str | None, detail: str | None) -> str | None:
    """Why a crash is the environment's failure, in words (None: it is not one, see ENVIRONMENT_CRASHES)."""
    if crash_class not in ENVIRONMENT_CRASHES:
        return None
    return (f"{crash_class}: {detail} (a system library the sandbox image lacks: the environment's failure, "
            "not the submission's)")


class RepairEffect(StrEnum):
    RESCUED = "rescued"  # up the ladder, or the headline better by more than its tolerance
    REGRESSED = "regressed"  # down the ladder, or the headline worse by more than its tolerance
    UNCHANGED = "unchanged"


class LoopEnd(StrEnum):
    """What ended a tool loop (its budgets, each recorded when it is the one that ends it)."""

    SUBMIT = "submit"  # the model called submit
    STEPS = "steps"
    TOKENS = "tokens"  # answer and reasoning tokens together
    WALL = "wall"  # wall-clock seconds of the loop
    CPU = "cpu"  # sandbox CPU seconds of the model's commands
    UNCAPTURED = "uncaptured"  # no answer came back (timeout, a dead engine...): the loop cannot go on


class RepairGrant(StrEnum):
    """Why a repair turn was granted."""

    VISIBLE_FAILURE = "visible_failure"
    ALWAYS_REPAIR = "always_repair"

