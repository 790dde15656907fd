"""Tasks by name: the registry of plug-ins. Lookups import the plug-in's module only when it is asked for."""

from __future__ import annotations

from importlib import import_module

from bakeoff.errors import BakeoffError
from bakeoff.tasks.base import TaskPlugin

# name -> "module:Class". A third task adds one line here (docs/tasks.md, "Adding a task").
_PLUGINS: dict[str, str] = {
    "spam_classifier": "bakeoff.tasks.spam:SpamClassifier",
    "ab_test": "bakeoff.tasks.ab_test:AbTest",
}


DEFAULT_TASK = "spam_classifier"  # what a plan that names no task runs


class UnknownTask(BakeoffError):
    """A task name that no plug-in answers to."""


def task_names() -> tuple[str, ...]:
    return tuple(_PLUGINS)


def task_plugin(name: str) -> TaskPlugin:
    """The plug-in of the task `name`; UnknownTask naming the known ones otherwise."""
    target = _PLUGINS.get(name)
    if target is None:
        raise UnknownTask(f"no task named {name!r}; known tasks: {', '.join(task_names())}")
    module, cls = target.split(":")
    plugin = getattr(import_module(module), cls)()
    if not isinstance(plugin, TaskPlugin) or plugin.name != name:
        raise UnknownTask(f"{target} is not the plug-in of task {name!r}")
    return plugin
