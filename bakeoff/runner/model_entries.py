"""A plan's model entry: its reasoning mode and its own backend options, and the context check.

A model entry in a plan may be a table:

    [[models]]
    spec = "gguf:/models/qwen3-8b.Q4_K_M.gguf"
    reasoning = "off"        # default, off, low, medium, high
    n_ctx = 32768            # this model's own options win over [model_options]
    n_gpu_layers = 28

The same file with reasoning on and off is two models of one batch: their
labels differ (`-reasoning-off` is added unless a label is given).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bakeoff.models.errors import BackendOptionInvalid, ModelSpecError
from bakeoff.models.registry import OPTIONS_READ_BY, check_plan_option, spec_kind
from bakeoff.runner.plan import PlanError

REASONING_MODES = ("default", "off", "low", "medium", "high")
# Backend options a model entry may carry itself (types and ranges: bakeoff.models.registry.PLAN_OPTIONS).
ENTRY_OPTIONS = ("n_ctx", "n_gpu_layers", "n_threads", "n_threads_batch", "server", "api_key_env", "max_retries",
                 "engine", "max_concurrent")
ENTRY_KEYS = {"spec", "label", "reasoning", *ENTRY_OPTIONS}


# `bakeoff demo` runs the 135M default model: a 4K context and answer budgets it can fill, no reasoning room.
DEMO_TASK_SETTINGS = {
    "context_tokens": 4096,
    "max_tokens": {"explore": 700, "decide": 700, "implement": 1400, "repair": 1400, "docs": 600},
    "reasoning_tokens": {"explore": 0, "decide": 0, "implement": 0, "repair": 0, "docs": 0},
}


class ModelEntryError(PlanError):
    """A model entry of a plan that names an unknown key, mode or option value."""


def reasoning_of(item: Mapping[str, Any]) -> str:
    mode = item.get("reasoning", "default")
    if mode not in REASONING_MODES:
        raise ModelEntryError(f"model {item.get('spec')!r}: reasoning must be one of {', '.join(REASONING_MODES)}, got {mode!r}")
    return mode


def options_of(item: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The entry's own backend options, checked, as sorted pairs (hashable, stable in the plan's hash)."""
    unknown = sorted(set(item) - ENTRY_KEYS)
    if unknown:
        raise ModelEntryError(
            f"model {item.get('spec')!r}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(ENTRY_KEYS))}"
        )
    read = _options_read(item)
    options = []
    for name in ENTRY_OPTIONS:
        if name not in item:
            continue
        try:
            check_plan_option(name, item[name])
        except BackendOptionInvalid as exc:
            raise ModelEntryError(f"model {item.get('spec')!r}: {exc}") from None
        if read is not None and name not in read:
            raise ModelEntryError(f"model {item.get('spec')!r}: {name} is not an option of its backend, "
                                  f"which reads {', '.join(sorted(read & set(ENTRY_OPTIONS)))}")
        options.append((name, item[name]))
    return tuple(sorted(options))


def _options_read(item: Mapping[str, Any]) -> frozenset[str] | None:
    """The options the entry's backend reads; None for one that reads any (scripted stands in for every
    kind) and for a spec that names no backend (refused with its own message when the model is opened)."""
    try:
        return OPTIONS_READ_BY.get(spec_kind(str(item.get("spec"))))
    except ModelSpecError:
        return None


def default_label(base: str, reasoning: str) -> str:
    return base if reasoning == "default" else f"{base}-reasoning-{reasoning}"


def backend_options(model_options: Mapping[str, Any], entry_options: tuple[tuple[str, Any], ...], reasoning: str,
                    context_tokens: int) -> dict[str, Any]:
    """What a model is opened with: [model_options], then its own options, its reasoning mode;
    a gguf model is loaded with the task's context unless n_ctx is given."""
    merged: dict[str, Any] = {"n_ctx": context_tokens, **dict(model_options), **dict(entry_options)}
    if reasoning != "default":
        merged["reasoning"] = reasoning
    return merged


def check_context(models, model_options: Mapping[str, Any], settings, stages) -> None:
    """Refuse, before the batch starts, a reasoning mode a model has no switch for, a model whose
    context is smaller than the task's budget, and a task whose generation budget leaves a stage no
    room for its prompt."""
    from bakeoff.models.registry import check_reasoning_mode

    for model in models:
        server = dict(model.options).get("server", model_options.get("server", ""))
        check_reasoning_mode(model.spec, model.reasoning, server)  # a mode the model has no switch for
        n_ctx = dict(model.options).get("n_ctx", model_options.get("n_ctx"))
        if n_ctx is not None and n_ctx < settings.context_tokens:
            raise PlanError(
                f"model {model.label}: n_ctx = {n_ctx} is smaller than the task's context budget "
                f"(context_tokens = {settings.context_tokens}): raise n_ctx, or lower context_tokens in [task_settings]"
            )
    for stage in stages:
        generated = settings.max_tokens_for(stage) + settings.reasoning_tokens_for(stage)
        if settings.prompt_budget_chars(stage) <= 0:
            raise PlanError(
                f"stage {stage}: max_tokens + reasoning_tokens = {generated} leaves no room for the prompt "
                f"in context_tokens = {settings.context_tokens}"
            )
