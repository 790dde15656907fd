"""A command whose options are partly the chosen task's (`bakeoff generate`, `calibrate`, `analyze`, `score`).

The task is found before the options are parsed (from --task, the corpus's manifest or the batch folder, by the
command's own rule), and only its declared options (bakeoff.taskapi.options) join the command's: `--help` lists
those, and an option another task declares is refused by name (OptionNotForTask) rather than ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click
from click.core import ParameterSource

from bakeoff.errors import BakeoffError
from bakeoff.taskapi.options import OptionNotForTask, OptionValue, OptionValues, TaskOption
from bakeoff.tasks.registry import DEFAULT_TASK, task_names, task_plugin

_TASK = "bakeoff.task"  # where the chosen task's name is kept in the click context


def click_option(option: TaskOption) -> click.Option:
    """The click option a task's declared option is on the command line."""
    kind: Any = option.kind
    if option.choices:
        kind = click.Choice(option.choices)
    elif option.low is not None or option.high is not None:
        range_type = click.IntRange if option.kind is int else click.FloatRange
        kind = range_type(option.low, option.high)
    if option.kind is bool:
        return click.Option([option.flag_name, option.name], is_flag=True, default=bool(option.default),
                            help=option.help)
    return click.Option([option.flag_name, option.name], type=kind, default=option.default, multiple=option.multiple,
                        show_default=option.default is not None, metavar=option.metavar, help=option.help)


class TaskCommand(click.Command):
    """A click command that adds the options `task_of` picks from what was given (None: the default task)."""

    def __init__(self, *args: Any, command: str, task_of: Callable[[Mapping[str, Any]], str | None],
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.task_command, self.task_of = command, task_of

    def options_of(self, task: str) -> list[click.Option]:
        return [click_option(option) for option in task_plugin(task).options.for_command(self.task_command)]

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_TASK] = self._chosen(ctx, list(args))
        return super().parse_args(ctx, args)

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = super().get_params(ctx)
        task = ctx.meta.get(_TASK)
        return params if task is None else [*params[:-1], *self.options_of(task), *params[-1:]]

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_options(ctx, formatter)
        task = ctx.meta.get(_TASK)
        if task is not None and not self.options_of(task):
            formatter.write_paragraph()
            formatter.write_text(f"The task {task} adds no options to this command.")

    def _chosen(self, ctx: click.Context, args: list[str]) -> str:
        """The task the arguments choose; OptionNotForTask when they hold an option only another task declares."""
        every: dict[str, click.Option] = {}
        for name in task_names():
            for option in self.options_of(name):
                every.setdefault(str(option.name), option)
        peek = click.Command(self.name, params=[*self.params, *every.values()], add_help_option=False)
        seen = peek.make_context(self.name, args, parent=ctx.parent, resilient_parsing=True,
                                 ignore_unknown_options=True, allow_extra_args=True)
        try:
            task = self.task_of(seen.params) or DEFAULT_TASK
        except BakeoffError:  # said again, by name, when the command runs
            task = DEFAULT_TASK
        own = {str(option.name) for option in self.options_of(task)}
        foreign = [every[name].opts[0] for name in every
                   if name not in own and seen.get_parameter_source(name) == ParameterSource.COMMANDLINE]
        if foreign:
            raise OptionNotForTask(f"{', '.join(foreign)} do(es) not apply to --task {task}")
        return task


def task_option_values(command: str, task: str, given: Mapping[str, Any]) -> OptionValues:
    """The task's own options among a command's parameters, as the task reads them (a repeated one as a tuple)."""
    values: dict[str, OptionValue] = {}
    for option in task_plugin(task).options.for_command(command):
        value = given[option.name]  # click gives every declared option, None where not given
        values[option.name] = tuple(value) if isinstance(value, (list, tuple)) else value
    return values


def by_corpus(corpus_param: str) -> Callable[[Mapping[str, Any]], str | None]:
    """The rule of a command that takes a corpus: its manifest decides, --task only checks it
    (bakeoff.tasks.registry.corpus_task); --task alone where no corpus was given."""
    from bakeoff.tasks.registry import corpus_task

    def task_of(given: Mapping[str, Any]) -> str | None:
        corpus, asked = given.get(corpus_param), given.get("task")
        return corpus_task(corpus, asked) if corpus is not None else asked

    return task_of


def by_task_option(given: Mapping[str, Any]) -> str | None:
    """The rule of a command that makes a corpus: --task (its default the default task)."""
    return given.get("task")


class TaskChoice(click.Choice):
    """--task: the registered tasks' names, read from the registry when the command runs (its line is all a
    task adds), not when the command line is built."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return task_names()

    @choices.setter
    def choices(self, _: object) -> None:
        """click.Choice sets its choices once; these are the registry's."""
