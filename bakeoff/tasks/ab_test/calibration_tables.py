"""What `bakeoff calibrate --task ab_test` prints: the references and the cheaters with careful's paired
margins, and the checks (error and width are in calibration.json)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import RenderableType

    from generators.ab_test.calibration import AbCalibration


def calibration_tables(calibration: AbCalibration) -> list[RenderableType]:
    from rich.table import Table

    tables: list[RenderableType] = []
    groups = (("references", calibration.references), ("cheaters", calibration.cheaters),
              ("with priors", calibration.with_prior))
    for kind, rows in (group for group in groups if group[1]):
        table = Table(title=f"{kind} on {calibration.references[0].experiments} hidden experiments of {calibration.corpus}")
        table.add_column(kind[:-1], no_wrap=True)
        for column in ("coverage [95%]", "Winkler", "careful's margin [95%]"):
            table.add_column(column, justify="right")
        for r in rows:
            margin = f"{r.margin.estimate:+.4f} [{r.margin.low:+.4f}, {r.margin.high:+.4f}]" if r.margin else ""
            table.add_row(r.variant, f"{r.coverage:.3f} [{r.coverage_low:.2f}, {r.coverage_high:.2f}]",
                          f"{r.winkler:.4f}", margin)
        tables.append(table)
    return [*tables, *(f"  {'ok  ' if ok else 'FAIL'} {name}" for name, ok in calibration.checks.to_dict().items())]
