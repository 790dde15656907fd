"""Turning cells of a notebook into a review item (`bakeoff review import`).

The item's code is the source of the chosen code cells, outputs stripped:
outputs are never read, and IPython magics and shell escapes (lines starting
with % or !) are dropped because they are not Python. Markdown cells among the
chosen ones are skipped. Cells are numbered from 1 in notebook order, markdown
cells included, as a notebook viewer shows them; several ranges may be chosen
("3-5,9"), and their code is joined in notebook order.

Flaw lines are given as they stand in the chosen cells taken together (the
first line of the first chosen cell is line 1, later cells' lines follow), and
re-based onto the item's code once magics are dropped. The source record
locates the snippet in the notebook's code: its line ranges count every code
cell's lines from the top of the notebook, as a script export would, one range
per run of chosen cells that follow one another in that export.

A real item has no fixture: its label comes from its source (the person
importing it knows what the notebook did), not from executing it. Two items of
one notebook may be twins: give both the same `pair_id`, one OK and one PROBLEM.
The item goes into a bank of two files (items and key, docs/review.md), or
into a self-contained file when `--out` already is one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import durable
from bakeoff.review.errors import ItemsInvalid
from bakeoff.review.items import (
    PROBLEM,
    REAL,
    bank_texts,
    canary,
    item_from_record,
    key_path,
    load_items,
    parse_items,
)
from bakeoff.review.sources import RangesInvalid, format_ranges, parse_ranges


class NotebookInvalid(ItemsInvalid):
    """The notebook cannot be read, or the cells or lines asked for are not in it."""


@dataclass(frozen=True)
class ImportRequest:
    notebook: Path
    cells: str  # "A-B", "A", or several: "A-B,C,D-E"
    claim: str
    verdict: str
    licence: str
    family: str | None = None
    flaw_lines: tuple[int, ...] = ()
    repository: str | None = None
    url: str | None = None
    path: str | None = None  # the notebook's path in the repository; default: its file name
    item_id: str | None = None
    explanation: str | None = None
    pair_id: str | None = None  # shared with the item's twin


def cell_numbers(text: str, n_cells: int) -> tuple[int, ...]:
    """The 1-based cell numbers `text` ("3-5,9") names, each within the notebook's `n_cells`."""
    try:
        ranges = parse_ranges(text)
    except RangesInvalid as exc:
        raise NotebookInvalid(f"--cells must read A-B or A-B,C-D (cell numbers from 1), not {text!r}: {exc}") from None
    if ranges[-1][1] > n_cells:
        raise NotebookInvalid(f"cells {text} are not within the notebook's {n_cells} cells")
    return tuple(n for first, last in ranges for n in range(first, last + 1))


def source_lines(cell: dict, number: int) -> list[str]:
    """A cell's source as lines; a source that is neither text nor a list of texts is refused by name."""
    source = cell.get("source", "")
    if isinstance(source, str):
        return source.splitlines()
    if isinstance(source, list) and all(isinstance(part, str) for part in source):
        return "".join(source).splitlines()
    shown = type(source).__name__ if not isinstance(source, list) else "a list holding " + ", ".join(
        sorted({type(part).__name__ for part in source if not isinstance(part, str)}))
    raise NotebookInvalid(f"cell {number}'s source is {shown}, not text or a list of text lines")


def read_cells(notebook: Path) -> list[dict]:
    try:
        data = durable.read_json(Path(notebook))  # within durable's caps: a notebook is someone else's bytes
    except (OSError, durable.UntrustedJSON) as exc:
        raise NotebookInvalid(f"cannot read notebook {notebook}: {exc}") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        raise NotebookInvalid(f"{notebook} is not a Jupyter notebook (no list of cells)")
    return cells


def _is_magic(line: str) -> bool:
    return line.lstrip().startswith(("%", "!"))


def chosen_lines(cells: list[dict], chosen: tuple[int, ...]) -> tuple[list[str], list[tuple[int, int]]]:
    """The chosen code cells' lines taken together (magics included: flaw lines count them), and their
    ranges in the notebook's code, one per run of cells that follow one another there."""
    taken: list[str] = []
    ranges: list[tuple[int, int]] = []
    before = 0  # code lines of the notebook above the cell at hand
    for number, cell in enumerate(cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        lines = source_lines(cell, number)
        if number in chosen and lines:
            first, last = before + 1, before + len(lines)
            if ranges and ranges[-1][1] == first - 1:
                ranges[-1] = (ranges[-1][0], last)
            else:
                ranges.append((first, last))
            taken += lines
        before += len(lines)
    return taken, ranges


def snippet(cells: list[dict], chosen: tuple[int, ...], flaw_lines: tuple[int, ...]) -> tuple[str, tuple[int, ...], str]:
    """(code, re-based flaw lines, the "A-B[,C-D]" line ranges in the notebook's code) for the chosen cells."""
    taken, ranges = chosen_lines(cells, chosen)
    if not any(line.strip() for line in taken):
        raise NotebookInvalid(f"cells {format_ranges(_runs(chosen))} hold no code")
    kept, new_number = [], {}
    for number, line in enumerate(taken, start=1):
        if not _is_magic(line):
            kept.append(line)
            new_number[number] = len(kept)
    for number in flaw_lines:
        if number not in new_number:
            raise NotebookInvalid(f"flaw line {number} is not a line of Python in the chosen cells")
    return "\n".join(kept) + "\n", tuple(new_number[n] for n in flaw_lines), format_ranges(ranges)


def _runs(numbers: tuple[int, ...]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def build_record(request: ImportRequest) -> dict:
    cells = read_cells(request.notebook)
    chosen = cell_numbers(request.cells, len(cells))
    code, flaw_lines, lines = snippet(cells, chosen, request.flaw_lines)
    shown = "_".join(f"{a}" if a == b else f"{a}-{b}" for a, b in _runs(chosen))
    default_id = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{Path(request.notebook).stem}.cells-{shown}").strip("-.")
    record = {
        "id": request.item_id or default_id,
        "claim": request.claim,
        "code": code,
        "verdict": request.verdict,
        "family": request.family if request.verdict == PROBLEM else None,
        "flaw_lines": list(flaw_lines),
        "explanation": request.explanation or f"Label from the source: {request.verdict}, as the notebook's reviewer judged it.",
        "pair_id": request.pair_id,
        "origin": REAL,
        "fixture": None,
        "source": {"repository": request.repository, "url": request.url,
                   "path": request.path or Path(request.notebook).name, "lines": lines, "licence": request.licence},
    }
    item_from_record(record, f"{request.notebook} cells {request.cells}")  # refuse a bad item before writing
    return record


def append_item(out: Path, record: dict) -> None:
    """Add one record to a bank, refusing one that would make it invalid (a duplicate id, a third twin).

    A bank with a key file (or a new one) gets the record's visible part in `out` and the rest in its key;
    a self-contained file that exists already gets the whole record as one more line.
    """
    out = Path(out)
    existing = out.read_text(encoding="utf-8") if out.exists() else ""
    if existing.strip() and not key_path(out).exists():
        if not existing.endswith("\n"):
            existing += "\n"
        line = durable.dumps(record, ensure_ascii=False) + "\n"
        parse_items(existing + line, str(out))
        _write(out, existing + line)
        return
    items = (load_items(out) if existing.strip() else ()) + (item_from_record(record, str(out)),)
    items_text, key_text = bank_texts(items, canary())
    parse_items(items_text, str(out), key_text, str(key_path(out)))
    # The key first: a kill between the two writes leaves a key line with no item, which loading names.
    _write(key_path(out), key_text)
    _write(out, items_text)


def _write(path: Path, text: str) -> None:
    # The whole file is rewritten atomically: a hand-written items file is not a journal (its last line may
    # lack a newline and still be whole), and a kill must not leave it half-appended.
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    durable.write_text(path.resolve(), text, mode=mode)  # through a link, as an append would
