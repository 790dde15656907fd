"""The agent's tools: what each offers the model, and doing one call in the run's workspace and tool sandbox.

run: a shell command in the sandbox of the visible data (the task's longest step timeout, the output cap),
  its exit status and output tails back; write_file, read_file, list_files: the workspace (never .git, the
  harness's scratch folder or data/, which holds the visible data read-only); submit: the loop ends and the
  task's check grades the workspace as it is.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

import durable
from bakeoff.batchfolder.files import is_disk_full
from bakeoff.models.tools import ToolSpec
from bakeoff.records import CaptureReason
from bakeoff.runner.modelcall import write_files
from bakeoff.runner.workspace import DATA_DIR, SCRATCH_DIR, encoded_text, path_failure
from bakeoff.scaffolds.agent.records import ToolResult
from bakeoff.scaffolds.agent.settings import AgentSettings
from bakeoff.taskapi.context import RunContext, StageClock, command_record, crash_of, output_for_model, shorten
from bakeoff.textsafe import valid_text

RUN, WRITE, READ, LIST, SUBMIT = "run", "write_file", "read_file", "list_files", "submit"
RUN_PURPOSE = "agent_run"  # a command record's purpose for an agent's own command
MAX_LISTED = 400


def _object(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": list(required), "additionalProperties": False}


TOOLS = (
    ToolSpec(RUN, "Run a shell command in the workspace (no network). Returns its exit status and the end of "
                  "its output.", _object({"command": {"type": "string", "description": "the command, for sh -c"}},
                                         ("command",))),
    ToolSpec(WRITE, "Write a text file in the workspace (the whole file; folders are made).",
             _object({"path": {"type": "string", "description": "relative to the workspace"},
                      "content": {"type": "string", "description": "the file's complete text"}}, ("path", "content"))),
    ToolSpec(READ, "Read a text file of the workspace or of data/.",
             _object({"path": {"type": "string", "description": "relative to the workspace"}}, ("path",))),
    ToolSpec(LIST, "List the files of the workspace and of data/.", _object({})),
    ToolSpec(SUBMIT, "Submit the workspace as it is now: it is graded and you cannot change it any more.",
             _object({})),
)
TOOL_NAMES = tuple(tool.name for tool in TOOLS)


@dataclass(frozen=True)
class Workplace:
    """What the tools work with: the run's context (workspace, the tool sandbox, seeding), its clock, the
    agent's limits, and the visible data's files by their path in the workspace."""

    ctx: RunContext
    clock: StageClock
    settings: AgentSettings
    visible: Mapping[str, Path] = field(default_factory=dict)  # "data/train.csv" -> the corpus file on the host

    @classmethod
    def of(cls, ctx: RunContext, clock: StageClock, settings: AgentSettings) -> Workplace:
        visible = {mount.sandbox_path: Path(mount.host_path) for mount in ctx.corpus.visible_mounts()}
        return cls(ctx, clock, settings, visible)

    @property
    def shown_chars(self) -> int:
        return self.settings.shown_chars(self.ctx.task.settings)


MAX_COMMAND_CHARS = 100_000  # a shell command; a file goes through write_file


def _not_unicode(text: str) -> bool:
    """A lone surrogate (the JSON escape "\\udcff" in a plain-ASCII call): no UTF-8 text, no name on any page."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _unfit(arguments: Mapping[str, Any]) -> str | None:
    """Text no command or path can hold (a NUL character, a lone surrogate), or a command too long for a command
    line. A file's content may hold a lone surrogate: it is written as its \\uXXXX escape."""
    names = [value for key, value in arguments.items() if key != "content" and isinstance(value, str)]
    if any("\x00" in value for value in names):
        return "an argument holds a NUL character"
    if any(_not_unicode(value) for value in names):
        return "an argument holds a lone surrogate (\\ud800-\\udfff), which is not Unicode text"
    command = arguments.get("command")
    if isinstance(command, str) and len(command) > MAX_COMMAND_CHARS:
        return f"the command is {len(command)} characters long; write a script with write_file and run that"
    return None


def call_tool(place: Workplace, name: str, arguments: Mapping[str, Any], remaining_wall_s: float) -> ToolResult:
    """One usable call (the audit has checked its name and arguments). A sandbox failure raises (SandboxError)."""
    unfit = _unfit(arguments)
    if unfit is not None:
        return refused(name, CaptureReason.BAD_ARGUMENTS, unfit)
    if name == RUN:
        return _run(place, str(arguments["command"]), remaining_wall_s)
    try:
        result = _file_call(place, name, arguments)
    except (OSError, UnicodeError, durable.UnsafePath) as exc:  # the model's names and files: its failure
        if isinstance(exc, OSError) and is_disk_full(exc):
            raise  # the batch's disk is full: the harness's, as ever
        return ToolResult(name, False, f"This call failed: {_failure(arguments, exc)}")
    return replace(result, shown=valid_text(result.shown))


def _file_call(place: Workplace, name: str, arguments: Mapping[str, Any]) -> ToolResult:
    if name == WRITE:
        return _write(place, str(arguments["path"]), str(arguments["content"]))
    if name == READ:
        return _read(place, str(arguments["path"]))
    if name == LIST:
        return _list(place)
    return ToolResult(SUBMIT, True, "Submitted: the workspace is graded as it is now.")


def _failure(arguments: Mapping[str, Any], exc: Exception) -> str:
    """What went wrong, in the model's own path and the system's words (never a host path)."""
    path = str(arguments.get("path", ""))
    if isinstance(exc, OSError):
        return path_failure(path, exc)
    if isinstance(exc, durable.UnsafePath):
        return f"{path!r} is not a regular file reached without a link"
    return f"{path!r}: not valid text ({type(exc).__name__})"


def refused(name: str, problem: CaptureReason, detail: str) -> ToolResult:
    """The result of a call that was not run: the model is told why."""
    return ToolResult(name or "?", False, f"This call was not run ({problem.value}): {detail}", problem=problem)


def _run(place: Workplace, command: str, remaining_wall_s: float) -> ToolResult:
    ctx = place.ctx
    box = ctx.tool_sandbox or ctx.sandbox
    timeout = max(1.0, min(place.settings.run_timeout(ctx.task.settings), remaining_wall_s))
    started = time.monotonic()
    try:
        result = box.exec(["sh", "-c", command], timeout_s=timeout, env=dict(ctx.env))
    finally:
        place.clock.sandbox_s += time.monotonic() - started
    record = command_record(RUN_PURPOSE, result, crash_of(result))
    status = ("timed out" if result.timed_out else "killed: out of memory" if result.oom_killed
              else f"exit status {result.exit_code}")
    shown = f"{status}\n{output_for_model(result, place.shown_chars)}"
    measured = result.cpu_s is not None
    cpu = float(result.cpu_s) if result.cpu_s is not None else float(result.duration_s)
    return ToolResult(RUN, result.ok, shown, command=record, cpu_s=cpu, cpu_measured=measured)


def _write(place: Workplace, path: str, content: str) -> ToolResult:
    size = len(encoded_text(content))
    if size > place.settings.file_bytes:
        return ToolResult(WRITE, False, f"Not written: {size} bytes is more than the {place.settings.file_bytes} a file may hold.")
    written = write_files(place.ctx, {path: content}, lambda _: True)
    if not written:
        return ToolResult(WRITE, False, f"Not written: {path} is not a path in the workspace the agent may write "
                                        f"(not {DATA_DIR}/, {SCRATCH_DIR}/, .git or outside it).")
    file = written[0]
    if file.refused:
        return ToolResult(WRITE, False, f"Not written: {file.refused}", files_written=(file,))
    return ToolResult(WRITE, True, f"Wrote {file.path} ({file.bytes} bytes).", files_written=(file,))


def _visible_file(place: Workplace, path: str) -> Path | None:
    """The host file behind a path of the visible data (data/train.csv), or inside a mounted folder of it."""
    normal = PurePosixPath(os.path.normpath(path)).as_posix()
    for target, source in place.visible.items():
        if normal == target and source.is_file():
            return source
        if normal.startswith(target + "/") and source.is_dir():
            candidate = (source / normal[len(target) + 1:]).resolve()
            if candidate.is_file() and candidate.is_relative_to(source.resolve()):
                return candidate
    return None


def _read(place: Workplace, path: str) -> ToolResult:
    limit = place.settings.read_chars
    source = _visible_file(place, path)
    if source is not None:  # the corpus's own file: read its head (a data file is large)
        with open(source, encoding="utf-8", errors="replace") as handle:
            text = handle.read(limit + 1)
        shown = text[:limit] + (f"\n[... the file goes on: {source.stat().st_size} bytes in all ...]" if len(text) > limit else "")
        return ToolResult(READ, True, shown)
    try:  # never through a planted link; a capped head (sandboxed code may have written gigabytes, or claimed them)
        head = durable.TrustedRoot(place.ctx.repo.path).read_head(os.path.normpath(path), 4 * limit)
    except (FileNotFoundError, NotADirectoryError, durable.UnsafePath):
        return ToolResult(READ, False, f"No such file: {path} (list_files shows what there is).")
    found = head.data.decode("utf-8", errors="replace")
    note = f"\n[... {head.size} bytes in all: the middle is cut ...]" if head.cut else ""
    return ToolResult(READ, True, (shorten(found, limit) + note) or "(the file is empty)")


def _list(place: Workplace) -> ToolResult:
    root = place.ctx.repo.path
    found: list[str] = []
    for folder, dirs, files in os.walk(root):  # links are never followed
        if len(found) > 4 * MAX_LISTED:  # sandboxed code may have made a million files
            break
        relative = Path(folder).relative_to(root)
        dirs[:] = sorted(d for d in dirs if not (relative == Path(".") and d in (".git", SCRATCH_DIR, DATA_DIR)))
        for name in sorted(files):
            path = Path(folder) / name
            if not path.is_symlink():
                found.append(f"{(relative / name).as_posix()} ({path.stat().st_size} bytes)")
    found += [f"{target} (the task's data, read-only)" for target in sorted(place.visible)]
    shown = "\n".join(found[:MAX_LISTED]) + (f"\n[... {len(found) - MAX_LISTED} more]" if len(found) > MAX_LISTED else "")
    return ToolResult(LIST, True, shown or "(the workspace is empty)")
