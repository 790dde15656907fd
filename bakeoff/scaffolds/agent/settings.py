"""The agent's budgets and limits: a plan's [scaffold_settings.agent] table over these defaults."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bakeoff.runner.scaffold import ScaffoldRefusesTask, ScaffoldSettingsError
from bakeoff.taskapi.spec import TaskSettings, TaskSpec, is_number

AGENT_PROMPT = "agent"  # task_specs/<task>/prompts/agent.md: what the task wants the agent to leave behind


@dataclass(frozen=True)
class AgentSettings:
    """Budgets (each ends the loop when spent, and is recorded as what ended it) and per-step limits."""

    max_steps: int = 30  # model turns
    max_tokens: int = 200_000  # generated over the loop: answers and reasoning
    wall_s: float = 3600.0  # the loop's wall-clock seconds (model, sandbox and harness)
    cpu_s: float = 1800.0  # sandbox CPU seconds of the agent's own commands
    step_tokens: int = 4096  # one answer's budget (a whole script fits in a write_file call)
    step_reasoning_tokens: int = 4096  # room to reason on top, for a model that reasons
    run_timeout_s: float = 0.0  # one `run` command; 0: the task's longest step timeout
    output_chars: int = 0  # what a tool result shows (head and tail); 0: the task's feedback_chars
    read_chars: int = 12_000  # what read_file shows of a file
    file_bytes: int = 1 << 20  # the largest file write_file writes

    def budgets(self) -> dict[str, float]:
        return {"steps": self.max_steps, "tokens": self.max_tokens, "wall_s": self.wall_s, "cpu_s": self.cpu_s}

    def run_timeout(self, task: TaskSettings) -> float:
        return self.run_timeout_s or max([float(v) for v in task.timeouts_s.values()] or [600.0])

    def shown_chars(self, task: TaskSettings) -> int:
        return self.output_chars or int(task.feedback_chars)

    def prompt_budget_chars(self, task: TaskSettings) -> int:
        """Characters the conversation may fill: the context less one step's answer and reasoning."""
        tokens = task.context_tokens - self.step_tokens - self.step_reasoning_tokens - 64
        return max(0, int(tokens * task.chars_per_token))


_FIELDS = {f.name: f for f in dataclasses.fields(AgentSettings)}


def agent_settings(raw: Mapping[str, Any]) -> AgentSettings:
    """The plan's table, checked: known keys, numbers of the right kind (counts whole), positive (0 means the
    task's own value where the default is 0; no reasoning room is a valid choice)."""
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        raise ScaffoldSettingsError(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(_FIELDS)}")
    for name, value in raw.items():
        whole = _FIELDS[name].type in ("int", int)
        zero_ok = _FIELDS[name].default == 0 or name == "step_reasoning_tokens"  # no room to reason is a choice
        if not is_number(value, whole) or value < 0 or (value == 0 and not zero_ok):
            kind = "a whole number" if whole else "a number"
            raise ScaffoldSettingsError(f"{name} must be {kind} > 0, got {value!r}")
    return AgentSettings(**dict(raw))


def check_agent(raw: Mapping[str, Any], task: TaskSpec) -> AgentSettings:
    """The settings, and a task the agent can take: its brief for an agent, and room for a prompt."""
    settings = agent_settings(raw)
    if AGENT_PROMPT not in task.prompts:
        raise ScaffoldRefusesTask(f"task {task.name} has no brief for an agent (task_specs/{task.name}/prompts/"
                                    f"{AGENT_PROMPT}.md): what the agent must leave behind")
    if settings.prompt_budget_chars(task.settings) <= 0:
        raise ScaffoldSettingsError(
            f"step_tokens + step_reasoning_tokens = {settings.step_tokens + settings.step_reasoning_tokens} leaves no "
            f"room for the conversation in context_tokens = {task.settings.context_tokens}")
    return settings
