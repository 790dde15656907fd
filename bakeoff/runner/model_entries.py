"""A plan's model entry: its reasoning mode and its own backend options, and the context check.

A model entry in a plan may be a table:

    [[models]]
    spec = "gguf:/models/qwen3-8b.Q4_K_M.gguf"
    reasoning = "off"        # default, off, low, medium, high
    n_ctx = 32768            # this model's own options win over [model_options]
    n_gpu_layers = 28

An API control may carry its provider's prices, US dollars per million tokens, for the report's money:

    [[models]]
    spec = "openai:https://api.example.com/v1#big-model"
    price = { input = 3.0, cached_input = 0.3, output = 15.0 }

The same file with reasoning on and off is two models of one batch: their
labels differ (`-reasoning-off` is added unless a label is given).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bakeoff.errors import did_you_mean
from bakeoff.models.errors import BackendOptionInvalid
from bakeoff.models.kinds import kind_of
from bakeoff.models.options import check_plan_option
from bakeoff.models.spec import ModelSpec, label_for_spec, parse_spec
from bakeoff.records.plan import ModelEntry, PlanError, Price, backend_options

if TYPE_CHECKING:
    from bakeoff.models.discovery import ModelPlaces

REASONING_MODES = ("default", "off", "low", "medium", "high")
# Backend options a model entry may carry itself (types and ranges: bakeoff.models.options.PLAN_OPTIONS).
ENTRY_OPTIONS = ("n_ctx", "n_gpu_layers", "n_threads", "n_threads_batch", "server", "api_key_env", "max_retries",
                 "engine", "max_concurrent")
ENTRY_KEYS = {"spec", "label", "reasoning", "price", *ENTRY_OPTIONS}
PRICE_KEYS = ("input", "cached_input", "output")
# A label names files (runs/<label>-rNN/, transcripts/<label>-rNN.html): well inside a file name's 255 bytes.
MAX_LABEL = 64
LABEL_PATTERN = rf"[A-Za-z0-9._-]{{1,{MAX_LABEL}}}"


# `bakeoff demo` runs the 135M default model: a 4K context and answer budgets it can fill, no reasoning room.
DEMO_TASK_SETTINGS = {
    "context_tokens": 4096,
    "max_tokens": {"explore": 700, "decide": 700, "implement": 1400, "repair": 1400, "docs": 600},
    "reasoning_tokens": {"explore": 0, "decide": 0, "implement": 0, "repair": 0, "docs": 0},
}


class ReviewOnlyReader(PlanError):
    """A plan names `baseline:cues`, the review benchmark's surface reader: it cannot do a take-home."""


class ModelEntryError(PlanError):
    """A model entry of a plan that names an unknown key, mode or option value."""


def reasoning_of(item: Mapping[str, Any]) -> str:
    mode = item.get("reasoning", "default")
    if mode not in REASONING_MODES:
        raise ModelEntryError(f"model {item.get('spec')!r}: reasoning must be one of {', '.join(REASONING_MODES)}, got {mode!r}")
    return mode


def options_of(item: Mapping[str, Any], spec: ModelSpec) -> tuple[tuple[str, Any], ...]:
    """The entry's own backend options, checked against its spec's kind, as sorted pairs (hashable, stable in the
    plan's hash)."""
    unknown = sorted(set(item) - ENTRY_KEYS)
    if unknown:
        raise ModelEntryError(
            f"model {item.get('spec')!r}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(ENTRY_KEYS))}"
            + did_you_mean(unknown, ENTRY_KEYS)
        )
    read = kind_of(spec).options  # None: a kind that reads any (scripted stands in for every kind)
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


def price_of(item: Mapping[str, Any], label: str) -> Price | None:
    """The entry's `price` table (None without one): input and output required, every price a finite number at
    least 0 (ModelEntryError naming what is wrong)."""
    if "price" not in item:
        return None
    table, where = item["price"], f"model {label}: price"
    if not isinstance(table, Mapping):
        raise ModelEntryError(f"{where} is a table, e.g. price = {{ input = 3.0, output = 15.0 }}, got {table!r}")
    unknown = sorted(set(table) - set(PRICE_KEYS))
    missing = [name for name in ("input", "output") if name not in table]
    if unknown or missing:
        raise ModelEntryError(f"{where} takes {', '.join(PRICE_KEYS)} (US dollars per million tokens); "
                              + (f"unknown: {', '.join(unknown)}" if unknown else f"missing: {', '.join(missing)}"))
    for name, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf"):
            raise ModelEntryError(f"{where}.{name} must be a number of dollars at least 0, got {value!r}")
    return Price(float(table["input"]), float(table["output"]),
                 float(table["cached_input"]) if "cached_input" in table else None)


def _spec(text: str, base_dir: Path, places: ModelPlaces | None) -> ModelSpec:
    """The entry's spec, parsed once here, its file's path made absolute against `base_dir` (the plan file's
    folder, as the corpus is), a short name (hf:, ollama-file:) resolved to its file in `places`: a bad one is the
    user's to fix before hours of runs, not a failed run. batch.json keeps the absolute form, so a resume from
    another folder finds the same files."""
    from bakeoff.review.reviewers import is_cues_spec

    if is_cues_spec(text):
        raise ReviewOnlyReader(f"{text!r} reads review items only and cannot do a take-home; "
                               "use it with `bakeoff review --model baseline:cues`")
    parsed = parse_spec(text)
    kind = kind_of(parsed)
    return kind.absolute(kind.resolve(parsed, places), base_dir)


def _entry(item: Any, base_dir: Path,
           places: ModelPlaces | None) -> tuple[str, ModelSpec, str, tuple[tuple[str, Any], ...]]:
    """(label, spec, reasoning, own options) of one `models` item: a spec string or a table."""
    if isinstance(item, str):
        return label_for_spec(item)[:MAX_LABEL], _spec(item, base_dir, places), "default", ()  # a long file name is cut
    if isinstance(item, Mapping) and isinstance(item.get("spec"), str):
        reasoning, spec = reasoning_of(item), _spec(item["spec"], base_dir, places)
        options = options_of(item, spec)
        label = str(item.get("label") or default_label(label_for_spec(item["spec"])[:MAX_LABEL - 20], reasoning))
        if not re.fullmatch(LABEL_PATTERN, label):
            shown = label if len(label) <= 80 else label[:77] + "..."
            raise PlanError(f"model label {shown!r} may hold only letters, digits, '.', '_' and '-', "
                            f"at most {MAX_LABEL} of them")
        return label, spec, reasoning, options
    raise PlanError(f"a model is a spec string or a table with 'spec' (and 'label'): got {item!r}")


def models_from(raw: Any, model_options: Mapping[str, Any], base_dir: Path,
                places: ModelPlaces | None = None) -> tuple[ModelEntry, ...]:
    """The plan's models, each with its spec parsed and the BackendOptions it is opened with (shared
    [model_options] and its own, merged and checked here, once); relative model files are read against
    `base_dir`, short names (hf:, ollama-file:) resolved in `places` (None: a short name is refused)."""
    if not isinstance(raw, list) or not raw:
        raise PlanError("the plan must name at least one model: models = [\"default\"]")
    entries = []
    for item in raw:
        label, spec, reasoning, options = _entry(item, base_dir, places)
        try:
            backend = backend_options(model_options, options, reasoning)
            kind_of(spec).check_options(spec, backend)
        except BackendOptionInvalid as exc:
            raise PlanError(f"model {label}: {exc}") from None
        price = price_of(item, label) if isinstance(item, Mapping) else None
        entries.append(ModelEntry(label, spec.text, reasoning, options, backend, spec, price))
    labels = [e.label for e in entries]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise PlanError(f"two models share the label {', '.join(duplicates)}; give each a distinct 'label'")
    return tuple(entries)


def spec_of(model: ModelEntry) -> ModelSpec:
    """The entry's parsed spec: parsed when its plan was loaded; an entry read back from batch.json (or made by
    hand) is parsed here."""
    return model.parsed if model.parsed is not None else parse_spec(model.spec)


def default_label(base: str, reasoning: str) -> str:
    return base if reasoning == "default" else f"{base}-reasoning-{reasoning}"


def check_context(models, model_options: Mapping[str, Any], settings, stages) -> None:
    """Refuse, before the batch starts, a reasoning mode a model has no switch for, a model whose
    context is smaller than the task's budget, and a task whose generation budget leaves a stage no
    room for its prompt."""
    from bakeoff.models.registry import check_reasoning_mode

    for model in models:
        # its own options over [model_options], typed (made where the plan was loaded, or here for a record's entry)
        options = model.backend or backend_options(model_options, model.options, model.reasoning)
        check_reasoning_mode(spec_of(model), model.reasoning, options.server)  # a mode the model has no switch for
        n_ctx = options.n_ctx
        if n_ctx is not None and n_ctx < settings.context_tokens:
            raise PlanError(
                f"model {model.label}: n_ctx = {n_ctx} is smaller than the task's context budget "
                f"(context_tokens = {settings.context_tokens}): raise n_ctx, or lower context_tokens in [task_settings]"
            )
    for stage in stages:
        if settings.prompt_budget_chars(stage) <= 0:
            raise PlanError(budget_message(settings, stage))


def budget_message(settings, stage: str) -> str:
    """Why a stage's prompt has no room, and where to change it: the reasoning budget is set aside for every model,
    one that does not reason too, and a user who never wrote it does not know it is there (6,144 tokens for
    implement by default)."""
    answer, reasoning = settings.max_tokens_for(stage), settings.reasoning_tokens_for(stage)
    return (f"stage {stage}: max_tokens + reasoning_tokens = {answer:,} + {reasoning:,} = {answer + reasoning:,} "
            f"tokens leaves no room for the prompt in context_tokens = {settings.context_tokens:,}. The reasoning "
            f"budget (reasoning_tokens.{stage} = {reasoning:,}, the task's default unless the plan sets it) is set "
            f"aside for every model, also one that does not reason. Lower it in the plan ([task_settings."
            f"reasoning_tokens] {stage} = 0 for a model that does not reason), lower [task_settings.max_tokens] "
            f"{stage}, or raise context_tokens in [task_settings] (and the model's n_ctx with it)")
