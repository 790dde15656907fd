"""The demand-forecasting take-home (docs/tasks.md, "demand_forecast")."""
