"""What `bakeoff calibrate` prints for spam_classifier: the references' F1 table and the contamination sweep."""

from __future__ import annotations

from typing import Any


def calibration_tables(calibration: Any) -> list[Any]:
    from rich.table import Table

    shown: list[Any] = []
    for kind, rows in (("reference", calibration.references), ("cheater", calibration.cheaters)):
        table = Table(title=f"calibration of {calibration.corpus}" if kind == "reference" else "cheaters")
        table.add_column(kind, no_wrap=True)
        for column in ("local F1", "holdout F1", "careful's margin [95%]"):
            table.add_column(column, justify="right")
        for r in rows:  # precision, recall and the predicted spam rate are in calibration.json
            margin = f"{r.margin.estimate:+.3f} [{r.margin.low:+.3f}, {r.margin.high:+.3f}]" if r.margin else ""
            table.add_row(r.variant, f"{r.local_f1:.3f}", f"{r.holdout_f1:.3f}", margin)
        shown.append(table)
    shown.extend(f"  {'ok  ' if ok else 'FAIL'} {name}" for name, ok in calibration.checks.to_dict().items())
    if calibration.sweep:
        variants = [r.variant for r in calibration.sweep[0].results]
        sweep_table = Table(title="holdout F1 by contamination")
        sweep_table.add_column("contamination", justify="right")
        for variant in variants:
            sweep_table.add_column(variant, justify="right")
        for point in calibration.sweep:
            sweep_table.add_row(f"{point.contamination:.3f}", *(f"{point.holdout_f1(v):.3f}" for v in variants))
        shown.append(sweep_table)
        shown.append(f"  text_only falls monotonically: {calibration.sweep_falls_monotonically}")
    return shown
