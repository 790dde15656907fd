"""`bakeoff leaderboard BATCH_DIR...`: one table per task, pooled over batches that measured the same thing."""

from __future__ import annotations

from pathlib import Path

import click

from bakeoff.errors import BakeoffError
from bakeoff.textsafe import printable


class NoBatches(BakeoffError):
    """None of the folders given is, or holds, a batch folder."""


def batch_folders(paths: tuple[Path, ...]) -> list[Path]:
    """Each path that is a batch folder, and the batch folders inside each one that is not (a folder of batches)."""
    from bakeoff.batchfolder.layout import BatchLayout

    found: list[Path] = []
    for path in paths:
        if BatchLayout(path).is_batch():
            found.append(path)
            continue
        inside = sorted(p for p in path.iterdir() if p.is_dir() and BatchLayout(p).is_batch()) if path.is_dir() else []
        if not inside:
            raise NoBatches(f"{path} is not a batch folder (no batch.json) and holds none")
        found.extend(inside)
    return list(dict.fromkeys(p.resolve() for p in found))


@click.command("leaderboard")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("leaderboard"), show_default=True,
              help="Folder for leaderboard.html, leaderboard.md, tables/*.csv and plots/*.svg.")
@click.option("--allow-mixed", is_flag=True,
              help="Pool batches whose task version, corpus, secret, harness or sandbox differ, each row marked.")
@click.option("--bootstrap-seed", type=int, default=0, show_default=True, help="Seed of the bootstrap resampling.")
def leaderboard(paths: tuple[Path, ...], out: Path, allow_mixed: bool, bootstrap_seed: int) -> None:
    """Pool batches into one leaderboard per task: a row per model (by its file's sha256, or endpoint and served
    model, not its label) and reasoning mode, with its headline, runs, crash rate and cost.

    PATHS are batch folders, or folders of batch folders. Batches pool only when task version, corpus (and its
    secret), bakeoff's version and sandbox kind agree; otherwise the differences are named (--allow-mixed pools
    them anyway, each row marked with what its batches were).
    """
    from rich.console import Console

    from bakeoff.analysis.leaderboard import pooled_board
    from bakeoff.batchfolder.read import read_batch
    from bakeoff.report.leaderboard_page import write_leaderboard
    from bakeoff.report.terminal import scores_renderable
    from bakeoff.tasks.registry import DEFAULT_TASK, task_plugin

    by_task: dict[str, list] = {}
    for folder in batch_folders(paths):
        records = read_batch(folder)
        for refused in records.refused:  # the rest of its batch still counts
            click.echo(printable(refused.line()), err=True)
        by_task.setdefault(records.plan.task or DEFAULT_TASK, []).append(records)
    boards = [pooled_board(batches, task_plugin(task).headline, DEFAULT_TASK, allow_mixed, bootstrap_seed)
              for task, batches in by_task.items()]  # the plug-ins resolved here, once per task, and handed down
    files = write_leaderboard(boards, out)
    console = Console()
    for board in boards:
        console.print(scores_renderable(board.rows, board.spec, f"{board.task}: {len(board.batches)} batches"))
    click.echo(printable(f"html:     {files.html}"))
    click.echo(printable(f"markdown: {files.markdown}"))
    click.echo(printable(f"tables:   {files.folder / 'tables'}"))


COMMANDS = [leaderboard]
