"""More metric_mismatch pairs (v4): the tolerance band a forecast is judged by.

band-base: the claim says a forecast falls within a share of each period's own value; both twins compute
the share with the band taken from each period's value and with the band taken from the mean period, and
print both. The twins hold the same tokens: they differ only in which of the two names each figure is bound
to, so only reading what each line computes tells which one `reported` is. Each pair has its own names for
the two figures, and half compute the mean band first, so the template's lines differ from pair to pair.
"""

from __future__ import annotations

from generators.review_data.bank.common import exchange
from generators.review_data.bank.spec import PairSpec


def _tail(share: str, names: tuple[str, str, str], mean_first: bool) -> str:
    """The shared ending; each pair names its own figures and gap, and half compute the mean band first."""
    own, flat, gap = names
    lines = [f"{own} = float(np.mean({gap} <= {share} * actual))",
             f"{flat} = float(np.mean({gap} <= {share} * actual.mean()))"]
    if mean_first:
        lines.reverse()
    return (f"{gap} = np.abs(forecast - actual)\n" + "\n".join(lines) + "\n"
            f'print(f"within {share}: around its own value {{{own}:.3f}}, around the mean {{{flat}:.3f}}")\n'
            f"reported = {own}\n")


def band_base(pair_id: str, fixture: str, prepare: str, share: str, claim: str, knobs: tuple,
              names: tuple[str, str, str], mean_first: bool = False) -> PairSpec:
    """`prepare` binds `actual` and `forecast` (arrays over the scored periods)."""
    own, flat, gap = names
    code = prepare + _tail(share, names, mean_first)
    bad = exchange(code, f"{own} = float(", f"{flat} = float(")
    return PairSpec(
        pair_id, "metric_mismatch", fixture, claim, code, bad, (f"{own} = float(np.mean({gap} <= ",),
        "The reported share counts the periods whose forecast falls within the band around that period's own "
        "value, as the claim says.",
        f"The figure bound to `{own}` is the share within a band around the mean period's value, one width for "
        "every period, not the band around each period's own value that the claim names.",
        {"kind": "claimed", "expr": f"np.mean(np.abs(forecast - actual) <= {share} * actual)"}, knobs=knobs,
        template="band-base",
    )


def _lag_ridge(target: str, inputs: str) -> str:
    return f"""import numpy as np
from sklearn.linear_model import Ridge

# df: one row per day, oldest first
df = df.assign(lag_7=df["{target}"].shift(7), lag_14=df["{target}"].shift(14)).dropna()
X, y = df[[{inputs}, "lag_7", "lag_14"]], df["{target}"]
n_test = @KNOB@
model = Ridge(alpha=1.0).fit(X.iloc[:-n_test], y.iloc[:-n_test])
forecast = model.predict(X.iloc[-n_test:])
actual = y.iloc[-n_test:].to_numpy()
"""


_PER_STORE = """import numpy as np

# df: one row per store and week
df = df.sort_values(["store", "week"])
df["forecast"] = df.groupby("store")["sales"].transform(lambda s: s.shift(1).rolling(4).mean())
scored = df[df["week"] >= sorted(df["week"].unique())[-@KNOB@]]
forecast, actual = scored["forecast"].to_numpy(), scored["sales"].to_numpy()
"""

_SAME_WEEKDAY = """import numpy as np

# df: one row per day, oldest first
n_test = @KNOB@
load = df["load_mwh"].to_numpy()
forecast = np.array([load[t - 7] for t in range(len(load) - n_test, len(load))])
actual = load[-n_test:]
"""


def pairs() -> list[PairSpec]:
    return [
        band_base("band-base.stores", "store_panel", _PER_STORE, "0.08",
                  "Forecast as the mean of its four weeks before, each store's weekly sales over the last weeks come "
                  "within 8% of that store-week's own sales in a share of @FIG@ of store-weeks.", tuple(range(3, 30)),
                  ("own_band", "flat_band", "gap")),
        band_base("band-base.load", "energy", _lag_ridge("load_mwh", '"degree_days", "workday"'), "0.04",
                  "On the final stretch of days, forecast daily energy load is within 4% of that day's own load on "
                  "a share of @FIG@ of days.", tuple(range(40, 200, 2)),
                  ("by_day", "by_level", "miss"), mean_first=True),
        band_base("band-base.weekday", "energy", _SAME_WEEKDAY, "0.06",
                  "Taking the same weekday a week before as the forecast, daily energy load over the last days is "
                  "within 6% of each day's own load on a share of @FIG@ of days.", tuple(range(90, 400, 3)),
                  ("share_own", "share_avg", "abs_gap")),
    ]
