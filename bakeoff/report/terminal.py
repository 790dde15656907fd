"""The scores on the terminal, at the console's width: what `bakeoff run` prints when a batch ends and
`bakeoff leaderboard` prints beside its files. Compact columns; the files hold every one."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Literal

from bakeoff.analysis.leaderboard import LeaderRow
from bakeoff.report.leaderboard import interval_text
from bakeoff.report.tables import display
from bakeoff.taskapi.headline import HeadlineSpec


def _count(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


LONGEST_MODEL = 40  # a longer model name may fold rather than push the other columns out
ALWAYS_SHOWN = 6  # rank, model, headline, interval, scored, crash


Justify = Literal["left", "right"]
Column = tuple[str, Justify, list[str]]  # header, justify, cells


def _cells(rows: Sequence[LeaderRow], spec: HeadlineSpec) -> list[Column]:
    """(header, justify, cells) per column, in the order they are given up when the terminal is narrow: the rank,
    model, headline, interval, scored and crash columns always stay; then wall time, tokens, speed, marks."""
    costs = [row.cost for row in rows]
    columns: list[Column] = [
        ("#", "right", [str(place) for place in range(1, len(rows) + 1)]),
        ("model", "left", [row.model for row in rows]),
        (spec.name, "right", [spec.show(row.headline.mean) if row.headline is not None else "–" for row in rows]),
        ("95% interval", "left", [interval_text(row, spec) for row in rows]),
        ("scored", "right", [f"{row.scored}/{row.runs}" for row in rows]),
        ("crash", "right", [display(row.crash_rate, "pct") for row in rows]),
        ("wall s", "right", [display(c.median_wall_s, "n1") for c in costs]),
        ("tokens in/out", "right", [f"{_count(c.prompt_tokens_per_run)}/{_count(c.output_tokens_per_run)}" for c in costs]),
        ("tok/s", "right", [display(c.tokens_per_s, "n1") for c in costs]),
    ]
    if any(row.marks for row in rows):
        columns.append(("marks", "left", ["; ".join(row.marks) for row in rows]))
    return columns


def scores_renderable(rows: Sequence[LeaderRow], spec: HeadlineSpec, title: str, width: int | None = None):
    """A rich Table: rank, model, the headline with its interval, scored of runs, crash rate, and as the width
    allows median wall time, tokens in and out per run, tokens per second and the marks of a mixed pool (the report
    and the CSV hold them all; a column left out is named under the table). Record text is never markup."""
    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    from bakeoff.textsafe import printable

    order = "higher" if spec.higher_is_better else "lower"
    columns = _cells(rows, spec)

    def table_of(kept: list[Column]) -> RichTable:
        left_out = [header for header, _, _ in columns[len(kept):]]
        caption = f"not shown at this width: {', '.join(left_out)} (in the report)" if left_out else None
        table = RichTable(title=Text(printable(f"{title} ({spec.label}, {order} is better)"), overflow="fold"),
                          caption=caption, header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
        for header, justify, _ in kept:
            folds = header in ("model", "marks")
            table.add_column(header, justify=justify, overflow="fold", no_wrap=not folds,
                             max_width=LONGEST_MODEL if header == "model" else None)
        for index in range(len(rows)):
            table.add_row(*(Text(printable(cells[index])) for _, _, cells in kept))
        return table

    if width is None:
        return table_of(columns)
    # The optional columns are given up from the last while the table is wider than the terminal: measured by rich
    # itself, so what is printed is what was measured.
    measuring = Console(width=10_000, file=io.StringIO())
    kept = list(columns)
    while len(kept) > ALWAYS_SHOWN and measuring.measure(table_of(kept)).maximum > width:
        kept.pop()
    return table_of(kept)
