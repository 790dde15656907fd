"""`bakeoff export BATCH --format inspect|eee`: a batch (or a review) in the field's log formats."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("export")
@click.argument("batch_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["inspect", "eee"]), required=True,
              help="inspect: Inspect eval logs (open with `inspect view`); eee: Every Eval Ever records.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder; must not exist or be empty (default: BATCH_DIR-<format> beside the batch).")
@click.option("--partial", is_flag=True,
              help="Export a batch that is still running or has unfinished runs; they are marked as such.")
def export(batch_dir: Path, fmt: str, out: Path | None, partial: bool) -> None:
    """Export BATCH_DIR (a batch folder, or a `bakeoff review` results folder) without changing it.

    Needs the optional extra of the format: pip install 'bakeoff[inspect]' or 'bakeoff[eee]'.
    """
    from bakeoff.batchfolder.layout import BatchLayout
    from bakeoff.export.write import export_batch
    from bakeoff.tasks import plugin_for_batch

    plugin = plugin_for_batch(batch_dir) if BatchLayout(batch_dir).is_batch() else None
    result = export_batch(batch_dir, fmt, out, plugin=plugin, partial=partial)
    for path in result.files:
        click.echo(str(path))
    if result.partial:
        missing = ", ".join(result.unfinished) or "none"
        click.echo(f"partial export: the batch has not ended; unfinished runs: {missing}", err=True)
    if fmt == "inspect":
        click.echo(f"open with: inspect view --log-dir {result.folder}", err=True)


COMMANDS = [export]
