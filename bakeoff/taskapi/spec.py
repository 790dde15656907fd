"""A task as data: its statement, prompts, settings and repo template, read from task_specs/<name>/."""

from __future__ import annotations

import dataclasses
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from bakeoff.errors import BakeoffError, did_you_mean

MODEL_STAGES = ("explore", "decide", "implement", "repair", "docs")


class TaskSpecError(BakeoffError):
    """A task folder is missing, incomplete, or its settings are invalid."""


@dataclass(frozen=True)
class TaskSettings:
    """The knobs of one task; a plan's [task_settings] overrides any of them."""

    context_tokens: int = 16384
    chars_per_token: float = 3.0
    repair_turns: int = 1
    always_repair: bool = False
    temperature: float = 0.0
    model_timeout_s: float = 600.0
    feedback_chars: int = 3000
    max_tokens: Mapping[str, int] = field(default_factory=dict)
    timeouts_s: Mapping[str, float] = field(default_factory=dict)
    # Room for a reasoning model's thinking, per stage, on top of max_tokens (the answer's own budget).
    reasoning_tokens: Mapping[str, int] = field(default_factory=dict)
    # The task's own settings (the keys of its settings.toml that are not every task's), by name.
    own: Mapping[str, Any] = field(default_factory=dict)

    def max_tokens_for(self, stage: str) -> int:
        return int(self.max_tokens.get(stage, 1024))

    def reasoning_tokens_for(self, stage: str) -> int:
        return int(self.reasoning_tokens.get(stage, 0))

    def timeout_for(self, step: str) -> float:
        return float(self.timeouts_s.get(step, 600))

    def prompt_budget_chars(self, stage: str) -> int:
        """Characters a stage's prompt may fill: the context minus the room left for the answer."""
        generated = self.max_tokens_for(stage) + self.reasoning_tokens_for(stage)
        tokens = self.context_tokens - generated - 64  # 64: the chat template's own tokens
        return max(0, int(tokens * self.chars_per_token))


@dataclass(frozen=True)
class TaskSpec:
    name: str
    folder: Path
    system: str
    statement: str
    prompts: Mapping[str, str]
    settings: TaskSettings

    @property
    def template_dir(self) -> Path:
        return self.folder / "template"

    def render(self, prompt_name: str, **values: str) -> str:
        try:
            return Template(self.prompts[prompt_name]).substitute(values)
        except KeyError as exc:
            raise TaskSpecError(f"prompt {prompt_name!r} of task {self.name!r} needs {exc}") from None


def task_specs_root() -> Path:
    import task_specs

    return Path(task_specs.__file__).resolve().parent


COMMON_SETTINGS = tuple(f for f in dataclasses.fields(TaskSettings) if f.name != "own")


def settings_from_mapping(raw: Mapping[str, Any], own_settings: Mapping[str, Any] | None = None) -> TaskSettings:
    """The settings every task has and the task's own (`own_settings`: name -> default, whose type each value
    must have), each checked; an unknown name is refused with the known ones."""
    own_defaults = dict(own_settings or {})
    known = {f.name for f in COMMON_SETTINGS} | set(own_defaults)
    unknown = sorted(set(raw) - known)
    if unknown:
        raise TaskSpecError(f"unknown task setting(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}"
                            + did_you_mean(unknown, known))
    for field_ in COMMON_SETTINGS:
        if field_.name in raw:
            _check_setting(field_.name, str(field_.type), raw[field_.name])
    own = {name: raw.get(name, default) for name, default in own_defaults.items()}
    for name, value in own.items():
        _check_setting(name, type(own_defaults[name]).__name__, value)
    common = {key: value for key, value in raw.items() if key not in own_defaults}
    return TaskSettings(**common, own=own)


def is_number(value: Any, whole: bool) -> bool:
    """A plan's number: an int (or a float where not `whole`), never a bool, and finite (TOML reads `nan` and
    `inf`: either would pass a `> 0` check, or fail none, and break the batch after its folder was made)."""
    kind = int if whole else (int, float)
    return not isinstance(value, bool) and isinstance(value, kind) and math.isfinite(value)


def _check_setting(name: str, kind: str, value: Any) -> None:
    """Each setting has its field's type; counts may be 0 (repair_turns), the rest are positive."""
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind in ("int", "float"):
        ok = is_number(value, kind == "int") and (value > 0 or (value == 0 and name in ("repair_turns", "temperature")))
    else:  # a table of per-stage numbers
        whole = kind.endswith("int]")
        least = 0 if name == "reasoning_tokens" else 1  # no room for reasoning is a valid choice (the demo's)
        ok = isinstance(value, Mapping) and all(is_number(v, whole) and v >= least for v in value.values())
    if not ok:
        raise TaskSpecError(f"bad task setting {name} = {value!r}: expected {kind}" + ("" if kind == "bool" else " > 0"))


def merge_settings(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Overrides win key by key; nested tables (max_tokens, timeouts_s) merge one level deep."""
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def load_task(name: str, overrides: Mapping[str, Any] | None = None, root: Path | None = None) -> TaskSpec:
    """The task folder's statement, prompts and settings (its settings.toml, then the plan's overrides).

    A key of settings.toml that is none of the settings every task has is the task's own: its value there is
    its default, and a plan's override must have that value's type.
    """
    folder = (root or task_specs_root()) / name
    if not folder.is_dir():
        raise TaskSpecError(f"no task named {name!r} (looked in {folder.parent})")
    try:
        system = (folder / "system.md").read_text(encoding="utf-8")
        statement = (folder / "statement.md").read_text(encoding="utf-8")
        raw_settings = tomllib.loads((folder / "settings.toml").read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise TaskSpecError(f"task {name!r} is incomplete: {exc.filename} is missing") from None
    prompts = {p.stem: p.read_text(encoding="utf-8") for p in sorted((folder / "prompts").glob("*.md"))}
    missing = [s for s in MODEL_STAGES if s not in prompts]
    if missing:
        raise TaskSpecError(f"task {name!r} has no prompt for: {', '.join(missing)}")
    common = {f.name for f in COMMON_SETTINGS}
    own = {key: value for key, value in raw_settings.items() if key not in common}
    settings = settings_from_mapping(merge_settings(raw_settings, overrides or {}), own)
    return TaskSpec(name, folder, system, statement, prompts, settings)
