"""Turning cells of a real notebook into a review item (`bakeoff review import`).

The item's code is the source of the chosen code cells, outputs stripped:
outputs are never read, and IPython magics and shell escapes (lines starting
with % or !) are dropped because they are not Python. Markdown cells in the
range are skipped. Cells are numbered from 1 in notebook order, markdown
cells included, as a notebook viewer shows them.

Flaw lines are given as they stand in the chosen cells taken together (the
first line of cell A is line 1, cell B's lines follow the earlier cells'),
and re-based onto the item's code once magics are dropped. The source record
locates the snippet in the notebook's code: its line range counts every
code cell's lines from the top of the notebook, as a script export would.

A real item has no fixture: its label comes from its source (the person
importing it knows what the notebook did), not from executing it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import durable
from bakeoff.review.errors import ItemsInvalid
from bakeoff.review.items import PROBLEM, REAL, item_from_record, parse_items

_RANGE = re.compile(r"(?P<first>[1-9][0-9]*)(?:-(?P<last>[1-9][0-9]*))?")


class NotebookInvalid(ItemsInvalid):
    """The notebook cannot be read, or the cells or lines asked for are not in it."""


@dataclass(frozen=True)
class ImportRequest:
    notebook: Path
    cells: str  # "A-B" or "A"
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


def _cell_range(text: str, n_cells: int) -> tuple[int, int]:
    match = _RANGE.fullmatch(text.strip())
    if not match:
        raise NotebookInvalid(f"--cells must read A-B (cell numbers from 1), not {text!r}")
    first = int(match.group("first"))
    last = int(match.group("last") or first)
    if first > last or last > n_cells:
        raise NotebookInvalid(f"cells {text} are not within the notebook's {n_cells} cells")
    return first, last


def _source_lines(cell: dict) -> list[str]:
    source = cell.get("source", "")
    text = "".join(source) if isinstance(source, list) else str(source)
    return text.splitlines()


def read_cells(notebook: Path) -> list[dict]:
    try:
        data = json.loads(Path(notebook).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotebookInvalid(f"cannot read notebook {notebook}: {exc}") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        raise NotebookInvalid(f"{notebook} is not a Jupyter notebook (no list of cells)")
    return cells


def _is_magic(line: str) -> bool:
    return line.lstrip().startswith(("%", "!"))


def snippet(cells: list[dict], first: int, last: int, flaw_lines: tuple[int, ...]) -> tuple[str, tuple[int, ...], str]:
    """(code, re-based flaw lines, "A-B" line range in the notebook's code) for cells first..last."""
    before = sum(len(_source_lines(c)) for c in cells[: first - 1] if c.get("cell_type") == "code")
    taken = [line for c in cells[first - 1: last] if c.get("cell_type") == "code" for line in _source_lines(c)]
    if not any(line.strip() for line in taken):
        raise NotebookInvalid(f"cells {first}-{last} hold no code")
    kept, new_number = [], {}
    for number, line in enumerate(taken, start=1):
        if not _is_magic(line):
            kept.append(line)
            new_number[number] = len(kept)
    for number in flaw_lines:
        if number not in new_number:
            raise NotebookInvalid(f"flaw line {number} is not a line of Python in cells {first}-{last}")
    return "\n".join(kept) + "\n", tuple(new_number[n] for n in flaw_lines), f"{before + 1}-{before + len(taken)}"


def build_record(request: ImportRequest) -> dict:
    cells = read_cells(request.notebook)
    first, last = _cell_range(request.cells, len(cells))
    code, flaw_lines, lines = snippet(cells, first, last, request.flaw_lines)
    default_id = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{Path(request.notebook).stem}.cells-{first}-{last}").strip("-.")
    record = {
        "id": request.item_id or default_id,
        "claim": request.claim,
        "code": code,
        "verdict": request.verdict,
        "family": request.family if request.verdict == PROBLEM else None,
        "flaw_lines": list(flaw_lines),
        "explanation": request.explanation or f"Label from the source: {request.verdict}, as the notebook's reviewer judged it.",
        "pair_id": None,
        "origin": REAL,
        "fixture": None,
        "source": {"repository": request.repository, "url": request.url,
                   "path": request.path or Path(request.notebook).name, "lines": lines, "licence": request.licence},
    }
    item_from_record(record, f"{request.notebook} cells {request.cells}")  # refuse a bad item before writing
    return record


def append_item(out: Path, record: dict) -> None:
    """Append one record to an items file, refusing one that would make the file invalid (a duplicate id)."""
    out = Path(out)
    existing = out.read_text(encoding="utf-8") if out.exists() else ""
    if existing and not existing.endswith("\n"):
        existing += "\n"
    line = json.dumps(record, ensure_ascii=False) + "\n"
    parse_items(existing + line, str(out))
    # The whole file is rewritten atomically: a hand-written items file is not a journal (its last line may
    # lack a newline and still be whole), and a kill must not leave it half-appended.
    mode = out.stat().st_mode & 0o777 if out.exists() else 0o644
    durable.write_text(out.resolve(), existing + line, mode=mode)  # through a link, as an append would
