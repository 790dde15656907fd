"""The context preflight: does an endpoint read a prompt as long as the plan's context, whole?

A server started with a small context (llama-server's default `-c`, Ollama's OpenAI-compatible endpoint at its
2,048 or 4,096 tokens) cuts or refuses every long turn of a take-home, and without this check a whole batch
runs to its end on turns the model never saw. The preflight sends each `openai:` endpoint one prompt as long as
the longest prompt a stage may send (the task's context less the room for its answer, in the characters the
task sizes prompts by), with a fact at its start and the question at its end, and refuses by name
(ContextTooSmall, with the fix) an endpoint that refuses the prompt, reports fewer prompt tokens than it was
sent (bakeoff.models.truncation), or, reporting no usage, has forgotten the fact. A server that kept the whole
prompt passes whatever its model answered: forgetting is then the model's, not the endpoint's.

`BAKEOFF_SKIP_CONTEXT_CHECK=1` skips this preflight (docs/models.md); the runs then record their cut turns
`context_truncated` (uncaptured), never as the model's failures.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.errors import EndpointNotAnswering, PreflightFailed
from bakeoff.records import ModelEntry
from bakeoff.runner.model_entries import spec_of

SKIP_ENV = "BAKEOFF_SKIP_CONTEXT_CHECK"
CODE_WORD = "MARIGOLD"
_FACT = f"Remember this fact, you will be asked for it at the end: the code word is {CODE_WORD}.\n\n"
_QUESTION = "\n\nWhat is the code word given at the very start of this message? Answer with the code word only."
_FILLER = "Note {n}: the weather report for this day lists a light wind, scattered clouds and no rain.\n"


class ContextTooSmall(PreflightFailed):
    """An endpoint cuts, refuses or forgets a prompt as long as the plan's context: every long turn would be lost."""


@dataclass(frozen=True)
class ContextCheck:
    """What the probe sends: the longest prompt a stage may send, and the context the plan asks for."""

    prompt_chars: int
    context_tokens: int
    timeout_s: float

    def check(self, model: ModelEntry) -> None:
        check_context_kept(model, self.prompt_chars, self.context_tokens, self.timeout_s)


def context_check_for(settings, stages: Iterable[str]) -> ContextCheck | None:
    """The probe for a task's settings (bakeoff.taskapi.spec.TaskSettings), None when the user skips it."""
    if context_check_skipped():
        return None
    chars = max(settings.prompt_budget_chars(stage) for stage in stages)
    return ContextCheck(chars, settings.context_tokens, settings.model_timeout_s)


def context_check_skipped() -> bool:
    """True when the user asked to run past the context check (BAKEOFF_SKIP_CONTEXT_CHECK=1)."""
    return os.environ.get(SKIP_ENV, "").strip() not in ("", "0")


def probe_prompt(chars: int) -> str:
    """A prompt of about `chars` characters (never more): the fact, numbered filler notes, the question."""
    room = max(0, chars - len(_FACT) - len(_QUESTION))
    notes: list[str] = []
    used = 0
    while True:
        note = _FILLER.format(n=len(notes) + 1)
        if used + len(note) > room:
            break
        notes.append(note)
        used += len(note)
    return _FACT + "".join(notes) + _QUESTION


def fix_for(context_tokens: int) -> str:
    """How to give a server the context the plan needs (or to run past the check)."""
    return (f"give the server a context of at least {context_tokens} tokens (the plan's context_tokens): "
            f"llama-server -c {context_tokens} (times --parallel, which shares it among its slots); vLLM "
            f"--max-model-len {context_tokens}; Ollama's OpenAI-compatible endpoint cannot set it, so set num_ctx in "
            f"its native API's options or PARAMETER num_ctx {context_tokens} in a Modelfile (or OLLAMA_CONTEXT_LENGTH); "
            f"or lower context_tokens in [task_settings]. {SKIP_ENV}=1 runs past this check, and the cut turns are "
            "recorded context_truncated (uncaptured)")


def check_context_kept(model: ModelEntry, prompt_chars: int, context_tokens: int, timeout_s: float) -> None:
    """Refuse (ContextTooSmall) an endpoint that does not read a `prompt_chars`-long prompt whole."""
    from bakeoff.models.registry import open_backend
    from bakeoff.models.truncation import CONTEXT_TRUNCATED, truncation_of

    spec = spec_of(model)
    backend = open_backend(spec, model.opening_options(context_tokens))
    try:
        settings = GenerationSettings(max_tokens=16, temperature=0.0, seed=0, timeout_s=timeout_s)
        completion = backend.chat([Message("user", probe_prompt(prompt_chars))], key="context-check#1", settings=settings)
    finally:
        backend.close()
    where = f"model {model.label}: {spec.target}"
    if completion.error_kind == CONTEXT_TRUNCATED:
        raise ContextTooSmall(f"{where} refused a prompt as long as the plan's context, so its long turns would be "
                              f"truncated ({completion.error}); {fix_for(context_tokens)}")
    if completion.error is not None:
        raise EndpointNotAnswering(f"{where} did not answer the context check's long prompt: {completion.error}")
    cut = truncation_of(completion)
    if cut is not None:
        raise ContextTooSmall(f"{where} truncated a prompt as long as the plan's context: {cut}; "
                              f"{fix_for(context_tokens)}")
    if completion.prompt_tokens <= 0 and CODE_WORD not in completion.text.upper():
        raise ContextTooSmall(f"{where} forgot the code word at the start of a prompt as long as the plan's context "
                              f"and reports no prompt tokens: it has likely truncated it; {fix_for(context_tokens)}")
