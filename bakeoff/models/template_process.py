"""A model's chat template, run in its own process under a deadline and a memory limit.

No chat template runs in the bakeoff process, nor in the engine's: a template is code that comes with the model
file, and it may loop, recurse or build a string of any size. `TemplateProcess` starts
bakeoff.models.template_worker (a plain `python -P -m`, so the engine's multiprocessing children are not
confused with it), which caps its own address space at what it holds after start-up plus
`TemplateLimits.memory_bytes`; every check and render must answer within `deadline_s`, or the process is
killed. Running out of either, recursing too deeply, rendering an absurdly long prompt, or dying is
`ChatTemplateExhausted` (a ChatTemplateError) naming the model and the limit. A template that merely fails to
render is a plain ChatTemplateError, as before; a reasoning mode it has no switch for is ReasoningModeUnsupported.

The plan check (bakeoff.models.registry.check_reasoning_mode) and the engine's load and every prompt
(bakeoff.models.engine_child) go through here. After a failure the process is gone; the next call starts another.
"""

from __future__ import annotations

import datetime as dt
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bakeoff.models.chat_template import TemplateTokens
from bakeoff.models.errors import ChatTemplateError, ChatTemplateExhausted, ReasoningModeUnsupported
from bakeoff.models.reasoning import ReasoningFormat
from bakeoff.models.tools import ToolSyntax
from durable import JsonLimits, UntrustedJSON, dumps, loads

_REPLY_LIMITS = JsonLimits(max_bytes=64 << 20, max_depth=8)  # a prompt of the worker's largest, ASCII-escaped
_CHUNK = 1 << 16
_STDERR_TAIL = 2000


@dataclass(frozen=True)
class TemplateLimits:
    """How long one check or render may take, how long the process may take to start, and the memory it may add."""

    deadline_s: float = 20.0  # real templates render in milliseconds; this is room for a machine under load
    start_s: float = 120.0  # an interpreter and jinja2 starting on a busy machine
    memory_bytes: int = 1 << 30


@dataclass(frozen=True)
class TemplateFacts:
    """What the check found: the template's hash, its reasoning format, the switch for the mode asked for,
    whether the generation prompt (with that switch) ends inside an opened reasoning block, and how the
    template writes tool calls (the text protocol where it shows no syntax bakeoff reads)."""

    sha256: str
    format: ReasoningFormat
    reasoning_kwargs: dict[str, Any] = field(default_factory=dict)
    opens_reasoning: bool = False
    tool_syntax: ToolSyntax = ToolSyntax.TEXT


class TemplateProcess:
    """One model's chat template in a worker process (started at the first call; `close` or `with` ends it)."""

    def __init__(self, source: str, tokens: TemplateTokens | None = None, *, model: str,
                 limits: TemplateLimits = TemplateLimits(), today: dt.datetime | None = None) -> None:
        self.source, self.tokens, self.model, self.limits = source, tokens or TemplateTokens(), model, limits
        self.today = today or dt.datetime.now()  # fixed once: every prompt of a batch renders alike
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._buffer = b""

    def __enter__(self) -> TemplateProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what callers ask ------------------------------------------------------------------------------

    def check(self, reasoning: str = "default") -> TemplateFacts:
        """Compile the template, render the probe conversation, find the format and the switch for `reasoning`."""
        found = self._ask({"op": "check", "reasoning": reasoning})
        return TemplateFacts(sha256=str(found["sha256"]), format=ReasoningFormat(found["format"]),
                             reasoning_kwargs=dict(found["reasoning_kwargs"]),
                             opens_reasoning=bool(found["opens_reasoning"]),
                             tool_syntax=ToolSyntax(found.get("tool_syntax", ToolSyntax.TEXT.value)))

    def render(self, messages: Sequence[Mapping[str, Any]], add_generation_prompt: bool = True,
               **kwargs: Any) -> str:
        """The prompt the template makes of `messages` (with the reasoning switch's `kwargs`, and a tool loop's
        `tools` in the OpenAI shape: everything the template reads travels to its process as JSON)."""
        prompt = self._ask({"op": "render", "messages": [dict(m) for m in messages], "kwargs": kwargs,
                            "add_generation_prompt": add_generation_prompt})
        if not isinstance(prompt, str):
            raise self._exhausted("process", "the chat template process answered something other than a prompt")
        return prompt

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            for pipe in (self._process.stdin, self._process.stdout):
                if pipe is not None:
                    pipe.close()
            self._process = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._buffer = b""

    # --- the worker ------------------------------------------------------------------------------------

    def _exhausted(self, limit: str, detail: str) -> ChatTemplateExhausted:
        return ChatTemplateExhausted(f"model {self.model}: {detail}", limit=limit)

    def _start(self) -> subprocess.Popen[bytes]:
        self._stderr = tempfile.TemporaryFile()
        process = subprocess.Popen(
            [sys.executable, "-P", "-m", "bakeoff.models.template_worker", str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, close_fds=True, env=_worker_environment())
        self._process = process
        os.set_blocking(process.stdin.fileno(), False)  # type: ignore[union-attr]
        os.set_blocking(process.stdout.fileno(), False)  # type: ignore[union-attr]
        deadline = time.monotonic() + self.limits.start_s
        spec = {"source": self.source, "bos": self.tokens.bos_token, "eos": self.tokens.eos_token,
                "today": self.today.isoformat(), "memory_bytes": self.limits.memory_bytes}
        try:
            self._write(dumps(spec).encode("ascii") + b"\n", deadline, "start")
            self._read(deadline, "start")
        except BaseException:
            self.close()
            raise
        return process

    def _ask(self, request: dict[str, Any]) -> Any:
        if self._process is None:
            self._start()
        deadline = time.monotonic() + self.limits.deadline_s
        try:
            self._write(dumps(request).encode("ascii") + b"\n", deadline, "answer")
            reply = self._read(deadline, "answer")
        except BaseException:
            self.close()  # a template that overran or killed its process gets a fresh one next time
            raise
        if "ok" in reply:
            return reply["ok"]
        message = f"model {self.model}: {reply.get('message', '')}"
        if reply.get("error") == "ReasoningModeUnsupported":
            raise ReasoningModeUnsupported(message)
        if reply.get("limit"):
            self.close()  # memory, recursion and size failures leave a process not worth keeping
            raise ChatTemplateExhausted(message, limit=str(reply["limit"]))
        raise ChatTemplateError(message)

    def _write(self, data: bytes, deadline: float, what: str) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._overran(what)
            _, writable, _ = select.select([], [process.stdin], [], remaining)
            if writable:
                try:
                    view = view[os.write(process.stdin.fileno(), view[:_CHUNK]):]
                except BrokenPipeError:
                    raise self._died() from None

    def _read(self, deadline: float, what: str) -> dict[str, Any]:
        process = self._process
        assert process is not None and process.stdout is not None
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._overran(what)
            readable, _, _ = select.select([process.stdout], [], [], remaining)
            if not readable:
                continue
            chunk = os.read(process.stdout.fileno(), _CHUNK)
            if not chunk:
                raise self._died()
            self._buffer += chunk
            if len(self._buffer) > _REPLY_LIMITS.max_bytes:
                raise self._exhausted("size", "the chat template process sent an answer past every limit")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            reply = loads(line, limits=_REPLY_LIMITS, what="the chat template process's answer")
        except UntrustedJSON as exc:
            raise self._exhausted("process", str(exc)) from None
        if not isinstance(reply, dict):
            raise self._exhausted("process", "the chat template process answered something other than an object")
        return reply

    def _overran(self, what: str) -> ChatTemplateExhausted:
        if what == "start":
            return self._exhausted("start", f"the chat template process did not start within {self.limits.start_s:g} s")
        return self._exhausted("deadline", f"the chat template did not finish within {self.limits.deadline_s:g} s "
                                           "(stopped): a template that loops")

    def _died(self) -> ChatTemplateExhausted:
        from bakeoff.models.exit_status import describe_exit

        process = self._process
        assert process is not None
        try:
            status = process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            status = process.wait()
        tail = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            tail = self._stderr.read()[-_STDERR_TAIL:].decode("utf-8", "replace").strip()
        detail = f"the chat template process {describe_exit(status)} (out of memory, or a crash)"
        return self._exhausted("process", detail + (f": {tail.splitlines()[-1]}" if tail else ""))


def _worker_environment() -> dict[str, str]:
    """This environment, with the folder holding this bakeoff first on the worker's path: `-P` keeps the current
    folder (which may be a workspace) off it, and the worker must import the same bakeoff as this process."""
    import bakeoff

    source = str(Path(bakeoff.__file__).resolve().parents[1])
    existing = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": source + (os.pathsep + existing if existing else "")}
