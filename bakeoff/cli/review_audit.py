"""`bakeoff review audit`: the bank's self-audit, as tables or one JSON object."""

from __future__ import annotations

from pathlib import Path

import click

import durable
from bakeoff.errors import BakeoffError


class AuditOverBounds(BakeoffError):
    """`--check`: a reader reads the bank better than the bounds allow."""


def _show(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _print(rows, title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table("reader", "protocol", "accuracy", "pair accuracy", "Youden's J", "worst split (acc / pair)",
                  "within bounds", title=title)
    for row in rows:
        m = row.metrics
        worst = "" if row.worst[0] is None else f"{_show(row.worst[0])} / {_show(row.worst[1])}"
        bound = "yes" if row.within_bounds else "NO"
        if row.contrastive:
            bound += " (contrastive: accuracy bound only)"
        table.add_row(row.reader, row.protocol, _show(m.accuracy), _show(m.pair_accuracy), _show(m.youden_j), worst, bound)
    console.print(table)
    families = [f.family for f in rows[0].metrics.per_family] if rows else []
    per_family = Table("reader", "protocol", *families,
                       title=f"{title}: Youden's J per family (in brackets: the chance that a reader blind to which "
                             f"twin is flawed reaches it)")
    for row in rows:
        per_family.add_row(row.reader, row.protocol, *(_family_cell(row, f) for f in row.metrics.per_family))
    console.print(per_family)


def _family_cell(row, family) -> str:
    cell = _show(family.youden_j)
    if family.family in row.families_over:
        cell += " NO"
    return f"{cell} ({row.chance[family.family]:.3f})" if family.family in row.chance else cell


def _why(row) -> str:
    """`reader (protocol)`, and the families it reads past the per-family bound with their J and its chance."""
    families = ", ".join(f"{f.family} J {f.youden_j:+.2f} (chance {row.chance[f.family]:.4f})"
                         for f in row.metrics.per_family if f.family in row.families_over)
    return f"{row.reader} ({row.protocol})" + (f": {families}" if families else "")


@click.command("audit")
@click.option("--items", "items_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The bank to audit (default: the shipped bank, with its key file beside it).")
@click.option("--real", "real_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Real items to report the readers on, trained on the bank (default: the shipped real items).")
@click.option("--json", "as_json", is_flag=True, help="Print every row as one JSON object on stdout.")
@click.option("--check", is_flag=True, help="Fail (exit 2) when a reader on the bank is past the bounds, overall or on "
              "one family (past J 0.3 by more than chance allows at the family's pair count).")
def audit(items_file, real_file, as_json, check) -> None:
    """Read the bank without understanding it: mined n-gram rules, a regression on code features, a compression
    distance, the order, dead code, baseline:cues. Every reader that learns is scored on pairs it never saw; a
    reader past a bound overall or on one family's pairs fails `--check`."""
    from bakeoff.review.audit.run import (
        ACCURACY_BOUND,
        FAMILY_CHANCE,
        FAMILY_J_BOUND,
        PAIR_BOUND,
        audit_bank,
        audit_real,
    )
    from bakeoff.review.items import default_real_items_path, load_items

    bank = load_items(items_file)
    rows = audit_bank(bank)
    real_path = real_file or default_real_items_path()
    real_rows = audit_real(bank, load_items(real_path)) if real_file or real_path.exists() else []
    if as_json:
        bounds = {"accuracy": ACCURACY_BOUND, "pair_accuracy": PAIR_BOUND, "family_youden_j": FAMILY_J_BOUND,
                  "family_chance": FAMILY_CHANCE}
        click.echo(durable.dumps({"bounds": bounds,
                               "bank": [r.to_dict() for r in rows], "real": [r.to_dict() for r in real_rows]}))
    else:
        _print(rows, f"the bank ({len(bank)} items): bounds accuracy <= {ACCURACY_BOUND}, pair accuracy <= {PAIR_BOUND}, "
                     f"Youden's J <= {FAMILY_J_BOUND} on every family unless chance reaches it "
                     f"(p >= {FAMILY_CHANCE:.4f})")
        if real_rows:
            _print(real_rows, f"real items ({real_path}), readers trained on the bank")
    over = [_why(r) for r in rows if not r.within_bounds]
    if check and over:
        raise AuditOverBounds(f"past the bounds on the bank: {'; '.join(over)}")
