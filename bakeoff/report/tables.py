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
    kind: str = "text"  # text, int, d0-d2 (that many decimals), f3 (three decimals), f4 (four: effects on a conversion rate), pct


@dataclass(frozen=True)
class Table:
    name: str  # file stem of its CSV
    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]

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
    if kind == "f3":
        return f"{value:.3f}"
    if kind == "f4":
        return f"{value:.4f}"
    if kind in ("d0", "d1", "d2"):  # that many decimals
        return f"{value:,.{kind[1]}f}"
    return str(value)


def short(text: str | None, limit: int = 120) -> str | None:
    if text is None:
        return None
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def cols(spec: str) -> tuple[Column, ...]:
    """'name:kind name2:kind2 ...' (kind defaults to text)."""
    return tuple(Column(*part.split(":")) for part in spec.split())
