"""`bakeoff analyze DIR` and `bakeoff report DIR`: the task's probes recomputed for a batch, then its report."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from bakeoff.cli.folders import usable_wheelhouse
from bakeoff.cli.task_options import TaskCommand, task_option_values
from bakeoff.errors import BakeoffError
from bakeoff.textsafe import printable
from sandbox.kinds import DOCKER, KINDS, consent_settings


class UnsafeAnalysisRefused(BakeoffError):
    """Analysis without isolation was asked for without the explicit unsafe flag."""


def _batch_task(given: Mapping[str, Any]) -> str | None:
    """The task the batch folder ran (its batch.json's plan)."""
    from bakeoff.tasks import plugin_for_batch

    return plugin_for_batch(given["batch_dir"]).name if given.get("batch_dir") is not None else None


@click.command("analyze", cls=TaskCommand, command="analyze", task_of=_batch_task)
@click.argument("batch_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--sandbox", type=click.Choice(KINDS), default=None,
              help="Isolation for the probes (default: the one the batch ran with).")
@click.option("--force", is_flag=True, help="Recompute runs that already have analysis.json.")
@click.option("--wheelhouse", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Host wheelhouse for submissions' requirements (default: the bakeoff cache).")
@click.option("--unsafe-no-isolation", "unsafe", is_flag=True, help="Allow --sandbox none (no isolation at all).")
def analyze(batch_dir: Path, sandbox, force: bool, wheelhouse: Path | None, unsafe: bool, **given: Any) -> None:
    """Recompute the probes of the batch's task for every finished run of BATCH_DIR (its own options follow).

    Writes runs/<run_id>/analysis.json for each; runs that already have one are
    skipped unless --force. `bakeoff report` reads these records.
    """
    from rich.console import Console

    from bakeoff.batchfolder.read import read_batch
    from bakeoff.scaffolds.registry import step_readers
    from bakeoff.taskapi.plugin import AnalysisNotAvailable, AnalyzeSettings
    from bakeoff.tasks import plugin_for_batch
    from sandbox.wheelhouse import default_wheelhouse

    plugin = plugin_for_batch(batch_dir)
    if plugin.analysis is None:  # said before a sandbox is opened or a consent asked for
        raise AnalysisNotAvailable(f"bakeoff analyze cannot recompute the probes of this batch (task {plugin.name}); "
                                   "its probes ran in each run's evaluate stage (stages/5-evaluate.json extras)")
    kind = sandbox or read_batch(batch_dir, step_readers=step_readers).plan.sandbox or DOCKER
    consent = consent_settings(kind, unsafe, UnsafeAnalysisRefused)
    house = usable_wheelhouse(wheelhouse or default_wheelhouse())
    settings = AnalyzeSettings(sandbox=kind, sandbox_options=consent, wheelhouse=house, force=force,
                               options=task_option_values("analyze", plugin.name, given))
    analysis = plugin.analysis
    console = Console(stderr=True)
    with console.status("analysing") as status:
        results = analysis.reanalyse(batch_dir, settings, lambda run_id: status.update(f"analysing {run_id}"))
    for result in results:
        spread = "" if result.retrain_spread is None else f" retrain spread {result.retrain_spread:.3f}"
        verdict = f" probe {result.probe_verdict}" if result.probe_verdict else ""
        click.echo(printable(f"{result.run_id}: {result.status}{verdict}{spread}"))


@click.command("report")
@click.argument("batch_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Report folder (default: BATCH_DIR/report).")
@click.option("--bootstrap-seed", type=int, default=0, show_default=True, help="Seed of the bootstrap resampling.")
def report(batch_dir: Path, out: Path | None, bootstrap_seed: int) -> None:
    """Write the report of BATCH_DIR: report.md, report.html (self-contained), plots/*.svg, tables/*.csv.
    BATCH_DIR may be a `bakeoff review --out` folder: its claim-review report, written the same way.

    Reads only the batch's records; run `bakeoff analyze` first for the probes
    of a batch whose runs did not record them.
    """
    from rich.console import Console

    from bakeoff.batchfolder.layout import BatchLayout
    from bakeoff.report.build import write_report
    from bakeoff.review.pool import is_review_folder
    from bakeoff.tasks import plugin_for_batch

    if is_review_folder(batch_dir) and not BatchLayout(batch_dir).is_batch():
        _review_report(batch_dir, out)
        return
    plugin = plugin_for_batch(batch_dir)
    with Console(stderr=True).status("writing the report"):
        files = write_report(batch_dir, plugin, out, bootstrap_seed)
    for line in files.refused:  # the rest of the batch is reported; these runs are not
        click.echo(printable(line), err=True)
    click.echo(printable(f"report: {files.markdown}"))
    click.echo(printable(f"html:   {files.html}"))
    click.echo(printable(f"tables: {files.folder / 'tables'}"))


def _review_report(folder: Path, out: Path | None) -> None:
    """A `bakeoff review --out` folder's own report (bakeoff.report.review_page)."""
    from bakeoff.report.review_page import write_review_report

    files = write_review_report(folder, out)
    click.echo(printable(f"report: {files.markdown}"))
    click.echo(printable(f"html:   {files.html}"))
    click.echo(printable(f"tables: {files.folder / 'tables'}"))


COMMANDS = [analyze, report]
