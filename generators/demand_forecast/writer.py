"""Writing the demand-forecasting take-home's data folder atomically.

What the model and the sandbox see: history/sales.csv (one row per series and day, with the after-close
columns end_of_day_stock and units_returned), horizon_calendar.csv (the next 28 days' holidays, prices and
planned promotions, nothing recorded after a close), and backtest/ (the same cut 28 days earlier, for the
visible step and the probe; backtest/blind/ without the after-close columns). What only the grader reads:
future_truth.csv (the horizon's units, from the seed and the secret), backtest_truth.csv and secret.hex. manifest.json holds every
parameter, the secret's id, the files' hashes and the planted rates as measured.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import durable
from generators.common.output import check_target, file_sha256, new_staging
from generators.demand_forecast.params import GENERATOR_VERSION, HORIZON, ForecastParams
from generators.demand_forecast.series import (
    Future,
    Recorded,
    Series,
    draw_future,
    draw_series,
    holiday_of,
    record_history,
)
from generators.secret import SECRET_FILE, Secret

HISTORY, CALENDAR, BACKTEST, BLIND = "history", "horizon_calendar.csv", "backtest", "backtest/blind"
SALES, TRUTH, MANIFEST, EXCERPT = "sales.csv", "future_truth.csv", "manifest.json", "excerpt.txt"
BACKTEST_TRUTH = "backtest_truth.csv"  # the history's last 28 days, as the backtest's truth (visible anyway)
CALENDAR_COLUMNS = ("series", "date", "holiday", "price", "promotion")
SALES_COLUMNS = (*CALENDAR_COLUMNS, "units", "end_of_day_stock", "units_returned")
AFTER_CLOSE = ("end_of_day_stock", "units_returned")
TRUTH_COLUMNS = ("series", "date", "horizon_day", "units", "kind", "shocked")


@dataclass(frozen=True)
class ForecastManifest:
    params: ForecastParams
    secret_id: str
    sha256: dict[str, str]
    measured: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"generator_version": GENERATOR_VERSION, "task": "demand_forecast", "seed": self.params.seed,
                "params": self.params.to_dict(), "secret_id": self.secret_id,
                "hidden_part": "the horizon's units (the level's walk going on, the noise, the shocks) drawn from "
                               "the seed and the secret (secret.hex, never mounted); the series, the history and "
                               "both calendars from the seed and the secret too (the same series go on into the "
                               "horizon: a history from the seed alone would give their true parameters away)",
                "sha256": dict(self.sha256), "measured": self.measured}


def _rows(series: Series, span: range, columns: tuple[str, ...], recorded: Recorded | None) -> list[list[object]]:
    names, prices = series.names, series.prices()
    dates = [series.days[t].isoformat() for t in span]
    holidays = [holiday_of(series.days[t]) for t in span]
    rows = []
    for i, name in enumerate(names):
        for k, t in enumerate(span):
            row: list[object] = [name, dates[k], holidays[k], f"{prices[i, t]:.2f}", int(series.promotion[i, t])]
            if recorded is not None:
                row += [int(recorded.units[i, t]), int(recorded.stock_end[i, t]), int(recorded.returned[i, t])]
            rows.append(row[: len(columns)])
    return rows


def _write_csv(path: Path, columns: tuple[str, ...], rows: list[list[object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)


def measure(series: Series, recorded: Recorded, future: Future, days: int) -> dict[str, Any]:
    """The planted rates as they came out (the manifest's `measured`), so a corpus shows what it holds."""
    slow, promo = series.intermittent, series.promotion[:, :days]
    plain = ~promo & ~recorded.stockout
    lift = (recorded.units[~slow][promo[~slow] & ~recorded.stockout[~slow]].mean()
            / max(recorded.units[~slow][plain[~slow]].mean(), 1e-9)) if (~slow).any() else None
    return {
        "series": int(series.n), "intermittent_series": int(slow.sum()),
        "zero_day_share": {"intermittent": _share(recorded.units[slow] == 0), "smooth": _share(recorded.units[~slow] == 0)},
        "stockout_day_share": _share(recorded.stockout), "censored_unit_share":
            float((recorded.demand - recorded.units).sum() / max(recorded.demand.sum(), 1)),
        "promotion_day_share": {"history": _share(promo), "horizon": _share(series.promotion[:, days:])},
        "promotion_lift_smooth": None if lift is None else round(float(lift), 4),
        "holidays_in_horizon": sorted({h for d in series.days[days:] if (h := holiday_of(d))}),
        "shocked_series": int(future.shocked.sum()),
        "horizon_zero_share": _share(future.units == 0),
    }


def _share(mask: np.ndarray) -> float | None:
    return round(float(mask.mean()), 4) if mask.size else None


def generate_forecast_data(params: ForecastParams, out_dir: Path, force: bool = False, secret: Secret | None = None,
                           progress: Callable[[str], None] = lambda _: None) -> ForecastManifest:
    """History and calendars, the hidden future (all from the seed and the secret: a fresh one unless given),
    the backtest cut, the truth and the manifest, into `out_dir`."""
    out_dir = Path(out_dir).absolute()
    secret = secret if secret is not None else Secret.fresh()
    check_target(out_dir, force)
    staging = new_staging(out_dir)
    with durable.publishing(staging, out_dir):
        progress("the series and their history")
        series = draw_series(params, secret.seed_sequence(params.seed, "demand_forecast series"))
        recorded, last_walk = record_history(series, params, secret.seed_sequence(params.seed, "demand_forecast history"))
        future = draw_future(series, params, last_walk, secret.seed_sequence(params.seed, "demand_forecast future"))
        days = params.days
        full = _rows(series, range(days), SALES_COLUMNS, recorded)
        _write_csv(staging / HISTORY / SALES, SALES_COLUMNS, full)
        _write_csv(staging / CALENDAR, CALENDAR_COLUMNS, _rows(series, range(days, days + HORIZON), CALENDAR_COLUMNS, None))
        progress("the backtest cut")
        cut = [row for row in full if str(row[1]) <= series.days[days - HORIZON - 1].isoformat()]
        _write_csv(staging / BACKTEST / HISTORY / SALES, SALES_COLUMNS, cut)
        _write_csv(staging / BLIND / SALES, SALES_COLUMNS[:-2], [row[:-2] for row in cut])
        _write_csv(staging / BACKTEST / CALENDAR, CALENDAR_COLUMNS,
                   _rows(series, range(days - HORIZON, days), CALENDAR_COLUMNS, None))
        (staging / EXCERPT).write_text("".join(open(staging / HISTORY / SALES, encoding="utf-8").readlines()[:12]),
                                       encoding="utf-8")
        kinds = np.where(series.intermittent, "intermittent", "smooth")
        truth = [[name, series.days[days + h].isoformat(), h + 1, int(future.units[i, h]), kinds[i],
                  int(future.shocked[i])] for i, name in enumerate(series.names) for h in range(HORIZON)]
        _write_csv(staging / TRUTH, TRUTH_COLUMNS, truth)
        held = [[name, series.days[days - HORIZON + h].isoformat(), h + 1, int(recorded.units[i, days - HORIZON + h]),
                 kinds[i], 0] for i, name in enumerate(series.names) for h in range(HORIZON)]
        _write_csv(staging / BACKTEST_TRUTH, TRUTH_COLUMNS, held)
        secret.write(staging)
        names = sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*") if p.is_file() and p.name != SECRET_FILE)
        manifest = ForecastManifest(params, secret.identity, {name: file_sha256(staging / name) for name in names},
                                    measure(series, recorded, future, days))
        (staging / MANIFEST).write_text(json.dumps(manifest.to_dict(), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return manifest
