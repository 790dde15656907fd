"""The executor a batch runs under, made from its settings (bakeoff.runner.executors.settings).

Apart from the settings module so that the executors may read their settings without importing each other.
"""

from __future__ import annotations

from bakeoff.runner.executors.common import Executor
from bakeoff.runner.executors.settings import ExecutorSettings


def make_executor(settings: ExecutorSettings) -> Executor:
    """The executor the settings name; the Ray one is imported only when asked for."""
    if settings.kind == "ray":
        from bakeoff.runner.executors.ray_driver import RayExecutor

        return RayExecutor(settings)
    from bakeoff.runner.executors.local import LocalExecutor

    return LocalExecutor(settings.parallel)
