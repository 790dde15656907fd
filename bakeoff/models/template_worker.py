"""The process a model's chat template runs in: `python -P -m bakeoff.models.template_worker PARENT_PID`.

Started and spoken to by bakeoff.models.template_process, never imported by anything else. A chat template is
code from the model file (Jinja2, in its sandbox): it can loop for ever, recurse, or build a string of any size.
So it runs here, alone, under an address-space limit this process sets on itself before it reads the template,
and the parent stops it at a deadline. It dies with its parent (PR_SET_PDEATHSIG), even inside an endless loop.

Protocol, one JSON object a line. In: the template first ({"source", "bos", "eos", "today", "memory_bytes"}),
then requests ({"op": "check", "reasoning": MODE}, answered with the template's facts, its tool syntax among
them, or {"op": "render", "messages", "kwargs", "add_generation_prompt"}, a tool loop's `tools` in the kwargs).
Out: {"ready": true} once the limit is set, then one reply a request: {"ok": VALUE} or
{"error": CLASS, "limit": LIMIT_OR_NULL, "message": TEXT}.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import os
import resource
import signal
import sys
from typing import Any

from bakeoff.models.chat_template import ChatTemplate, TemplateTokens
from bakeoff.models.errors import ChatTemplateError, ReasoningModeUnsupported
from bakeoff.models.tools import ToolSyntax
from durable import dumps, loads

MAX_PROMPT_CHARS = 4 << 20  # no context window holds a prompt this long
_MESSAGE_CHARS = 2000
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the parent's deadline still stops a loop
        pass
    if os.getppid() != parent:  # the parent died before the line above ran
        os._exit(1)


def _address_space() -> int:
    """Bytes of address space this process maps now (0 where /proc is not there)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _limit_memory(extra_bytes: int) -> None:
    """The template may map `extra_bytes` more than the interpreter and jinja2 hold: beyond, MemoryError."""
    limit = _address_space() + extra_bytes
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _send(reply: dict[str, Any]) -> None:
    # ASCII escapes: a lone surrogate from a model's answer travels as \udc80 and reads back the same.
    sys.stdout.buffer.write(dumps(reply).encode("ascii") + b"\n")
    sys.stdout.buffer.flush()


def _error(kind: str, message: str, limit: str | None = None) -> dict[str, Any]:
    return {"error": kind, "limit": limit, "message": message[:_MESSAGE_CHARS]}


class _Worker:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self._template: ChatTemplate | None = None

    def template(self) -> ChatTemplate:
        if self._template is None:
            tokens = TemplateTokens(str(self.spec.get("bos", "")), str(self.spec.get("eos", "")))
            today = dt.datetime.fromisoformat(str(self.spec["today"]))
            self._template = ChatTemplate(str(self.spec["source"]), tokens, today=today)
        return self._template

    def check(self, reasoning: str) -> dict[str, Any]:
        template = self.template()
        kwargs = template.reasoning_kwargs(reasoning)
        return {"sha256": template.sha256, "format": template.format.value, "reasoning_kwargs": kwargs,
                "opens_reasoning": template.opens_reasoning(kwargs), "tool_syntax": _tool_syntax(template)}

    def render(self, request: dict[str, Any]) -> str:
        prompt = self.template().render(request["messages"], bool(request.get("add_generation_prompt", True)),
                                        **dict(request.get("kwargs") or {}))
        if len(prompt) > MAX_PROMPT_CHARS:
            raise _Oversized(f"the chat template rendered a prompt of {len(prompt):,} characters "
                             f"(more than {MAX_PROMPT_CHARS:,}: no context holds it)")
        return prompt

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            if request.get("op") == "check":
                return {"ok": self.check(str(request.get("reasoning", "default")))}
            return {"ok": self.render(request)}
        except ReasoningModeUnsupported as exc:
            return _error("ReasoningModeUnsupported", str(exc))
        except _Oversized as exc:
            return _error("ChatTemplateError", str(exc), "size")
        except ChatTemplateError as exc:
            return _error("ChatTemplateError", str(exc))
        except MemoryError:
            return _error("ChatTemplateError", "the chat template ran out of its memory limit", "memory")
        except RecursionError:
            return _error("ChatTemplateError", "the chat template recursed too deeply", "recursion")
        except Exception as exc:  # noqa: BLE001 - whatever a template makes Jinja or Python raise is its failure
            return _error("ChatTemplateError", f"the chat template failed: {type(exc).__name__}: {exc}")


class _Oversized(Exception):
    pass


def _tool_syntax(template: ChatTemplate) -> str:
    """How the template writes tool calls; the text protocol where it fails only when offered tools (it still
    serves the staged stages). Running out of memory or stack is the template's failure as anywhere else."""
    try:
        return template.tool_syntax().value
    except (MemoryError, RecursionError):
        raise
    except Exception:  # noqa: BLE001 - whatever a template raises on a tool list means: no tool syntax
        return ToolSyntax.TEXT.value


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent(int(argv[0]))
    spec = loads(sys.stdin.buffer.readline(), what="the chat template request")
    import jinja2.ext  # noqa: F401 - loaded before the limit, so that the allowance is the template's alone
    import jinja2.meta  # noqa: F401
    import jinja2.sandbox  # noqa: F401

    _limit_memory(int(spec["memory_bytes"]))
    _send({"ready": True})
    worker = _Worker(spec)
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        _send(worker.answer(loads(line, what="a chat template request")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
