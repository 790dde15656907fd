"""Reading model answers: the files they contain, the score they claim, and the capture audit.

The audit keeps two outcomes apart, each with a reason name:
- uncaptured: nothing came back (empty, whitespace_only, timeout, transport_error,
  backend_error, backend_crash: the engine process died), or the model never saw the whole prompt
  (context_truncated: the server refused it, or read fewer prompt tokens than bakeoff sent, see
  bakeoff.models.truncation). Recorded, never graded, dropped from the model's scores.
- unusable: an answer came back but cannot be used (cut_off, runaway_reasoning,
  no_answer, no_code, no_verdict). The model's failure, graded as such.
Only the answer (`Completion.text`) is read: reasoning is never searched for
files, claims or verdicts. `runaway_reasoning` is a generation that ran out of
tokens while still reasoning, apart from `cut_off` (the answer itself was cut);
both record whether the cut came from the harness's own token budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bakeoff.fences import closes_fence, fence_of
from bakeoff.models.base import Completion
from bakeoff.models.tools import ToolCall, ToolSpec
from bakeoff.models.truncation import truncation_of
from bakeoff.records.enums import UNCAPTURED_REASONS, CaptureReason, CaptureStatus
from bakeoff.records.parts import Capture

# --- fenced blocks and files -------------------------------------------------
#
# An answer is hostile input: parsing one of any allowed size takes time linear in its length.
# Fence lines are recognised with string methods (bakeoff.fences), not a backtracking pattern (``` followed
# by 200,000 spaces kept a pattern busy for minutes), and every pattern is handed at most
# _MAX_PATTERN_INPUT characters of one line; a longer line cannot be a file name, label or claim.

_MAX_PATTERN_INPUT = 512
_MAX_NAME = 255
# A file name: a relative path of plain segments with an extension (or a
# well-known extensionless name). No spaces, no "..", nothing absolute.
_FILE_NAME = re.compile(r"^(?:[A-Za-z0-9_][A-Za-z0-9_.-]*/)*[A-Za-z0-9_][A-Za-z0-9_.-]*\.[A-Za-z0-9]{1,8}$")
_EXTENSIONLESS = frozenset({"Dockerfile", "Makefile"})
_IN_BLOCK_NAME = re.compile(r"^\s*(?:#|//|--)\s*(?:file(?:name)?|path)\s*:\s*(?P<name>\S+)\s*$", re.IGNORECASE)
_IN_BLOCK_BARE_NAME = re.compile(r"^\s*#\s*(?P<name>\S+)\s*$")  # "# train.py": kept, it is a valid comment
_INFO_NAME = re.compile(r"""(?:title|file(?:name)?|path)\s*=\s*["']?(?P<name>[^"'\s]+)["']?""", re.IGNORECASE)
_HEADING_PREFIX = re.compile(r"^\s*(?:#{1,6}\s*|\d+[.)]\s*|[-*+]\s+)?", re.UNICODE)
_LABEL = re.compile(r"^(?:file(?:name)?|path)\s*:\s*", re.IGNORECASE)
_BACKTICKED = re.compile(r"`([^`\s]+)`")


@dataclass(frozen=True)
class Block:
    """One fenced block of an answer."""

    language: str  # "" when the fence names none
    name: str | None  # the file name attached to it, if any
    content: str
    closed: bool  # False when the answer ended inside the block (cut off)
    start_line: int  # 1-based line of the opening fence


class WorkMeter:
    """Counts the characters the parser examines (lines scanned, text handed to patterns).

    The parser's work is bounded by a constant times this count, so a test can check that parsing
    is linear without a clock.
    """

    def __init__(self) -> None:
        self.chars = 0

    def add(self, text: str) -> str:
        self.chars += len(text)
        return text


def _bounded(text: str, meter: WorkMeter | None) -> str | None:
    """`text` stripped, when it is short enough to hand to a pattern; else None (stripping is linear)."""
    if meter is not None:
        meter.add(text)
    stripped = text.strip()
    return stripped if len(stripped) <= _MAX_PATTERN_INPUT else None


def is_file_name(candidate: str) -> bool:
    if candidate in _EXTENSIONLESS:
        return True
    if len(candidate) > _MAX_NAME or not _FILE_NAME.match(candidate):
        return False
    return ".." not in candidate.split("/")


def _name_from_info(info: str, meter: WorkMeter | None = None) -> tuple[str, str | None]:
    """The language and file name in a fence's info string ("python train.py", "train.py", 'python title="x.py"')."""
    bounded = _bounded(info, meter)
    if bounded is None:  # no file name is that long; the first word may still name the language
        first = info.split(maxsplit=1)[0] if info.strip() else ""
        return (first if len(first) <= _MAX_NAME and not is_file_name(first) else ""), None
    info = bounded
    labelled = _INFO_NAME.search(info)
    words = info.split()
    language = words[0] if words and not is_file_name(words[0]) and "=" not in words[0] else ""
    if labelled and is_file_name(labelled.group("name")):
        return language, labelled.group("name")
    for word in words:
        word = word.strip("{}:,")
        if is_file_name(word):
            return language, word
    return language, None


def _name_from_label_line(line: str, meter: WorkMeter | None = None) -> str | None:
    """A file name that a line just before a fence stands for: '### train.py', '**File: x.py**', 'Here is `x.py`:'."""
    stripped = _bounded(line, meter)
    if stripped is None:
        return None
    # Emphasis marks around the name go; underscores only when the name is not one without them, since a
    # name's own underscores are part of it ("### __init__.py" names __init__.py; "_train.py_" train.py).
    for marks in ("*` ", "*_` "):
        plain = _HEADING_PREFIX.sub("", stripped)
        plain = plain.strip(marks.replace("`", "")).rstrip(":").strip(marks)
        plain = _LABEL.sub("", plain).strip(marks)
        if is_file_name(plain):
            return plain
    named = [token for token in _BACKTICKED.findall(stripped) if is_file_name(token)]
    if stripped.rstrip("*_ ").endswith(":") and len(set(named)) == 1:
        return named[0]
    return None


def _previous_text_line(lines: list[str], index: int) -> str:
    """The nearest non-blank line above `index`, looking past at most one blank line."""
    for back in (1, 2):
        if index - back >= 0 and lines[index - back].strip():
            return lines[index - back]
    return ""


def _name_in_body(first_line: str, meter: WorkMeter | None) -> tuple[str | None, bool]:
    """(name, drop_the_line) from a block's first line: '# file: x.py' (dropped) or '# x.py' (kept, it is code)."""
    stripped = _bounded(first_line, meter)
    if stripped is None:
        return None, False
    in_block = _IN_BLOCK_NAME.match(stripped)
    if in_block and is_file_name(in_block.group("name")):
        return in_block.group("name"), True
    bare = _IN_BLOCK_BARE_NAME.match(stripped)
    if bare and is_file_name(bare.group("name")) and "." in bare.group("name"):
        return bare.group("name"), False
    return None, False


def extract_blocks(text: str, meter: WorkMeter | None = None) -> list[Block]:
    """Every fenced block (``` or ~~~), with the file name attached to it if there is one.

    Linear in the length of `text`: every line is examined a bounded number of times.
    """
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        if meter is not None:
            meter.add(lines[index])
        opening = fence_of(lines[index])
        if not opening:
            index += 1
            continue
        fence, info = opening
        language, name = _name_from_info(info, meter)
        body_start = index + 1
        end = body_start
        while end < len(lines) and not closes_fence(lines[end], fence):
            if meter is not None:
                meter.add(lines[end])
            end += 1
        body = lines[body_start:end]
        if name is None and body:
            name, drop = _name_in_body(body[0], meter)
            if drop:
                body = body[1:]
        if name is None:
            name = _name_from_label_line(_previous_text_line(lines, index), meter)
        content = "\n".join(body) + ("\n" if body else "")
        blocks.append(Block(language, name, content, closed=end < len(lines), start_line=index + 1))
        index = end + 1
    return blocks


def extract_files(text: str, meter: WorkMeter | None = None) -> dict[str, str]:
    """The files an answer writes: closed, named, non-empty fenced blocks. A later block of the same name wins."""
    files: dict[str, str] = {}
    for block in extract_blocks(text, meter):
        if block.name and block.closed and block.content.strip():
            files[block.name] = block.content
    return files


# --- the claimed estimate ------------------------------------------------------

_EXPECTED_F1 = re.compile(
    r"[\s>*_`#-]*+EXPECTED_F1[*_`\s]*+[:=][*_`\s]*+(?P<value>\d*\.?\d+)\s*+(?P<percent>%?)"
)
_F1_MARK = "EXPECTED_F1"


def parse_expected_f1(text: str, meter: WorkMeter | None = None) -> float | None:
    """The last `EXPECTED_F1: 0.812` line's value (0..1; "81.2%" reads as 0.812), or None.

    Line by line, and only lines that hold the mark reach the pattern (linear in the text).
    """
    value = None
    for line in (text or "").splitlines():
        if meter is not None:
            meter.add(line)
        if _F1_MARK not in line:
            continue
        stripped = _bounded(line, meter)
        match = _EXPECTED_F1.match(stripped) if stripped is not None else None
        if match is None:
            continue
        number = float(match.group("value"))
        if match.group("percent"):
            number /= 100
        if 0.0 <= number <= 1.0:
            value = number
    return value


# --- the capture audit -------------------------------------------------------

# The statuses and reasons are bakeoff.records' enums (one definition each); Capture is the record's part.
_VERDICT = re.compile(r"\b(OK|PROBLEM)\b")


def _default_has_verdict(text: str) -> bool:
    return bool(_VERDICT.search(text))


def audit(
    completion: Completion,
    expect: str = "text",
    has_verdict: Callable[[str], bool] | None = None,
    token_budget: int | None = None,
) -> Capture:
    """Classify one completion. `expect` is "code", "verdict" or "text".

    `has_verdict` lets the review task supply its own verdict parser; the
    default looks for a bare OK or PROBLEM. `token_budget` is the most tokens
    the harness let the model generate (answer and reasoning budgets together).
    """
    if expect not in ("code", "verdict", "text"):
        raise ValueError(f"expect must be 'code', 'verdict' or 'text', not {expect!r}")
    if completion.error is not None:
        kind = completion.error_kind if completion.error_kind in UNCAPTURED_REASONS else CaptureReason.BACKEND_ERROR
        return Capture(CaptureStatus.UNCAPTURED, CaptureReason(kind), completion.error or "")
    truncated = truncation_of(completion)
    if truncated is not None:  # whatever came back answered a prompt the model never saw whole
        return Capture(CaptureStatus.UNCAPTURED, CaptureReason.CONTEXT_TRUNCATED, truncated)
    cut = completion.finish_reason == "length"
    budget = completion.token_budget if completion.token_budget is not None else token_budget
    budget_cut = None if not cut or budget is None else completion.completion_tokens >= budget
    if completion.reasoning and not completion.text.strip():
        if cut:
            detail = f"the budget ran out while the model was still reasoning ({completion.reasoning_tokens} reasoning tokens)"
            return Capture(CaptureStatus.UNUSABLE, CaptureReason.RUNAWAY_REASONING, detail, budget_cut=budget_cut)
        return Capture(CaptureStatus.UNUSABLE, CaptureReason.NO_ANSWER, "the model reasoned and then stopped without answering")
    if completion.text == "":
        return Capture(CaptureStatus.UNCAPTURED, CaptureReason.EMPTY)
    if not completion.text.strip():
        return Capture(CaptureStatus.UNCAPTURED, CaptureReason.WHITESPACE_ONLY)
    if cut:
        detail = f"stopped at the token limit after {completion.completion_tokens} tokens"
        return Capture(CaptureStatus.UNUSABLE, CaptureReason.CUT_OFF, detail, budget_cut=budget_cut)
    if expect == "code" and not extract_files(completion.text):
        return Capture(CaptureStatus.UNUSABLE, CaptureReason.NO_CODE, "no closed, named, fenced file in the answer")
    if expect == "verdict" and not (has_verdict or _default_has_verdict)(completion.text):
        return Capture(CaptureStatus.UNUSABLE, CaptureReason.NO_VERDICT)
    return Capture(CaptureStatus.CAPTURED, CaptureReason.OK)


# --- a tool loop's calls ----------------------------------------------------

_JSON_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "number": (int, float),
                                            "boolean": (bool,), "object": (dict,), "array": (list,)}


def argument_problem(arguments: object, schema: Mapping[str, Any]) -> str | None:
    """What is wrong with a call's arguments against its tool's schema (an object of typed properties), or None."""
    if not isinstance(arguments, dict):
        return f"the arguments are a JSON {type(arguments).__name__}, not an object"
    properties = schema.get("properties") or {}
    missing = [name for name in schema.get("required") or () if name not in arguments]
    if missing:
        return f"missing argument(s): {', '.join(missing)}"
    unknown = sorted(set(arguments) - set(properties))
    if unknown and schema.get("additionalProperties") is False:
        return f"unknown argument(s): {', '.join(unknown)}; the tool takes {', '.join(properties) or 'none'}"
    for name, value in arguments.items():
        wanted = (properties.get(name) or {}).get("type")
        kinds = _JSON_TYPES.get(wanted) if isinstance(wanted, str) else None
        bad_bool = isinstance(value, bool) and wanted in ("integer", "number")
        if kinds is not None and (not isinstance(value, kinds) or bad_bool):
            return f"argument {name} must be a JSON {wanted}, not {type(value).__name__}"
    return None


def call_problem(call: ToolCall, tools: Mapping[str, ToolSpec]) -> tuple[CaptureReason, str] | None:
    """Why one call cannot be run (malformed_call, unknown_tool, bad_arguments), or None when it can."""
    if call.error is not None:
        return CaptureReason.MALFORMED_CALL, call.error
    if call.name not in tools:
        return CaptureReason.UNKNOWN_TOOL, f"there is no tool {call.name[:80]!r}; the tools are {', '.join(tools)}"
    try:
        arguments = call.parsed_arguments()
    except ValueError as exc:
        return CaptureReason.MALFORMED_CALL, f"the arguments of {call.name} are not JSON: {exc}"
    problem = argument_problem(arguments, tools[call.name].parameters)
    return (CaptureReason.BAD_ARGUMENTS, f"{call.name}: {problem}") if problem else None


def audit_tool_calls(completion: Completion, tools: Sequence[ToolSpec], token_budget: int | None = None
                     ) -> tuple[Capture, tuple[tuple[CaptureReason, str] | None, ...]]:
    """The capture audit of a tool loop's step, and each call's problem (None for a call that can run).

    An answer that never came is uncaptured as any other; one with no call at all is unusable `no_tool_call`
    (after the usual checks: cut off, runaway reasoning...); a step whose every call can run is captured,
    else unusable for the first call's problem. Reasoning is never searched for calls."""
    if completion.error is not None or not completion.tool_calls or truncation_of(completion) is not None:
        capture = audit(completion, expect="text", token_budget=token_budget)
        if capture.captured:
            capture = Capture(CaptureStatus.UNUSABLE, CaptureReason.NO_TOOL_CALL, "the answer calls no tool")
        return capture, ()
    by_name = {tool.name: tool for tool in tools}
    problems = tuple(call_problem(call, by_name) for call in completion.tool_calls)
    first = next((problem for problem in problems if problem is not None), None)
    if first is None:
        return Capture(CaptureStatus.CAPTURED, CaptureReason.OK), problems
    return Capture(CaptureStatus.UNUSABLE, first[0], first[1]), problems
