"""The demand-forecasting take-home's data: daily unit sales per store and item, a calendar known ahead, and a
hidden 28-day future keyed by a secret.

Entry point: `generate_forecast_data(ForecastParams(...), out_dir) -> ForecastManifest`.
"""

from generators.demand_forecast.params import GENERATOR_VERSION, HORIZON, ForecastParams
from generators.demand_forecast.writer import ForecastManifest, generate_forecast_data

__all__ = ["GENERATOR_VERSION", "HORIZON", "ForecastManifest", "ForecastParams", "generate_forecast_data"]
