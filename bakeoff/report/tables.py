"""The report's tables: raw values (for CSV) with a display kind per column (for Markdown and HTML)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

UNCAPTURED_CELL = "uncaptured"  # a headline cell of a model with no graded run: never a zero


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = "text"  # text, int, n1 (one decimal), f3 (three decimals), f4 (four: effects on a conversion rate), pct


MAX_SHORT_COLUMNS = 9  # a table wider than this shows a short view on the page (all of it in CSV and a fold)


@dataclass(frozen=True)
class Table:
    name: str  # file stem of its CSV
    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]
    short: tuple[str, ...] = ()  # the columns of the page's default view; () : the first MAX_SHORT_COLUMNS

    @property
    def is_wide(self) -> bool:
        return len(self.view().columns) < len(self.columns)

    def view(self) -> Table:
        """The short view the page shows first: the chosen columns, in the table's order."""
        keep = set(self.short) if self.short else {c.name for c in self.columns[:MAX_SHORT_COLUMNS]}
        picked = [i for i, c in enumerate(self.columns) if c.name in keep]
        if len(picked) == len(self.columns):
            return self
        return Table(self.name, self.title, tuple(self.columns[i] for i in picked),
                     tuple(tuple(row[i] for i in picked) for row in self.rows))

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([c.name for c in self.columns])
        for row in self.rows:
            writer.writerow(["" if v is None else v for v in row])
        return out.getvalue()


def display(value: Any, kind: str) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    if kind == "pct":
        return f"{value:.0%}" if value in (0, 1) else f"{value:.1%}"
    if kind == "int" and isinstance(value, float):
        return f"{value:.0f}"  # a mean of counts, shown as a count
    if kind == "n1":
        return f"{value:.1f}"
    if kind == "f3":
        return f"{value:.3f}"
    if kind == "f4":
        return f"{value:.4f}"
    return str(value)


def short(text: str | None, limit: int = 120) -> str | None:
    if text is None:
        return None
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def cols(spec: str) -> tuple[Column, ...]:
    """'name:kind name2:kind2 ...' (kind defaults to text)."""
    return tuple(Column(*part.split(":")) for part in spec.split())
