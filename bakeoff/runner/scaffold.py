"""The scaffold interface: how a run drives its model through the task (the seam the tasks have).

A scaffold is a list of stages, each a function `(ctx, clock, done) -> StageOutcome` whose record the runner
writes (bakeoff.runner.run), built from what every scaffold shares (bakeoff.runner.scaffold_kit). Each lives in
its own package under bakeoff/scaffolds/ with one line in its registry; the command line resolves a plan's
scaffolds by name, once, and hands them down (BatchEnv.scaffolds). The runner and the readers of a run know none
by name: what they need of one (its stages, the stage whose answer is the code, the stage that writes step
records) they ask of it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from bakeoff.errors import BakeoffError
from bakeoff.records import StepReader
from bakeoff.runner.scaffold_kit import StageFunction

if TYPE_CHECKING:
    from bakeoff.batchfolder.files import WriteCounter
    from bakeoff.models.tools import ToolSpec
    from bakeoff.taskapi.parts import EvaluateHook
    from bakeoff.taskapi.spec import TaskSpec

__all__ = ["EventLog", "Scaffold", "ScaffoldRefusesTask", "ScaffoldSettingsError", "StageFunction", "StageServices",
           "refuse_step_writers_on_ray", "step_writers"]


class ScaffoldSettingsError(BakeoffError):
    """A plan's [scaffold_settings.NAME] table that its scaffold refuses (an unknown key, a bad value)."""


class ScaffoldRefusesTask(ScaffoldSettingsError):
    """A scaffold that cannot drive the plan's task whatever its settings (the task lacks what it needs)."""


class EventLog(Protocol):
    def append(self, event: str, **fields: Any) -> None: ...


@dataclass(frozen=True)
class StageServices:
    """What a scaffold's stages get beyond the run context: the batch's journal and write counter (a stage that
    writes its own records, a loop's steps, writes them durably through the batch folder's door), the plan's
    settings for this scaffold, the task's evaluate hooks, and where to say what the run is doing."""

    journal: EventLog
    counter: WriteCounter
    settings: Mapping[str, Any] = field(default_factory=dict)
    evaluate_hooks: Mapping[str, EvaluateHook] = field(default_factory=dict)
    on_activity: Callable[[str], None] = field(default=lambda _: None)


class Scaffold(ABC):
    """One way of driving a run. Subclasses set the class attributes and implement `stage_functions`."""

    name: ClassVar[str]
    stages: ClassVar[tuple[str, ...]]  # its stage records, in order (stages/<n>-<stage>.json)
    # Its stages run commands of the model's in a sandbox of the visible data alone (RunContext.tool_sandbox);
    # the grading sandbox, with the task's hidden inputs, is the check's.
    tool_sandbox: ClassVar[bool] = False
    # Its settings for `bakeoff demo` (the 135M default model in a 4K context).
    demo_settings: ClassVar[Mapping[str, Any]] = {}
    # The stage that writes its work step by step (runs/<id>/steps/NNN.json, read as bakeoff.records.LoopStep)
    # before its stage record: a loop's. None: its stages write stage records alone. The readers of a run (status,
    # transcript, export, loops, the Ray executor's hand-back) ask this, never a scaffold's name.
    step_stage: ClassVar[str | None] = None
    # The stage whose answer is the submission's code (an uncaptured answer there leaves nothing to grade, a harness
    # error there fails the run). None: its first stage.
    code_stage: ClassVar[str | None] = None
    # Its kind of interaction in Every Eval Ever's words (their records' `interaction_type`): each scaffold says it.
    interaction: ClassVar[str]
    # The tools its stages offer the model (`bakeoff models ask --tools NAME` offers them alone).
    tools: ClassVar[tuple[ToolSpec, ...]] = ()

    def step_reader(self) -> StepReader | None:
        """The decoder of its step records (its own class's), handed to the readers of a run; None: it writes none."""
        return None

    def stage_of_code(self) -> str:
        """The stage whose answer is the code (`code_stage`, else the first)."""
        return self.code_stage or self.stages[0]

    @abstractmethod
    def stage_functions(self, services: StageServices) -> Mapping[str, StageFunction]:
        """{stage: function} for every name in `stages`."""

    def check_settings(self, settings: Mapping[str, Any], task: TaskSpec) -> None:
        """Refuse, before a batch starts, settings this scaffold does not take (ScaffoldSettingsError); none by
        default, and a scaffold with no settings refuses every key."""
        if settings:
            raise ScaffoldSettingsError(f"scaffold {self.name} takes no settings; got {', '.join(sorted(settings))}")


def step_writers(scaffolds: Mapping[str, Scaffold]) -> list[str]:
    """The names of the scaffolds that write step records (Scaffold.step_stage)."""
    return [name for name, scaffold in scaffolds.items() if scaffold.step_stage is not None]


def refuse_step_writers_on_ray(scaffolds: Mapping[str, Scaffold]) -> None:
    """The Ray executor hands back stage records alone: a scaffold that writes step records runs locally."""
    from bakeoff.records import PlanError

    writers = step_writers(scaffolds)
    if writers:
        raise PlanError(f"the Ray executor runs staged runs only for now (it hands back stages, not the steps that "
                        f"{', '.join(writers)} writes); run those scaffolds with the local executor")
