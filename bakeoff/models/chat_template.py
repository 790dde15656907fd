"""A model's own chat template, rendered as its authors wrote it, and what it tells about reasoning.

Templates stored in GGUF files are Jinja2 written for the Hugging Face
renderer: a sandboxed environment with `trim_blocks`/`lstrip_blocks`, loop
controls (`break`, `continue`), namespaces, `raise_exception(...)`, a date
helper `strftime_now(...)` and a `tojson` that keeps text readable. A template
that cannot be compiled or rendered is a `ChatTemplateError` when the model
loads: never a silent fallback to some other template, which would measure a
model prompted in a way its authors never wrote.

The reasoning format and the reasoning switch are read from the template's
behaviour (what it renders) and markers (what it mentions), never from a
hash of a known file: a user's model carries its authors' template.

A template is code from the model file: `ChatTemplate` is built only inside the
template worker's process (bakeoff.models.template_worker, under a deadline and a
memory cap); everything else asks bakeoff.models.template_process.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bakeoff.models.errors import ChatTemplateError, ReasoningModeUnsupported
from bakeoff.models.reasoning import HARMONY_CHANNEL, TAGS, ReasoningFormat, prompt_opens_reasoning
from bakeoff.models.tools import PROBE_TOOL, ToolSyntax, probe_conversation, syntax_of_rendering

REASONING_MODES = ("default", "off", "low", "medium", "high")
EFFORT_MODES = ("low", "medium", "high")
# The variables templates read for the switch (Qwen3's on/off, gpt-oss's effort).
ON_OFF_VARIABLE = "enable_thinking"
EFFORT_VARIABLE = "reasoning_effort"

# A short conversation every template must be able to render; the system turn is
# dropped for a template that refuses system messages (some families have none).
_PROBES = (
    ({"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi."}),
    ({"role": "user", "content": "Say hi."},),
)


class _TemplateRaised(Exception):
    """`raise_exception(...)` called by a template."""


def _raise_exception(message: str) -> None:
    raise _TemplateRaised(message)


def _tojson(value: Any, indent: int | None = None, ensure_ascii: bool = False, sort_keys: bool = False) -> str:
    # Jinja's own tojson escapes <, > and & for HTML; chat templates want the plain JSON text.
    return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys)


def _environment(today: dt.datetime):
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    # The date is fixed when the model loads, so that every prompt of a batch renders alike (prefix reuse, replay).
    env.globals["strftime_now"] = today.strftime
    return env


@dataclass(frozen=True)
class TemplateTokens:
    bos_token: str = ""
    eos_token: str = ""


class ChatTemplate:
    """One compiled chat template, checked at construction by rendering a probe conversation."""

    def __init__(self, source: str, tokens: TemplateTokens = TemplateTokens(), today: dt.datetime | None = None) -> None:
        import jinja2
        from jinja2 import meta

        if not source or not source.strip():
            raise ChatTemplateError("the chat template is empty")
        self.source = source
        self.tokens = tokens
        self.sha256 = hashlib.sha256(source.encode("utf-8")).hexdigest()
        env = _environment(today or dt.datetime.now())
        try:
            self._template = env.from_string(source)
            self.variables = frozenset(meta.find_undeclared_variables(env.parse(source)))
        except jinja2.TemplateError as exc:
            raise ChatTemplateError(f"the chat template does not compile: {type(exc).__name__}: {exc}") from None
        self._probe = self._first_renderable_probe()
        self.format = self._detect_format()

    def render(self, messages: Sequence[Mapping[str, Any]], add_generation_prompt: bool = True, **kwargs: Any) -> str:
        """The prompt text for `messages`, ending with the assistant's opening when `add_generation_prompt`
        (a tool loop's turn passes `tools`, the OpenAI-shaped list templates read, and messages with tool calls)."""
        import jinja2

        try:
            return self._template.render(
                messages=[dict(m) for m in messages],
                add_generation_prompt=add_generation_prompt,
                bos_token=self.tokens.bos_token,
                eos_token=self.tokens.eos_token,
                **kwargs,
            )
        except _TemplateRaised as exc:
            raise ChatTemplateError(f"the chat template refused the conversation: {exc}") from None
        except (jinja2.TemplateError, TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            raise ChatTemplateError(f"the chat template failed to render: {type(exc).__name__}: {exc}") from None

    def _first_renderable_probe(self) -> tuple[dict, ...]:
        failures = []
        for probe in _PROBES:
            try:
                self.render(probe)
                return probe
            except ChatTemplateError as exc:
                failures.append(str(exc))
        raise ChatTemplateError("the chat template cannot render a plain conversation: " + "; ".join(failures))

    def _detect_format(self) -> ReasoningFormat:
        """The reasoning markup, from what the template renders and the markers it mentions."""
        rendered = self.render(self._probe)
        if HARMONY_CHANNEL in rendered or HARMONY_CHANNEL in self.source:
            return ReasoningFormat.HARMONY
        for fmt, (_opening, closing) in TAGS.items():
            if closing in self.source or closing in rendered or prompt_opens_reasoning(rendered, fmt):
                return fmt
        return ReasoningFormat.NONE

    def opens_reasoning(self, kwargs: Mapping[str, Any]) -> bool:
        """True when the generation prompt (with these switch values) ends inside an opened reasoning tag."""
        return prompt_opens_reasoning(self.render(self._probe, **kwargs), self.format)

    def reasoning_kwargs(self, mode: str) -> dict[str, Any]:
        """The template variables that set reasoning `mode`; refused where the template has no such switch.

        The switch must change the rendered prompt: a variable the template
        names but whose value changes nothing is no switch at all.
        """
        if mode not in REASONING_MODES:
            raise ReasoningModeUnsupported(f"reasoning must be one of {', '.join(REASONING_MODES)}, got {mode!r}")
        if mode == "default":
            return {}
        kwargs: dict[str, Any]
        if mode == "off" and ON_OFF_VARIABLE in self.variables:
            kwargs = {ON_OFF_VARIABLE: False}
        elif mode in EFFORT_MODES and EFFORT_VARIABLE in self.variables:
            kwargs = {EFFORT_VARIABLE: mode}
        else:
            raise ReasoningModeUnsupported(
                f"reasoning {mode!r} is not possible with this model: its chat template "
                f"({self.format.value} format) has {self._switches_described()}"
            )
        if self.render(self._probe, **kwargs) == self.render(self._probe):
            raise ReasoningModeUnsupported(
                f"reasoning {mode!r}: the chat template reads {next(iter(kwargs))} but renders the same prompt with it"
            )
        return kwargs

    def _switches_described(self) -> str:
        switches = []
        if ON_OFF_VARIABLE in self.variables:
            switches.append(f"an on/off switch ({ON_OFF_VARIABLE}: use 'off')")
        if EFFORT_VARIABLE in self.variables:
            switches.append(f"an effort level ({EFFORT_VARIABLE}: use 'low', 'medium' or 'high')")
        return " and ".join(switches) if switches else "no reasoning switch (only 'default' is possible)"

    def tool_syntax(self) -> ToolSyntax:
        """How this template writes tool calls, from what it renders with a probe tool offered (and a probe call
        answered); the text protocol where it reads no `tools` or shows no call markup bakeoff knows."""
        if "tools" not in self.variables:
            return ToolSyntax.TEXT
        tools = [PROBE_TOOL.to_openai()]
        try:
            tools_only = self.render([{"role": "user", "content": "Say hi."}], tools=tools)
        except ChatTemplateError:
            return ToolSyntax.TEXT
        try:
            with_call: str | None = self.render(probe_conversation(), tools=tools)
        except ChatTemplateError:  # a template may insist on turns our probe lacks; its tool list still shows
            with_call = None
        return syntax_of_rendering(with_call, tools_only)
