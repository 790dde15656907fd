"""`bakeoff leaderboard BATCH_DIR...`: one table per task, pooled over batches that measured the same thing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from bakeoff.errors import BakeoffError
from bakeoff.textsafe import printable

if TYPE_CHECKING:  # the command's imports stay lazy: --help is instant
    from bakeoff.batchfolder.read import BatchRecords


class NoBatches(BakeoffError):
    """None of the folders given is, or holds, a batch folder."""


def batch_folders(paths: tuple[Path, ...]) -> list[Path]:
    """Each path that is a batch folder, and the batch folders inside each one that is not (a folder of batches)."""
    return folders_of(paths)[0]


def folders_of(paths: tuple[Path, ...]) -> tuple[list[Path], list[Path]]:
    """The batch folders and the finished review folders (`bakeoff review --out`) among `paths` and inside them."""
    from bakeoff.batchfolder.layout import BatchLayout
    from bakeoff.review.pool import is_review_folder

    batches: list[Path] = []
    reviews: list[Path] = []
    for path in paths:
        if BatchLayout(path).is_batch() or is_review_folder(path):
            (batches if BatchLayout(path).is_batch() else reviews).append(path)
            continue
        inside = sorted(p for p in path.iterdir() if p.is_dir()) if path.is_dir() else []
        batches += [p for p in inside if BatchLayout(p).is_batch()]
        reviews += [p for p in inside if is_review_folder(p)]
        if not any(BatchLayout(p).is_batch() or is_review_folder(p) for p in inside):
            raise NoBatches(f"{path} is not a batch folder (no batch.json) nor a review folder (no review.json) "
                            "and holds none")
    return list(dict.fromkeys(p.resolve() for p in batches)), list(dict.fromkeys(p.resolve() for p in reviews))


def published(folder: Path, refused: list[str], partial: dict[Path, str] | None = None) -> BatchRecords | None:
    """The batch's records as far as they may be published (bakeoff.analysis.admit); a batch that cannot be (no
    run of it can: a damaged batch.json, a task its runs disagree with) is refused by name and left out, and each
    run left out is said (on stderr, and added to `refused` for the page): the other batches are still ranked.
    A batch that is not whole (running, or runs unfinished: export's rule) is refused the same way, unless
    `partial` is given: it is then let in and why it is partial is kept there, by folder."""
    from bakeoff.analysis.admit import BatchRefused, admit, refusal_lines
    from bakeoff.batchfolder.read import BatchFolderError, read_batch
    from bakeoff.batchfolder.state import why_not_whole
    from bakeoff.scaffolds.registry import step_readers
    from bakeoff.tasks.registry import DEFAULT_TASK, UnknownTask, task_plugin

    try:
        records = read_batch(folder, refuse_damaged_runs=True, step_readers=step_readers)
        if why := why_not_whole(folder, records):
            if partial is None:
                refused.append(f"refused batch {folder}: " + "; ".join(why) + " (add --partial to pool it, marked)")
                click.echo(printable(refused[-1]), err=True)
                return None
            partial[records.folder] = "; ".join(why)
        task = records.plan.task or DEFAULT_TASK
        records = admit(records, task_plugin(task).headline, task)
    except (BatchFolderError, BatchRefused, UnknownTask) as exc:
        refused.append(f"refused batch {folder}: {exc}")
        click.echo(printable(refused[-1]), err=True)
        return None
    for line in refusal_lines(records):
        refused.append(line)
        click.echo(printable(line), err=True)
    return records


@click.command("leaderboard")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("leaderboard"), show_default=True,
              help="Folder for leaderboard.html, leaderboard.md, tables/*.csv and plots/*.svg.")
@click.option("--allow-mixed", is_flag=True,
              help="Pool batches whose task version, corpus, secret, harness, sandbox or settings differ, each row marked.")
@click.option("--partial", is_flag=True,
              help="Pool batches that are still running or have unfinished runs too, each of their rows marked.")
@click.option("--bootstrap-seed", type=int, default=0, show_default=True, help="Seed of the bootstrap resampling.")
def leaderboard(paths: tuple[Path, ...], out: Path, allow_mixed: bool, partial: bool, bootstrap_seed: int) -> None:
    """Pool batches into one leaderboard per task: a row per model (by its file's sha256, or endpoint and served
    model, not its label), reasoning mode and scaffold, with its headline, runs, crash rate and cost. A run or a
    batch whose records do not fit its task (damaged, out of range, another task) is refused by name.

    PATHS are batch folders, or folders of batch folders. Only whole batches pool (none running, every run
    finished; --partial lets the others in, marked). Batches pool only when task version, corpus (and its
    secret), bakeoff's version, sandbox kind and the plan's settings (limits, task, scaffold and model options)
    agree; otherwise the differences are named (--allow-mixed pools them anyway, each row marked with what its
    batches were). Runs added by a plan extension keep their "added later" mark.
    """
    from rich.console import Console

    from bakeoff.analysis.leaderboard import pooled_board
    from bakeoff.report.leaderboard_page import write_leaderboard
    from bakeoff.report.terminal import scores_renderable
    from bakeoff.tasks.registry import DEFAULT_TASK, task_plugin

    by_task: dict[str, list] = {}
    refused: list[str] = []
    unwhole: dict[Path, str] | None = {} if partial else None
    batch_paths, review_paths = folders_of(paths)
    for folder in batch_paths:
        records = published(folder, refused, unwhole)
        if records is not None:
            by_task.setdefault(records.plan.task or DEFAULT_TASK, []).append(records)
    reviews = _review_board(review_paths)
    if not by_task and reviews is None:
        raise NoBatches("no batch given can be published (each refused above)")
    boards = [pooled_board(batches, task_plugin(task).headline, DEFAULT_TASK, allow_mixed, bootstrap_seed, unwhole)
              for task, batches in by_task.items()]  # the plug-ins resolved here, once per task, and handed down
    files = write_leaderboard(boards, out, refused, extra=(reviews,) if reviews is not None else ())
    console = Console()
    for board in boards:
        console.print(scores_renderable(board.rows, board.spec, f"{board.task}: {len(board.batches)} batches",
                                        console.width))
    if reviews is not None:
        click.echo(printable(f"claim_review: {len(review_paths)} review folders, {len(reviews.rows)} rows"))
    click.echo(printable(f"html:     {files.html}"))
    click.echo(printable(f"markdown: {files.markdown}"))
    click.echo(printable(f"tables:   {files.folder / 'tables'}"))


def _review_board(folders: list[Path]):
    """The review folders pooled into one table (bakeoff.review.pool), or None when there are none."""
    if not folders:
        return None
    from bakeoff.report.review import pooled_review_table
    from bakeoff.review.pool import pool_reviews, read_review_folder

    return pooled_review_table(pool_reviews([read_review_folder(folder) for folder in folders]))


COMMANDS = [leaderboard]
