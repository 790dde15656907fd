"""What `bakeoff calibrate --task simulation` prints: the references and baselines, overall and by load band,
careful's paired margins, and the checks."""

from __future__ import annotations

from typing import Any


def calibration_tables(calibration: Any) -> list[Any]:
    from rich.table import Table

    rows = [*calibration.references, *calibration.baselines, *calibration.cheaters]
    bands = [b.band for b in calibration.references[-1].bands]
    table = Table(title=f"calibration of {calibration.corpus} ({rows[0].configurations} hidden configurations)")
    for column in ("submission", "coverage", *(f"coverage {b}" for b in bands), "mean rel. error",
                   "relative Winkler", "careful better by [95%]"):
        table.add_column(column, justify="left" if column == "submission" else "right")
    margins = {m.variant: m for m in calibration.margins}
    for r in rows:
        margin = margins.get(r.variant)
        table.add_row(r.variant, f"{r.coverage:.3f}",
                      *(_share(r.band(b).coverage if r.band(b) else None) for b in bands),
                      f"{r.mean_rel_error:.4f}", f"{r.relative_winkler:.4f}",
                      f"{margin.mean:.3f} [{margin.low:.3f}, {margin.high:.3f}]" if margin else "-")
    return [table, *(f"  {'ok  ' if ok else 'FAIL'} {name}" for name, ok in calibration.checks.to_dict().items())]


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
