"""Grading a forecast file with the standard library alone: the mean absolute scaled error (MASE) of every
series, scaled by the in-sample error of the weekly seasonal naive forecast on its own history.

The headline is the mean of the series' MASE (lower is better; 1.0 is the in-sample error of "same day last
week"). Beside it: the same by horizon week (the series' scaled error over days 1-7, 8-14, ...), by series kind
(intermittent or smooth) and the mean scaled error of each horizon day. A forecast file is read strictly: the
columns `series`, `date`, `forecast`, one row for every series and day of the horizon, finite, at least zero.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

MAX_BYTES = 64 * 1024 * 1024
SEASON = 7
WEEKS = ("week_1", "week_2", "week_3", "week_4")
KINDS = ("smooth", "intermittent")


class ForecastFileError(Exception):
    """A forecast file that cannot be graded: `name` says what is wrong with it."""

    name = "unusable_forecast"


class MissingColumns(ForecastFileError):
    name = "missing_columns"


class BadValue(ForecastFileError):
    name = "bad_value"


class MissingRows(ForecastFileError):
    name = "missing_rows"


class ExtraRows(ForecastFileError):
    name = "extra_rows"


def seasonal_scales(units: Mapping[str, list[float]]) -> dict[str, float]:
    """Each series' in-sample mean |y_t - y_(t-7)|, floored at one unit over the history (an all-zero history)."""
    scales = {}
    for name, values in units.items():
        diffs = [abs(a - b) for a, b in zip(values[SEASON:], values[:-SEASON], strict=False)]
        scales[name] = max(sum(diffs) / len(diffs) if diffs else 0.0, 1.0 / max(len(values), 1))
    return scales


def read_units(sales_csv: Path) -> dict[str, list[float]]:
    """units by series, in the file's order (days ascending), from a sales.csv."""
    units: dict[str, list[float]] = defaultdict(list)
    with open(sales_csv, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            units[row["series"]].append(float(row["units"]))
    return dict(units)


@dataclass(frozen=True)
class Truth:
    """What happened in a horizon: units by (series, date), each row's horizon day, each series' kind and scale."""

    units: dict[tuple[str, str], float]
    day: dict[tuple[str, str], int]
    kind: dict[str, str]
    scale: dict[str, float]


def read_truth(truth_csv: Path, sales_csv: Path) -> Truth:
    units, day, kind = {}, {}, {}
    with open(truth_csv, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            key = (row["series"], row["date"])
            units[key], day[key], kind[row["series"]] = float(row["units"]), int(row["horizon_day"]), row["kind"]
    return Truth(units, day, kind, seasonal_scales(read_units(sales_csv)))


def read_forecast(path: Path, expected: Iterable[tuple[str, str]]) -> dict[tuple[str, str], float]:
    """The forecast file's values, every expected (series, date) once; ForecastFileError otherwise."""
    if Path(path).stat().st_size > MAX_BYTES:
        raise ForecastFileError(f"{Path(path).name} is over {MAX_BYTES} bytes")
    wanted = set(expected)
    found: dict[tuple[str, str], float] = {}
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"series", "date", "forecast"} - set(reader.fieldnames or ())
        if missing:
            raise MissingColumns(f"no column {', '.join(sorted(missing))} (it has {', '.join(reader.fieldnames or ())})")
        for row in reader:
            key = (row["series"], row["date"])
            if key not in wanted or key in found:
                raise ExtraRows(f"row {key[0]} {key[1]} is {'repeated' if key in found else 'not in the horizon'}")
            try:
                value = float(row["forecast"])
            except (TypeError, ValueError):
                raise BadValue(f"forecast {row['forecast']!r} for {key[0]} {key[1]} is not a number") from None
            if not math.isfinite(value) or value < 0:
                raise BadValue(f"forecast {value} for {key[0]} {key[1]} is not a finite number >= 0")
            found[key] = value
    if len(found) < len(wanted):
        first = min(wanted - set(found))
        raise MissingRows(f"{len(wanted) - len(found)} of {len(wanted)} rows are missing (first: {first[0]} {first[1]})")
    return found


@dataclass(frozen=True)
class ForecastScore:
    mase: float
    series: dict[str, float]  # each series' MASE
    kinds: dict[str, float | None]
    weeks: dict[str, float]
    by_day: list[float]  # mean scaled absolute error of each horizon day
    kind_of: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"mase": self.mase, "graded": len(self.series), "kinds": self.kinds, "weeks": self.weeks,
                "by_day": self.by_day, "series": [{"series": name, "kind": self.kind_of.get(name), "mase": value}
                                                  for name, value in self.series.items()]}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def score(truth: Truth, forecast: Mapping[tuple[str, str], float]) -> ForecastScore:
    """The scaled errors of `forecast` (every key of the truth) against the truth."""
    scaled: dict[str, dict[int, float]] = defaultdict(dict)
    for key, actual in truth.units.items():
        scaled[key[0]][truth.day[key]] = abs(actual - forecast[key]) / truth.scale[key[0]]
    per_series = {name: sum(days.values()) / len(days) for name, days in sorted(scaled.items())}
    weeks = {}
    for w, label in enumerate(WEEKS):
        week = [_mean([e for d, e in days.items() if w * SEASON < d <= (w + 1) * SEASON]) for days in scaled.values()]
        weeks[label] = _mean([v for v in week if v is not None]) or 0.0
    horizon = max(truth.day.values())
    by_day = [_mean([days[d] for days in scaled.values() if d in days]) or 0.0 for d in range(1, horizon + 1)]
    kinds = {kind: _mean([m for name, m in per_series.items() if truth.kind[name] == kind]) for kind in KINDS}
    return ForecastScore(_mean(list(per_series.values())) or 0.0, per_series, kinds, weeks, by_day, dict(truth.kind))
