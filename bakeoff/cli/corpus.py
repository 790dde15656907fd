"""`bakeoff generate` and `bakeoff calibrate`: a take-home's data (the spam corpus, the A/B-test experiments) and its references."""

from __future__ import annotations

from pathlib import Path

import click

from bakeoff.errors import BakeoffError
from bakeoff.tasks.base import OptionNotForTask
from bakeoff.tasks.registry import task_names
from bakeoff.textsafe import printable

DEFAULTS = {
    "seed": 0,
    "rows": 208_000,
    "holdout_rows": 50_000,
    "spam_rate": 0.18,
    "flip_rate": 0.03,
    "dup_rate": 0.04,
}


TASKS = task_names()


class InvalidSweepPoints(BakeoffError):
    """--sweep-points is not a comma-separated list of numbers."""


@click.command()
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path), help="Folder to write the corpus into.")
@click.option("--seed", type=int, default=DEFAULTS["seed"], show_default=True,
              help="Random seed of the visible data; same seed and options give byte-identical visible files.")
@click.option("--rows", type=int, default=DEFAULTS["rows"], show_default=True, help="Training rows.")
@click.option("--holdout-rows", type=int, default=DEFAULTS["holdout_rows"], show_default=True, help="Holdout rows.")
@click.option("--contamination", type=float, default=None,
              help="How often a piece of a message is written in the other class's voice [0, 0.5] (default: the calibrated value).")
@click.option("--spam-rate", type=float, default=DEFAULTS["spam_rate"], show_default=True, help="Share of spam.")
@click.option("--flip-rate", type=float, default=DEFAULTS["flip_rate"], show_default=True, help="Share of training labels flipped (half each way).")
@click.option("--dup-rate", type=float, default=DEFAULTS["dup_rate"], show_default=True, help="Share of near-duplicate rows per split.")
@click.option("--noise-rate", type=float, default=None, help="Share of messages with mojibake, and separately with HTML entities (default: 0.01).")
@click.option("--force", is_flag=True, help="Replace a non-empty output folder.")
@click.option("--task", type=click.Choice(TASKS), default="spam_classifier", show_default=True, help="Which take-home's data to generate.")
@click.option("--users", type=int, default=None, help="ab_test: users in the visible experiment (default: 20,000).")
@click.option("--experiments", type=int, default=None, help="ab_test: hidden experiments (default: 96).")
@click.option("--holdout-users", type=int, default=None, help="ab_test: users in the smallest hidden experiment (default: 4,000).")
@click.option("--secret-file", type=click.Path(path_type=Path), default=None,
              help="Draw the hidden part with the secret in this file (a corpus's secret.hex) instead of a fresh one.")
def generate(out_dir: Path, seed: int, rows: int, holdout_rows: int, contamination: float | None, spam_rate: float,
             flip_rate: float, dup_rate: float, noise_rate: float | None, force: bool, task: str,
             users: int | None, experiments: int | None, holdout_users: int | None, secret_file: Path | None) -> None:
    """Generate a take-home's seeded data: the spam corpus (default) or the A/B-test experiments."""
    from rich.console import Console

    from bakeoff.tasks import GenerateRequest, task_plugin

    _refuse_other_tasks_options(task)
    plugin = task_plugin(task)
    given = {"rows": rows, "holdout_rows": holdout_rows, "contamination": contamination, "spam_rate": spam_rate,
             "flip_rate": flip_rate, "dup_rate": dup_rate, "noise_rate": noise_rate, "users": users,
             "experiments": experiments, "holdout_users": holdout_users}
    request = GenerateRequest(out_dir, seed, {name: given[name] for name in plugin.generate_options}, force, secret_file)
    with Console(stderr=True).status(f"generating {task} data") as status:
        summary = plugin.generate(request, progress=lambda step: status.update(step))
    click.echo(printable(summary))


def _refuse_other_tasks_options(task: str) -> None:
    """An option of the other take-home would be silently ignored: refuse it by name instead."""
    from click.core import ParameterSource

    from bakeoff.tasks import task_plugin

    context = click.get_current_context()
    own = set(task_plugin(task).generate_options)
    given = [name for other in task_names() if other != task for name in task_plugin(other).generate_options
             if name not in own and context.get_parameter_source(name) == ParameterSource.COMMANDLINE]
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
@click.option("--task", type=click.Choice(TASKS), default="spam_classifier", show_default=True,
              help="Which take-home's references to run (ab_test: on the folder's hidden experiments).")
def calibrate(corpus_dir: Path, sweep: bool, sweep_points: str | None, sweep_variants: tuple[str, ...], task: str) -> None:
    """Run a take-home's reference submissions; write calibration.json and print a table."""
    from rich.console import Console

    from bakeoff.tasks import task_plugin
    from generators.calibration import write_calibration

    plugin = task_plugin(task)
    with Console(stderr=True).status("calibrating") as status:
        calibration = plugin.calibrate(corpus_dir, lambda step: status.update(step), sweep=sweep,
                                       sweep_points=_parse_points(sweep_points), sweep_variants=sweep_variants)
    path = write_calibration(calibration, corpus_dir)
    console = Console()
    for renderable in plugin.calibration_tables(calibration):
        console.print(renderable)
    click.echo(printable(f"wrote {path}"))


COMMANDS = [generate, calibrate]
