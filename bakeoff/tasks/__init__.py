"""Take-homes as plug-ins: `task_plugin(name)` gives what the harness needs to run and grade one task."""

from bakeoff.tasks.base import EvaluateHook, GenerateRequest, ScoreReport, ScoreRequest, TaskPlugin
from bakeoff.tasks.registry import UnknownTask, task_names, task_plugin

__all__ = [
    "EvaluateHook", "GenerateRequest", "ScoreReport", "ScoreRequest", "TaskPlugin", "UnknownTask", "task_names",
    "task_plugin",
]
