"""The scores on the terminal, at the console's width: what `bakeoff run` prints when a batch ends and
`bakeoff leaderboard` prints beside its files. Compact columns; the files hold every one."""

from __future__ import annotations

from collections.abc import Sequence

from bakeoff.analysis.leaderboard import LeaderRow
from bakeoff.report.leaderboard import interval_text
from bakeoff.report.tables import display
from bakeoff.taskapi.headline import HeadlineSpec


def _count(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def scores_renderable(rows: Sequence[LeaderRow], spec: HeadlineSpec, title: str):
    """A rich Table: rank, model, the headline with its interval, scored of runs, crash rate, median wall time,
    tokens in and out per run, tokens per second (and the marks of a mixed pool). Record text is never markup."""
    from rich.table import Table as RichTable
    from rich.text import Text

    from bakeoff.textsafe import printable

    order = "higher" if spec.higher_is_better else "lower"
    table = RichTable(title=Text(printable(f"{title} ({spec.label}, {order} is better)"), overflow="fold"),
                      header_style="bold", pad_edge=False)
    marked = any(row.marks for row in rows)
    for name, justify in (("#", "right"), ("model", "left"), (spec.name, "right"), ("95% interval", "left"),
                          ("scored", "right"), ("crash", "right"), ("wall s", "right"), ("tokens in/out", "right"),
                          ("tok/s", "right"), *((("marks", "left"),) if marked else ())):
        table.add_column(name, justify=justify, overflow="fold")
    for place, row in enumerate(rows, 1):
        e, c = row.headline, row.cost
        cells = [str(place), row.model, spec.show(e.mean) if e is not None else "–", interval_text(row, spec),
                 f"{row.scored}/{row.runs}", display(row.crash_rate, "pct"), display(c.median_wall_s, "n1"),
                 f"{_count(c.prompt_tokens_per_run)}/{_count(c.output_tokens_per_run)}", display(c.tokens_per_s, "n1"),
                 *(("; ".join(row.marks),) if marked else ())]
        table.add_row(*(Text(printable(cell)) for cell in cells))
    return table
