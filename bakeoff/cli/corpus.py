"""`bakeoff generate` and `bakeoff calibrate`: a take-home's data (the spam corpus, the A/B-test experiments) and its references."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from bakeoff.errors import BakeoffError
from bakeoff.taskapi.plugin import GenerateOption, OptionNotForTask
from bakeoff.tasks.registry import DEFAULT_TASK, task_names, task_plugin
from bakeoff.textsafe import printable
from generators.errors import OutputFolderNotWritable

TASKS = task_names()


def task_options(command: Callable[..., None]) -> Callable[..., None]:
    """Every task's own `bakeoff generate` options, from the plug-ins (one option per name)."""
    seen: dict[str, GenerateOption] = {}
    for task in TASKS:
        for option in task_plugin(task).generate_options:
            seen.setdefault(option.name, option)
    for option in reversed(list(seen.values())):
        command = click.option(option.flag, option.name, type=option.kind, default=None, help=option.help)(command)
    return command


class InvalidSweepPoints(BakeoffError):
    """--sweep-points is not a comma-separated list of numbers."""


@click.command()
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path), help="Folder to write the corpus into.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the visible data; same seed and options give byte-identical visible files.")
@click.option("--secret-file", type=click.Path(path_type=Path), default=None,
              help="Draw the hidden part with the secret in this file (a corpus's secret.hex) instead of a fresh one.")
@click.option("--force", is_flag=True, help="Replace a non-empty output folder.")
@click.option("--task", type=click.Choice(TASKS), default=DEFAULT_TASK, show_default=True, help="Which take-home's data to generate.")
@task_options
def generate(out_dir: Path, seed: int, secret_file: Path | None, force: bool, task: str, **given: Any) -> None:
    """Generate a take-home's seeded data: the spam corpus (default) or the A/B-test experiments."""
    from rich.console import Console

    from bakeoff.tasks import GenerateRequest

    _refuse_other_tasks_options(task)
    plugin = task_plugin(task)
    own = {option.name: given[option.name] for option in plugin.generate_options}
    request = GenerateRequest(out_dir, seed, {name: value for name, value in own.items() if value is not None}, force,
                              secret_file)
    make_parent(out_dir)  # `--out corpora/default` in a fresh clone: the data is staged beside its folder
    with Console(stderr=True).status(f"generating {task} data") as status:
        summary = plugin.generate(request, progress=lambda step: status.update(step))
    click.echo(printable(summary))


def make_parent(out_dir: Path) -> None:
    try:
        out_dir.resolve().parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputFolderNotWritable(f"cannot make the folder above {out_dir}: {exc.strerror or exc}") from None


def _refuse_other_tasks_options(task: str) -> None:
    """An option of the other take-home would be silently ignored: refuse it by name instead."""
    from click.core import ParameterSource

    context = click.get_current_context()
    own = {option.name for option in task_plugin(task).generate_options}
    given = [option.name for other in TASKS if other != task for option in task_plugin(other).generate_options
             if option.name not in own and context.get_parameter_source(option.name) == ParameterSource.COMMANDLINE]
    if given:
        options = ", ".join("--" + name.replace("_", "-") for name in given)
        raise OptionNotForTask(f"{options} do(es) not apply to --task {task}")


def _parse_points(text: str | None) -> tuple[float, ...] | None:
    if text is None:
        return None
    try:
        return tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise InvalidSweepPoints(f"--sweep-points must be numbers separated by commas, got {text!r}") from None


@click.command()
@click.option("--corpus", "corpus_dir", required=True, type=click.Path(path_type=Path),
              help="A corpus folder written by `bakeoff generate`.")
@click.option("--sweep", is_flag=True, help="Also regenerate at several contamination settings and tabulate holdout F1.")
@click.option("--sweep-points", default=None,
              help="Comma-separated contamination settings for --sweep (default: 0.10,0.15,0.20, the calibrated default, 0.30).")
@click.option("--sweep-variant", "sweep_variants", multiple=True, type=click.Choice(["text_only", "careful", "careless"]),
              help="References run at each sweep point (repeatable; default: text_only).")
@click.option("--task", type=click.Choice(TASKS), default=None,
              help="Which take-home's references to run; default, and checked against: the corpus's manifest.")
def calibrate(corpus_dir: Path, sweep: bool, sweep_points: str | None, sweep_variants: tuple[str, ...],
              task: str | None) -> None:
    """Run a take-home's reference submissions; write calibration.json and print a table."""
    from rich.console import Console

    from bakeoff.tasks.registry import corpus_task
    from generators.calibration import write_calibration

    plugin = task_plugin(corpus_task(corpus_dir, task))
    with Console(stderr=True).status("calibrating") as status:
        calibration = plugin.calibrate(corpus_dir, lambda step: status.update(step), sweep=sweep,
                                       sweep_points=_parse_points(sweep_points), sweep_variants=sweep_variants)
    path = write_calibration(calibration, corpus_dir)
    console = Console()
    for renderable in plugin.calibration_tables(calibration):
        console.print(renderable)
    click.echo(printable(f"wrote {path}"))


COMMANDS = [generate, calibrate]
