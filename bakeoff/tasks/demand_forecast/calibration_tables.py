"""What `bakeoff calibrate --task demand_forecast` prints: every reference and cheater's MASE (by kind and week),
the references' claims and backtest errors, careful's paired margins, and the targets."""

from __future__ import annotations

from typing import Any


def calibration_tables(calibration: Any) -> list[Any]:
    from rich.table import Table

    table = Table(title=f"calibration of {calibration.corpus} ({len(calibration.row('fc_careful').per_series)} series)")
    for column in ("submission", "MASE", "smooth", "intermittent", "week 1", "week 4", "claimed", "backtest",
                   "careful better by [95%]"):
        table.add_column(column, justify="left" if column == "submission" else "right")
    for r in calibration.rows:
        m = r.margin
        table.add_row(r.variant, f"{r.mase:.4f}", _f(r.kinds["smooth"]), _f(r.kinds["intermittent"]),
                      _f(r.weeks["week_1"]), _f(r.weeks["week_4"]), _f(r.claimed), _f(r.backtest_mase),
                      f"{m.estimate:.3f} [{m.low:.3f}, {m.high:.3f}]" if m else "-")
    return [table, *(f"  {'ok  ' if ok else 'FAIL'} {name}" for name, ok in calibration.targets.to_dict().items())]


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"
