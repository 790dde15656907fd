"""The agent scaffold's plug-in: its loop (`agent`), then evaluate as every run has it (the README read too: the
agent writes it during the loop)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bakeoff.records import Stage, StepReader
from bakeoff.runner.scaffold import Scaffold, StageFunction, StageServices
from bakeoff.runner.scaffold_kit import make_evaluate
from bakeoff.scaffolds.agent.loop import STAGE, make_agent_stage
from bakeoff.scaffolds.agent.records import StepRecord
from bakeoff.scaffolds.agent.settings import agent_settings, check_agent
from bakeoff.scaffolds.agent.tools import TOOLS
from bakeoff.taskapi.spec import TaskSpec


class Agent(Scaffold):
    name = "agent"
    stages = (STAGE, Stage.EVALUATE.value)  # its loop, then the evaluate every run has
    step_stage = STAGE  # the loop writes a step record per step (scaffolds.agent.records.StepRecord)
    code_stage = STAGE  # the loop writes the code
    tools = TOOLS
    interaction = "agentic"  # a model that acts through tools, step by step
    tool_sandbox = True  # its commands see the visible data alone; the hidden inputs are the check's
    # The demo's 4K context: answers the default model can fill, no room to reason, a short loop.
    demo_settings = {"max_steps": 6, "step_tokens": 700, "step_reasoning_tokens": 0, "max_tokens": 5000,
                     "wall_s": 1800.0, "cpu_s": 600.0}

    def step_reader(self) -> StepReader:
        return StepRecord.from_json

    def stage_functions(self, services: StageServices) -> Mapping[str, StageFunction]:
        settings = agent_settings(services.settings)
        return {STAGE: make_agent_stage(settings, services),
                Stage.EVALUATE: make_evaluate(services.evaluate_hooks, include_readme=True)}

    def check_settings(self, settings: Mapping[str, Any], task: TaskSpec) -> None:
        check_agent(settings, task)
