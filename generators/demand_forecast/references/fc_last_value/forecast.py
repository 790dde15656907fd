"""Cheater: every horizon day sells what the last day of history sold.

It does no forecasting work; careful must beat it on the headline by more than chance.
"""

import argparse

import pandas as pd


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--history", required=True)
    parser.add_argument("--horizon-calendar", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    sales = pd.read_csv(f"{args.history}/sales.csv", keep_default_na=False).sort_values(["series", "date"], kind="stable")
    calendar = pd.read_csv(args.horizon_calendar, keep_default_na=False)
    calendar["h"] = calendar.groupby("series").cumcount()
    calendar["forecast"] = calendar["series"].map(sales.groupby("series")["units"].last())
    calendar[["series", "date", "forecast"]].to_csv(args.output, index=False)


if __name__ == "__main__":
    main()
