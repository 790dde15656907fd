"""`bakeoff generate` and `bakeoff calibrate`: a take-home's data (the spam corpus, the A/B-test experiments) and its references."""

from __future__ import annotations

from pathlib import Path

import click

from bakeoff.errors import BakeoffError
from bakeoff.textsafe import printable

DEFAULTS = {
    "seed": 0,
    "rows": 208_000,
    "holdout_rows": 50_000,
    "spam_rate": 0.18,
    "flip_rate": 0.03,
    "dup_rate": 0.04,
}


TASKS = ("spam_classifier", "ab_test")


class OptionNotForTask(BakeoffError):
    """A `bakeoff generate` option of one take-home given with --task naming the other."""


class InvalidSweepPoints(BakeoffError):
    """--sweep-points is not a comma-separated list of numbers."""


@click.command()
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path), help="Folder to write the corpus into.")
@click.option("--seed", type=int, default=DEFAULTS["seed"], show_default=True, help="Random seed; same seed and options give byte-identical files.")
@click.option("--rows", type=int, default=DEFAULTS["rows"], show_default=True, help="Training rows.")
@click.option("--holdout-rows", type=int, default=DEFAULTS["holdout_rows"], show_default=True, help="Holdout rows.")
@click.option("--contamination", type=float, default=None, help="How often a piece of a message is written in the other class's voice [0, 0.5] (default: the calibrated value).")
@click.option("--spam-rate", type=float, default=DEFAULTS["spam_rate"], show_default=True, help="Share of spam.")
@click.option("--flip-rate", type=float, default=DEFAULTS["flip_rate"], show_default=True, help="Share of training labels flipped (half each way).")
@click.option("--dup-rate", type=float, default=DEFAULTS["dup_rate"], show_default=True, help="Share of near-duplicate rows per split.")
@click.option("--noise-rate", type=float, default=None, help="Share of messages with mojibake, and separately with HTML entities (default: 0.01).")
@click.option("--force", is_flag=True, help="Replace a non-empty output folder.")
@click.option("--task", type=click.Choice(TASKS), default="spam_classifier", show_default=True, help="Which take-home's data to generate.")
@click.option("--users", type=int, default=None, help="ab_test: users in the visible experiment (default: 20,000).")
@click.option("--experiments", type=int, default=None, help="ab_test: hidden experiments (default: 48).")
@click.option("--holdout-users", type=int, default=None, help="ab_test: users per hidden experiment (default: 20,000).")
def generate(out_dir: Path, seed: int, rows: int, holdout_rows: int, contamination: float | None, spam_rate: float,
             flip_rate: float, dup_rate: float, noise_rate: float | None, force: bool, task: str,
             users: int | None, experiments: int | None, holdout_users: int | None) -> None:
    """Generate a take-home's seeded data: the spam corpus (default) or the A/B-test experiments."""
    from rich.console import Console

    _refuse_other_tasks_options(task)
    if task == "ab_test":
        _generate_ab(out_dir, seed, {"users": users, "experiments": experiments, "holdout_users": holdout_users}, force)
        return
    from generators.spam import CorpusParams, generate_corpus

    overrides = {"contamination": contamination, "noise_rate": noise_rate}
    params = CorpusParams(
        seed=seed, rows=rows, holdout_rows=holdout_rows, spam_rate=spam_rate, flip_rate=flip_rate,
        dup_rate=dup_rate, **{key: value for key, value in overrides.items() if value is not None},
    )
    console = Console(stderr=True)
    with console.status("generating corpus") as status:
        manifest = generate_corpus(params, out_dir, force=force, progress=lambda step: status.update(step))
    measured = manifest.measured
    click.echo(printable(
        f"wrote {out_dir}: {measured.train_rows} training rows, {measured.holdout_rows} holdout rows, "
        f"spam {measured.train_spam_rate:.3f}, flips {measured.flip_rate:.3f}, "
        f"near-duplicates {measured.train_dup_rate:.3f}, flag/label correlation {measured.flag_label_correlation:.3f}"
    ))


_TASK_OPTIONS = {
    "spam_classifier": ("rows", "holdout_rows", "contamination", "spam_rate", "flip_rate", "dup_rate", "noise_rate"),
    "ab_test": ("users", "experiments", "holdout_users"),
}


def _refuse_other_tasks_options(task: str) -> None:
    """An option of the other take-home would be silently ignored: refuse it by name instead."""
    from click.core import ParameterSource

    context = click.get_current_context()
    given = [name for other, names in _TASK_OPTIONS.items() if other != task for name in names
             if context.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if given:
        options = ", ".join("--" + name.replace("_", "-") for name in given)
        raise OptionNotForTask(f"{options} do(es) not apply to --task {task}")


def _generate_ab(out_dir: Path, seed: int, options: dict[str, int | None], force: bool) -> None:
    from rich.console import Console

    from generators.ab_test import AbParams, generate_ab_data

    params = AbParams(seed=seed, **{key: value for key, value in options.items() if value is not None})
    with Console(stderr=True).status("generating experiments") as status:
        manifest = generate_ab_data(params, out_dir, force=force, progress=lambda step: status.update(step))
    m = manifest.measured
    click.echo(printable(
        f"wrote {out_dir}: {m.rows} sessions of {m.users} users, {params.experiments} hidden experiments, "
        f"{m.duplicate_rows} duplicated rows, within-user correlation {m.within_user_correlation:.3f}"
    ))


def _parse_points(text: str | None) -> tuple[float, ...] | None:
    if text is None:
        return None
    try:
        return tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise InvalidSweepPoints(f"--sweep-points must be numbers separated by commas, got {text!r}") from None


def _print_tables(calibration) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title=f"calibration of {calibration.corpus}")
    for column in ("reference", "local F1", "holdout F1", "precision", "recall", "predicted spam rate"):
        table.add_column(column, justify="left" if column == "reference" else "right")
    for r in calibration.references:
        table.add_row(r.variant, f"{r.local_f1:.3f}", f"{r.holdout_f1:.3f}", f"{r.holdout_precision:.3f}",
                      f"{r.holdout_recall:.3f}", f"{r.predicted_positive_rate:.3f}")
    console.print(table)
    for name, ok in calibration.checks.to_dict().items():
        console.print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    if calibration.sweep:
        variants = [r.variant for r in calibration.sweep[0].results]
        sweep_table = Table(title="holdout F1 by contamination")
        sweep_table.add_column("contamination", justify="right")
        for variant in variants:
            sweep_table.add_column(variant, justify="right")
        for point in calibration.sweep:
            sweep_table.add_row(f"{point.contamination:.3f}", *(f"{point.holdout_f1(v):.3f}" for v in variants))
        console.print(sweep_table)
        console.print(f"  text_only falls monotonically: {calibration.sweep_falls_monotonically}")


@click.command()
@click.option("--corpus", "corpus_dir", required=True, type=click.Path(path_type=Path), help="A corpus folder written by `bakeoff generate`.")
@click.option("--sweep", is_flag=True, help="Also regenerate at several contamination settings and tabulate holdout F1.")
@click.option("--sweep-points", default=None, help="Comma-separated contamination settings for --sweep (default: 0.10,0.15,0.20, the calibrated default, 0.30).")
@click.option("--sweep-variant", "sweep_variants", multiple=True, type=click.Choice(["text_only", "careful", "careless"]), help="References run at each sweep point (repeatable; default: text_only).")
@click.option("--task", type=click.Choice(TASKS), default="spam_classifier", show_default=True, help="Which take-home's references to run (ab_test: on the folder's hidden experiments).")
def calibrate(corpus_dir: Path, sweep: bool, sweep_points: str | None, sweep_variants: tuple[str, ...], task: str) -> None:
    """Run a take-home's reference submissions; write calibration.json and print a table."""
    from rich.console import Console

    if task == "ab_test":
        _calibrate_ab(corpus_dir)
        return
    from generators.calibration import calibrate as run_calibration
    from generators.calibration import write_calibration
    from generators.calibration.sweep import DEFAULT_POINTS, DEFAULT_SWEEP_VARIANTS

    points = _parse_points(sweep_points) or DEFAULT_POINTS
    variants = sweep_variants or DEFAULT_SWEEP_VARIANTS
    with Console(stderr=True).status("calibrating") as status:
        calibration = run_calibration(
            corpus_dir, sweep=sweep, sweep_points=points, sweep_variants=variants, progress=lambda s: status.update(s)
        )
    path = write_calibration(calibration, corpus_dir)
    _print_tables(calibration)
    click.echo(printable(f"wrote {path}"))


def _calibrate_ab(corpus_dir: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    from generators.calibration import write_calibration
    from generators.calibration.ab_test import calibrate_ab

    with Console(stderr=True).status("calibrating") as status:
        calibration = calibrate_ab(corpus_dir, progress=lambda step: status.update(step))
    path = write_calibration(calibration, corpus_dir)
    table = Table(title=f"calibration of {calibration.corpus} ({calibration.references[0].experiments} hidden experiments)")
    for column in ("reference", "coverage", "mean abs error", "mean width", "Winkler score"):
        table.add_column(column, justify="left" if column == "reference" else "right")
    for r in calibration.references:
        table.add_row(r.variant, f"{r.coverage:.3f}", f"{r.mean_abs_error:.5f}", f"{r.mean_width:.5f}", f"{r.winkler:.5f}")
    console = Console()
    console.print(table)
    for name, ok in calibration.checks.to_dict().items():
        console.print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    click.echo(printable(f"wrote {path}"))


COMMANDS = [generate, calibrate]
