"""`bakeoff export`: read a batch (never writing it), build the chosen format, publish the folder atomically.

The output is assembled in a staging folder beside its destination and published whole
(durable.staged_folder), so a folder at the destination is a whole export. An existing, non-empty destination is
refused, and so is one inside the batch folder (an export never changes the batch).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import durable
from bakeoff.export.errors import ExportError, ExportOutputInvalid
from bakeoff.export.source import load_source
from bakeoff.taskapi.task import Task

FORMATS = ("inspect", "eee")


@dataclass(frozen=True)
class ExportResult:
    folder: Path
    files: tuple[Path, ...]
    partial: bool
    unfinished: tuple[str, ...]


def default_out(batch_dir: Path, fmt: str) -> Path:
    batch_dir = Path(batch_dir).resolve()
    return batch_dir.parent / f"{batch_dir.name}-{fmt}"


def _check_out(batch_dir: Path, out: Path) -> None:
    batch, target = Path(batch_dir).resolve(), Path(out).resolve()
    if target == batch or batch in target.parents:
        raise ExportOutputInvalid(f"{out} is inside the batch folder; an export never writes there: choose another --out")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ExportOutputInvalid(f"{out} already exists and is not an empty folder; choose another --out")


def _require(fmt: str) -> None:
    if fmt == "inspect":
        from bakeoff.export.inspect_common import require_inspect

        require_inspect()
    elif fmt == "eee":
        from bakeoff.export.eee import load_schemas

        load_schemas()
    else:
        raise ExportError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")


def _build(fmt: str, source, staging: Path) -> list[Path]:
    if fmt == "inspect":
        from bakeoff.export.inspect_review import export_reviews
        from bakeoff.export.inspect_runs import export_runs

        return export_runs(source, staging) + export_reviews(source, staging)
    from bakeoff.export.eee import export_eee

    return export_eee(source, staging)


def export_batch(batch_dir: Path, fmt: str, out: Path | None = None, *, plugin: Task | None = None,
                 partial: bool = False) -> ExportResult:
    """Export a batch folder (of the task `plugin` is) or a review results folder (no plug-in)."""
    _require(fmt)  # a missing extra is said before anything is read
    target = Path(out) if out is not None else default_out(batch_dir, fmt)
    _check_out(batch_dir, target)
    source = load_source(Path(batch_dir), plugin, partial=partial)
    with durable.staged_folder(target, if_exists=durable.IfExists.REFUSE) as staging:  # empty (checked above)
        files = _build(fmt, source, staging)
        if not files:
            raise ExportError(f"{batch_dir} holds no runs and no review results: nothing to export")
    moved = tuple(target / path.relative_to(staging) for path in files)
    return ExportResult(target, moved, source.partial, source.unfinished)
