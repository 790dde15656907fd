"""The knobs of the demand-forecasting take-home's data, validated once, passed down explicitly.

The difficulty settings (noise, intermittency, promotion effect, series count, history length) re-make the
data at another difficulty; `SMALL` is the size the tests use."""

from __future__ import annotations

from dataclasses import dataclass, fields

from generators.errors import InvalidParameter

GENERATOR_VERSION = "demand_forecast-1.0"
HORIZON = 28  # days forecast, at the close of the last day of history
MIN_DAYS, MAX_DAYS = 120, 4000
MAX_SERIES = 5000


@dataclass(frozen=True)
class ForecastParams:
    """Everything that determines the visible history and (with the secret) the hidden future."""

    seed: int = 0
    series: int = 500  # store-item series
    days: int = 1100  # days of history
    noise: float = 0.25  # the demand's extra-Poisson spread (the gamma mixing's coefficient of variation)
    intermittency: float = 0.3  # share of intermittent series (slow sellers: most days sell nothing)
    promotion_effect: float = 0.6  # mean extra demand on a promotion day (0.6: +60%)
    stockout_rate: float = 0.01  # chance a day starts a stock-out episode (1-5 days of censored sales)
    shock_rate: float = 0.1  # share of series whose demand shifts at an unannounced day of the horizon

    def __post_init__(self) -> None:
        _whole("seed", self.seed, 0, 2**63 - 1)
        _whole("series", self.series, 2, MAX_SERIES)
        _whole("days", self.days, MIN_DAYS, MAX_DAYS)
        _share("noise", self.noise, 0.0, 2.0)
        _share("intermittency", self.intermittency, 0.0, 1.0)
        _share("promotion_effect", self.promotion_effect, 0.0, 5.0)
        _share("stockout_rate", self.stockout_rate, 0.0, 0.2)
        _share("shock_rate", self.shock_rate, 0.0, 1.0)

    def to_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


SMALL = {"series": 20, "days": 200}  # the tests' and the demo's size


def _whole(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameter(f"{name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise InvalidParameter(f"{name} must be in [{low}, {high}], got {value}")


def _share(name: str, value: object, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidParameter(f"{name} must be a number, got {value!r}")
    if not low <= float(value) <= high:
        raise InvalidParameter(f"{name} must be in [{low}, {high}], got {value}")
