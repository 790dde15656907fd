"""The staged scaffold's plug-in: the six fixed stages (bakeoff.scaffolds.staged.stages), a plan's default."""

from __future__ import annotations

from collections.abc import Mapping

from bakeoff.records import STAGE_NAMES, Stage
from bakeoff.runner.scaffold import Scaffold, StageFunction, StageServices
from bakeoff.scaffolds.staged.stages import stage_functions

__all__ = ["Staged"]


class Staged(Scaffold):
    """The six fixed stages: a run's default (bakeoff.records.DEFAULT_SCAFFOLD)."""

    name = "staged"
    stages = STAGE_NAMES
    code_stage = Stage.IMPLEMENT.value
    interaction = "agentic"  # its stages run the model's code and show it what came of it

    def stage_functions(self, services: StageServices) -> Mapping[str, StageFunction]:
        return stage_functions(services.evaluate_hooks)
