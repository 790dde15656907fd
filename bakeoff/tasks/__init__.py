"""The take-homes: one package per task (spam/, ab_test/, simulation/) and the registry that finds a task by name.

This is the top of the library: the command line resolves a task here once and hands it down to the runner,
the analysis and the report, which never look a task up themselves.
"""

from bakeoff.taskapi.parts import EvaluateHook
from bakeoff.taskapi.plugin import GenerateRequest
from bakeoff.taskapi.score import ScoreReport, ScoreRequest, score
from bakeoff.taskapi.task import Task
from bakeoff.tasks.registry import (
    DEFAULT_TASK,
    UnknownTask,
    plugin_for_batch,
    report_batch,
    run_plan,
    task_names,
    task_plugin,
)

__all__ = [
    "DEFAULT_TASK", "EvaluateHook", "GenerateRequest", "ScoreReport", "ScoreRequest", "Task", "UnknownTask",
    "plugin_for_batch", "report_batch", "run_plan", "score", "task_names", "task_plugin",
]
