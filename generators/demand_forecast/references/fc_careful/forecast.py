"""Reference forecast, careful: only what is known at the close of the last day, built for 28 days ahead.

Per series: a level from the recent weeks (stock-out days left out: their sales are censored), a weekday
profile shrunk toward the chain's, a promotion lift per point of discount pooled over the series, holiday
factors pooled over the series from past years, and last year's change over the same weeks. The point
forecast is the predictive median (absolute error is minimised by the median; it matters for slow sellers).
Its claimed error comes from a rolling-origin backtest at the real horizon: forecast from three earlier
closes, 28 days each, with the same code, scored as the grader scores (MASE against weekly seasonal naive).
"""

import argparse

import numpy as np
import pandas as pd

H, LEVEL_WEEKS = 28, 6


def read(history):
    sales = pd.read_csv(f"{history}/sales.csv", parse_dates=["date"], keep_default_na=False)
    sales["holiday"] = sales["holiday"].astype(str)
    return sales.sort_values(["series", "date"], kind="stable")


def censored(sales):
    if "end_of_day_stock" not in sales:
        return pd.Series(False, index=sales.index)
    return sales["end_of_day_stock"].eq(0)  # the shelf ran empty: that day's sales are a floor, not the demand


def fit(sales):
    s = sales.assign(dow=sales["date"].dt.day_of_week, bad=censored(sales))
    plain = s[~s["bad"] & s["promotion"].eq(0) & s["holiday"].eq("")]
    recent = plain[plain["date"] > s["date"].max() - pd.Timedelta(weeks=26)]
    chain = recent.groupby("dow")["units"].mean() / recent["units"].mean()
    by = recent.groupby(["series", "dow"])["units"].mean().unstack().reindex(columns=range(7)).fillna(0)
    weight = recent.groupby("series")["units"].sum().reindex(by.index).fillna(0)
    shrink = (weight / (weight + 200.0)).to_numpy()[:, None]
    own = by.div(by.mean(axis=1).replace(0, np.nan), axis=0).fillna(1.0)
    weekly = pd.DataFrame(shrink * own.to_numpy() + (1 - shrink) * chain.to_numpy()[None, :], index=by.index)
    s["weekly"] = weekly.to_numpy()[s["series"].map({k: i for i, k in enumerate(weekly.index)}), s["dow"]]
    last = s["date"].max()
    window = s[~s["bad"] & s["promotion"].eq(0) & s["holiday"].eq("") & (s["date"] > last - pd.Timedelta(weeks=LEVEL_WEEKS))]
    level = (window["units"] / window["weekly"]).groupby(window["series"]).mean()
    s["base"] = s["series"].map(level) * s["weekly"]
    promo = s[~s["bad"] & s["promotion"].eq(1) & s["holiday"].eq("") & s["base"].gt(0.5)]
    lift = float(np.log(promo["units"].sum() / max(promo["base"].sum(), 1e-9)) / max(promo["discount"].mean(), 1e-9)) if len(promo) else 0.0
    holidays = {}
    for name, rows in s[s["holiday"].ne("") & ~s["bad"] & s["promotion"].eq(0)].groupby("holiday"):
        holidays[name] = float(np.clip(rows["units"].sum() / max(rows["base"].sum(), 1e-9), 0.1, 4.0))
    return level, weekly, lift, holidays, yearly(s, last)


def yearly(s, last):
    """The chain's change from the level window to the horizon, one year earlier (1.0 without a year of history)."""
    ago = last - pd.Timedelta(days=364)
    if s["date"].min() > ago - pd.Timedelta(weeks=LEVEL_WEEKS):
        return 1.0
    plain = s[~s["bad"] & s["holiday"].eq("") & s["promotion"].eq(0)]
    before = plain[(plain["date"] > ago - pd.Timedelta(weeks=LEVEL_WEEKS)) & (plain["date"] <= ago)]
    after = plain[(plain["date"] > ago) & (plain["date"] <= ago + pd.Timedelta(days=H))]
    ratio = (after.groupby("series")["units"].mean() / before.groupby("series")["units"].mean()).replace([np.inf], np.nan)
    return ratio.clip(0.6, 1.6).fillna(1.0)


def predict(sales, calendar):
    level, weekly, lift, holidays, year = fit(sales)
    cal = calendar.assign(dow=calendar["date"].dt.day_of_week)
    index = {k: i for i, k in enumerate(weekly.index)}
    rows = cal["series"].map(index)
    mean = cal["series"].map(level).fillna(0).to_numpy() * weekly.to_numpy()[rows, cal["dow"]]
    if not isinstance(year, float):
        mean = mean * cal["series"].map(year).fillna(1.0).to_numpy()
    mean = mean * np.exp(lift * cal["discount"].to_numpy() * cal["promotion"].to_numpy())
    mean = mean * cal["holiday"].map(holidays).fillna(1.0).to_numpy()
    median = np.where(mean < 5, np.floor(mean + 1 / 3 - 0.02 / np.maximum(mean, 1e-6)), mean)
    return cal.assign(forecast=np.maximum(median, 0.0))


def with_discount(frame, base_price):
    return frame.assign(discount=(1 - frame["price"] / frame["series"].map(base_price)).clip(0, 0.9))


def scales(sales):
    def one(units):
        d = np.abs(units[7:] - units[:-7])
        return max(d.mean() if len(d) else 0.0, 1.0 / max(len(units), 1))
    return {k: one(g["units"].to_numpy(float)) for k, g in sales.groupby("series")}


def backtest(sales, base_price, origins=3):
    """MASE of this method from `origins` earlier closes, 28 days ahead each (rolling origin)."""
    errors = []
    last = sales["date"].max()
    for k in range(1, origins + 1):
        cut = last - pd.Timedelta(days=H * k)
        past, future = sales[sales["date"] <= cut], sales[(sales["date"] > cut) & (sales["date"] <= cut + pd.Timedelta(days=H))]
        got = predict(with_discount(past, base_price), with_discount(future.drop(columns=["units"]), base_price))
        scale = future["series"].map(scales(past)).to_numpy()
        err = np.abs(got["forecast"].to_numpy() - future["units"].to_numpy()) / scale
        errors.append(pd.Series(err).groupby(future["series"].to_numpy()).mean().mean())
    return float(np.mean(errors))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--history", required=True)
    parser.add_argument("--horizon-calendar", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    sales = read(args.history)
    calendar = pd.read_csv(args.horizon_calendar, parse_dates=["date"], keep_default_na=False)
    calendar["holiday"] = calendar["holiday"].astype(str)
    base_price = sales.groupby("series")["price"].max()
    got = predict(with_discount(sales, base_price), with_discount(calendar, base_price))
    got.assign(date=got["date"].dt.strftime("%Y-%m-%d"))[["series", "date", "forecast"]].to_csv(args.output, index=False)
    print(f"EXPECTED_MASE: {backtest(sales, base_price):.4f}")


if __name__ == "__main__":
    main()
