"""`bakeoff generate` and `bakeoff calibrate`: a take-home's data and its references, with the task's own options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from bakeoff.cli.task_options import TaskChoice, TaskCommand, by_corpus, by_task_option, task_option_values
from bakeoff.errors import BakeoffError
from bakeoff.tasks.registry import DEFAULT_TASK, task_plugin
from bakeoff.textsafe import printable
from generators.errors import OutputFolderNotWritable


@click.command(cls=TaskCommand, command="generate", task_of=by_task_option)
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path), help="Folder to write the corpus into.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the visible data; same seed and options give byte-identical visible files.")
@click.option("--secret-file", type=click.Path(path_type=Path), default=None,
              help="Draw the hidden part with the secret in this file (a corpus's secret.hex) instead of a fresh one.")
@click.option("--force", is_flag=True, help="Replace a non-empty output folder.")
@click.option("--control", is_flag=True,
              help="A negative control: the hidden answers permuted across the hidden units (unrelated to the inputs), "
                   "marked in the manifest; no analysis can beat chance on it.")
@click.option("--task", type=TaskChoice(), default=DEFAULT_TASK, show_default=True,
              help="Which take-home's data to generate (its own options follow; see --task NAME --help).")
def generate(out_dir: Path, seed: int, secret_file: Path | None, force: bool, control: bool, task: str,
             **given: Any) -> None:
    """Generate a take-home's seeded data (the default task's, or --task NAME's)."""
    from rich.console import Console

    from bakeoff.tasks import GenerateRequest

    plugin = task_plugin(task)
    own = task_option_values("generate", task, given)
    request = GenerateRequest(out_dir, seed, {name: value for name, value in own.items() if value is not None}, force,
                              secret_file, control)
    make_parent(out_dir)  # `--out corpora/default` in a fresh clone: the data is staged beside its folder
    with Console(stderr=True).status(f"generating {task} data") as status:
        summary = plugin.generate(request, progress=lambda step: status.update(step))
    click.echo(printable(summary))


def make_parent(out_dir: Path) -> None:
    try:
        out_dir.resolve().parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputFolderNotWritable(f"cannot make the folder above {out_dir}: {exc.strerror or exc}") from None


class NoCalibration(BakeoffError):
    """The corpus's task has no references to calibrate with."""


@click.command(cls=TaskCommand, command="calibrate", task_of=by_corpus("corpus_dir"))
@click.option("--corpus", "corpus_dir", required=True, type=click.Path(path_type=Path),
              help="A corpus folder written by `bakeoff generate`.")
@click.option("--task", type=TaskChoice(), default=None,
              help="Which take-home's references to run; default, and checked against: the corpus's manifest.")
def calibrate(corpus_dir: Path, task: str | None, **given: Any) -> None:
    """Run a take-home's reference submissions; write calibration.json and print a table."""
    from rich.console import Console

    from bakeoff.tasks.registry import corpus_task
    from generators.common.calibration_file import write_calibration

    plugin = task_plugin(corpus_task(corpus_dir, task))
    if plugin.calibration is None:
        raise NoCalibration(f"the task {plugin.name} has no references to calibrate with")
    options = task_option_values("calibrate", plugin.name, given)
    with Console(stderr=True).status("calibrating") as status:
        done = plugin.calibration.calibrate(corpus_dir, lambda step: status.update(step), options)
    path = write_calibration(done.record, corpus_dir)
    console = Console()
    for renderable in done.shown:
        console.print(renderable)
    click.echo(printable(f"wrote {path}"))


COMMANDS = [generate, calibrate]
