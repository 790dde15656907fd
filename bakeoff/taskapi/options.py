"""The options a task adds to `bakeoff generate`, `calibrate`, `analyze` and `score`, declared by the task.

The command line builds each command's task part from the chosen task's declaration (bakeoff.cli.task_options);
the core holds no option of any task. An option of another task is refused by name (OptionNotForTask).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bakeoff.errors import BakeoffError

# What a task option's value can be: a number, a word, a flag, a repeated choice; None where not given.
OptionValue = int | float | str | bool | tuple[str, ...] | None
OptionValues = Mapping[str, OptionValue]


class OptionNotForTask(BakeoffError):
    """An option of one take-home (`bakeoff generate`, `calibrate`, `analyze` or `score`) given for another."""


@dataclass(frozen=True)
class TaskOption:
    """One option of a command that belongs to a task: --NAME (underscores as dashes, or `flag`), its type
    (bool: a flag), its help, its default (None: left to the task, whose default the help names), and for a
    word the choices it takes (`multiple`: repeatable) or for a number its bounds."""

    name: str  # the Python name the task reads, e.g. holdout_rows
    kind: type[int] | type[float] | type[str] | type[bool]
    help: str
    default: OptionValue = None
    flag: str = ""  # --NAME by default
    choices: tuple[str, ...] = ()
    multiple: bool = False
    low: int | None = None
    high: int | None = None
    metavar: str | None = None

    @property
    def flag_name(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")


GenerateOption = TaskOption  # the name `bakeoff generate`'s options had


@dataclass(frozen=True)
class TaskOptions:
    """A task's options per command, and the small data `bakeoff demo` makes (generate's options, in words)."""

    generate: tuple[TaskOption, ...] = ()
    calibrate: tuple[TaskOption, ...] = ()
    analyze: tuple[TaskOption, ...] = ()
    score: tuple[TaskOption, ...] = ()
    demo: Mapping[str, int | float] = field(default_factory=dict)
    demo_words: str = ""  # how big the demo's data is; "" says the demo options

    def for_command(self, command: str) -> tuple[TaskOption, ...]:
        """The options of `bakeoff COMMAND` (generate, calibrate, analyze, score)."""
        return {"generate": self.generate, "calibrate": self.calibrate, "analyze": self.analyze,
                "score": self.score}[command]

    def demo_description(self) -> str:
        return self.demo_words or ", ".join(f"{key} {value}" for key, value in self.demo.items()) or "small"
