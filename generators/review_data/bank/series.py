"""Pair templates on daily series: a store's sales, a building's energy load.

Forecasts are scored as the share of days within a tolerance of the actual value: unlike R^2 it does
not depend on how much the level happens to vary inside the scored stretch.
"""

from __future__ import annotations

from dataclasses import dataclass

from generators.review_data.bank.spec import PairSpec


def _within(s: Series) -> str:
    return f"""def within(actual, forecast):
    actual, forecast = np.asarray(actual), np.asarray(forecast)
    return float(np.mean(np.abs(forecast - actual) <= {s.tolerance}))
"""


@dataclass(frozen=True)
class Series:
    fixture: str
    target: str
    inputs: tuple[str, ...]
    what: str
    tolerance: str  # the code's tolerance expression on `actual`
    within_text: str  # the same, as the claim says it


SALES = Series("daily_sales", "sales", ("promo", "temperature"), "daily sales", "0.05 * actual", "within 5%")
# Load's tolerance is absolute: summer days are lighter, and a relative band would be narrower then.
LOAD = Series("energy", "load_mwh", ("degree_days", "workday"), "daily energy load", "20.0", "within 20 MWh")


def _frame(s: Series, extra: str = "") -> str:
    cols = ", ".join(f'"{c}"' for c in (*s.inputs, "lag_1", "lag_7", "dow"))
    return f"""# df: one row per day, oldest first
df = df.assign(dow=df["date"].dt.dayofweek, lag_1=df["{s.target}"].shift(1), lag_7=df["{s.target}"].shift(7){extra})
df = df.dropna()
X = pd.get_dummies(df[[{cols}]], columns=["dow"], dtype=float)
y = df["{s.target}"]
"""


def folds(s: Series, pair_id: str) -> PairSpec:
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.metrics import make_scorer
from sklearn.model_selection import KFold, TimeSeriesSplit, cross_val_score

{_frame(s)}
{_within(s)}
cv = TimeSeriesSplit(n_splits=@K2@, test_size=@K0@)
scores = cross_val_score(Ridge(alpha=1.0), X, y, cv=cv, scoring=make_scorer(within))
print("share {s.within_text} per fold:", scores.round(3))
reported = scores.mean()
"""
    bad = code.replace("cv = TimeSeriesSplit(n_splits=@K2@, test_size=@K0@)", "cv = KFold(n_splits=@K2@, shuffle=True, random_state=@K1@)")
    return PairSpec(
        pair_id, "temporal_leakage", s.fixture,
        f"Forecasting each day from the days before it, the model gets {s.what} {s.within_text} on a share of @FIG@ of days (mean over folds).",
        code.replace("cv = TimeSeriesSplit", "cv = TimeSeriesSplit"), bad, ("cv = KFold(",),
        "Each fold trains on earlier days and is scored on the days that follow, as a forecast would be.",
        "Shuffled folds train on days after the ones they score, so the drifting level is interpolated rather than forecast.",
        {"kind": "folds_future", "cv": "cv", "X": "X"},
        knobs=tuple((size, rs, 5) for size in (60, 50, 70, 40) for rs in range(30))
        + tuple((size, rs, k) for k in (10, 12, 14) for size in range(24, 38, 2) for rs in range(10)),
    )


def random_split(s: Series, pair_id: str) -> PairSpec:
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

{_frame(s)}
{_within(s)}
n_test = @KNOB@
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=n_test, shuffle=False)
model = Ridge(alpha=1.0).fit(X_train, y_train)
reported = within(y_test, model.predict(X_test))
print(f"{{len(X_train)}} days to fit, {{len(X_test)}} to score: {{reported:.3f}} {s.within_text}")
"""
    bad = code.replace("X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=n_test, shuffle=False)",
                       "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=n_test, random_state=7)")
    return PairSpec(
        pair_id, "temporal_leakage", s.fixture,
        f"Trained on the earlier part of the record, the model forecasts the most recent stretch of {s.what} "
        f"{s.within_text} on a share of @FIG@ of days.",
        code, bad, ("train_test_split(X, y, test_size=n_test",),
        "With shuffle=False the split keeps the order of the days: the last n_test days are held out and the model is "
        "fitted on the days before them.",
        "train_test_split shuffles by default, so it scores days scattered through the record, with later days in "
        "training, not the most recent stretch.",
        {"kind": "future", "train": "X_train", "test": "X_test", "date": "date"}, knobs=tuple(range(60, 200, 2)),
    )


def window(s: Series, pair_id: str) -> PairSpec:
    extra = f', recent=df["{s.target}"].rolling(28).mean().shift(1)'
    cols = ", ".join(f'"{c}"' for c in (*s.inputs, "lag_1", "recent", "dow"))
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

# df: one row per day, oldest first
{_within(s)}
df = df.assign(dow=df["date"].dt.dayofweek, lag_1=df["{s.target}"].shift(1){extra})
df = df.dropna()
X = pd.get_dummies(df[[{cols}]], columns=["dow"], dtype=float)
y = df["{s.target}"]

n_test = @KNOB@
X_train, X_test, y_train, y_test = X.iloc[:-n_test], X.iloc[-n_test:], y.iloc[:-n_test], y.iloc[-n_test:]
model = Ridge(alpha=1.0).fit(X_train, y_train)
reported = within(y_test, model.predict(X_test))
print(f"share {s.within_text} over the last {{n_test}} days: {{reported:.3f}}")
"""
    bad = code.replace(f'recent=df["{s.target}"].rolling(28).mean().shift(1)', f'recent=df["{s.target}"].shift(1).rolling(28, center=True).mean()')
    return PairSpec(
        pair_id, "temporal_leakage", s.fixture,
        f"With a four-week average level as a feature, the model forecasts the most recent days of {s.what} "
        f"{s.within_text} on a share of @FIG@ of days.",
        code, bad, ("center=True",),
        "The four-week average covers the 28 days before each day, all known at forecast time.",
        "A centred window averages the fortnight after each day too, so training rows near the cut and every test row use days not yet seen.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"shift": [s.target, 40.0]}}, knobs=tuple(range(60, 200, 2)),
    )


def after_day(s: Series, pair_id: str, legit: str, leak: str, dictionary: str) -> PairSpec:
    cols = ", ".join(f'"{c}"' for c in (*s.inputs, legit, "lag_1", "lag_7", "dow"))
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

# df: one row per day, oldest first
{dictionary}
{_within(s)}
df = df.assign(dow=df["date"].dt.dayofweek, lag_1=df["{s.target}"].shift(1), lag_7=df["{s.target}"].shift(7))
df = df.dropna()
X = pd.get_dummies(df[[{cols}]], columns=["dow"], dtype=float)
y = df["{s.target}"]

n_test = @KNOB@
X_train, X_test, y_train, y_test = X.iloc[:-n_test], X.iloc[-n_test:], y.iloc[:-n_test], y.iloc[-n_test:]
model = Ridge(alpha=1.0).fit(X_train, y_train)
reported = within(y_test, model.predict(X_test))
print(f"share {s.within_text} over the last {{n_test}} days: {{reported:.3f}}")
"""
    bad = code.replace(f'"{legit}", "lag_1"', f'"{leak}", "lag_1"')
    return PairSpec(
        pair_id, "target_leakage", s.fixture,
        f"From what is known the evening before, the model forecasts the most recent days of {s.what} {s.within_text} on a share of @FIG@ of days.",
        code, bad, (f'"{leak}", "lag_1"',),
        f"{legit} is known before the day starts, as are the lags.",
        f"{leak} is recorded at the end of the day it describes, so it is not known the evening before.",
        {"kind": "deploy", "column": leak, "value": "median"}, knobs=tuple(range(60, 200, 2)),
    )


def in_sample(s: Series, pair_id: str) -> PairSpec:
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

{_frame(s)}
{_within(s)}
n_test = @KNOB@
X_train, X_test, y_train, y_test = X.iloc[:-n_test], X.iloc[-n_test:], y.iloc[:-n_test], y.iloc[-n_test:]
model = Ridge(alpha=1.0).fit(X_train, y_train)
fit_share = within(y_train, model.predict(X_train))
forecast_share = within(y_test, model.predict(X_test))
print(f"{s.within_text}: fit {{fit_share:.3f}}, forecast {{forecast_share:.3f}}")
reported = forecast_share
"""
    bad = code.replace("reported = forecast_share", "reported = fit_share")
    return PairSpec(
        pair_id, "metric_mismatch", s.fixture,
        f"On the most recent days, which it was not fitted on, the model forecasts {s.what} {s.within_text} on a share of @FIG@ of days.",
        code, bad, ("reported = fit_share",),
        "The reported share is the one on the held-out recent days.",
        "The reported share is measured on the training days the model was fitted on, not on the recent days that the claim names.",
        {"kind": "claimed", "expr": "within(y_test, model.predict(X_test))"}, knobs=tuple(range(60, 240, 2)),
    )


def lags_on_test(s: Series, pair_id: str) -> PairSpec:
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

# df: one row per day, oldest first
{_within(s)}
n_test = @KNOB@
results = {{}}
for n_lags in [1, 2, 7, 14]:
    lags = {{f"lag_{{k}}": df["{s.target}"].shift(k) for k in range(1, n_lags + 1)}}
    frame = df.assign(**lags).dropna()
    X = frame[[*{list(s.inputs)!r}, *lags]]
    y = frame["{s.target}"]
    fit, valid, test = slice(None, -2 * n_test), slice(-2 * n_test, -n_test), slice(-n_test, None)
    model = Ridge(alpha=1.0).fit(X.iloc[fit], y.iloc[fit])
    results[n_lags] = (within(y.iloc[valid], model.predict(X.iloc[valid])), within(y.iloc[test], model.predict(X.iloc[test])))
best = max(results, key=lambda k: results[k][0])
print({{k: tuple(round(v, 3) for v in r) for k, r in results.items()}})
reported = results[best][1]
"""
    bad = code.replace("best = max(results, key=lambda k: results[k][0])", "best = max(results, key=lambda k: results[k][1])")
    return PairSpec(
        pair_id, "test_set_tuning", s.fixture,
        f"With the number of lags chosen for it, the model forecasts the final stretch of {s.what} {s.within_text} on a share of @FIG@ of days.",
        code, bad, ("results[k][1])",),
        "The number of lags is chosen on the validation stretch; the final stretch is only scored.",
        "The number of lags is the one that scores best on the final stretch, the same figure then reported as the forecast quality.",
        {"kind": "reaches", "probe": "best", "perturb": {"shift": [s.target, 60.0]}, "held": "y.iloc[test].index"},
        knobs=tuple(range(40, 120, 2)),
    )


def scale_first(s: Series, pair_id: str) -> PairSpec:
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

{_frame(s)}
{_within(s)}
n_test = @KNOB@
X_train, X_test, y_train, y_test = X.iloc[:-n_test], X.iloc[-n_test:], y.iloc[:-n_test], y.iloc[-n_test:]
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
model = Ridge(alpha=1.0).fit(X_train, y_train)
reported = within(y_test, model.predict(X_test))
print(f"share {s.within_text} over the last {{n_test}} days: {{reported:.3f}}")
"""
    bad = code.replace("scaler = StandardScaler().fit(X_train)\n", "")
    bad = bad.replace("n_test = @KNOB@\n", "n_test = @KNOB@\nscaler = StandardScaler().fit(X)\n")
    return PairSpec(
        pair_id, "data_leakage", s.fixture,
        f"With standardised features, the model forecasts the most recent days of {s.what} {s.within_text} on a share of @FIG@ of days.",
        code, bad, ("scaler = StandardScaler().fit(X)",),
        "The scaler's means and deviations come from the earlier days the model is fitted on.",
        "The scaler is fitted on every day, the forecast days included, so their statistics shape the training features.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"shift": ["temperature" if "temperature" in s.inputs else s.inputs[0], 5.0]}},
        knobs=tuple(range(60, 200, 2)),
    )


_PANEL = """import numpy as np
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import Ridge

# df: weekly sales of 30 stores over a year; footfall is counted at the door
"""


def store_split() -> PairSpec:
    code = _PANEL + """from sklearn.model_selection import GroupShuffleSplit

df = df.assign(week_number=df["week"].dt.isocalendar().week.astype(int))
features = ["promo", "footfall", "week_number"]
splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=@KNOB@)
train_idx, test_idx = next(splitter.split(df, groups=df["store"]))
train, test = df.iloc[train_idx], df.iloc[test_idx]

model = RandomForestRegressor(n_estimators=60, min_samples_leaf=5, random_state=0)
model.fit(train[features], train["sales"])
error = np.abs(model.predict(test[features]) - test["sales"])
reported = float(np.mean(error <= 0.1 * test["sales"]))
print(f"{train['store'].nunique()} stores to fit; share of store-weeks within 10%: {reported:.3f}")
"""
    bad = code.replace('groups=df["store"]', 'groups=df["week"]')
    return PairSpec(
        "store-split.panel", "train_test_contamination", "store_panel",
        "For stores it has never seen, the model gets weekly sales within 10% on a share of @FIG@ of store-weeks.",
        code, bad, ('groups=df["week"]',),
        "Whole stores are held out, so the score is for stores new to the model.",
        "Grouping by week puts every store on both sides of the split, so the scored stores are ones the model was fitted on.",
        {"kind": "shared", "train": "train", "test": "test", "key": "store"}, knobs=tuple(range(200)),
    )


def store_level() -> PairSpec:
    code = _PANEL + """
cutoff = df["week"].sort_values().unique()[-@KNOB@]
train, test = df[df["week"] < cutoff], df[df["week"] >= cutoff]
level = train.groupby("store")["sales"].mean()
X_train = np.column_stack([train["store"].map(level), train["promo"], train["footfall"]])
X_test = np.column_stack([test["store"].map(level), test["promo"], test["footfall"]])

model = Ridge(alpha=1.0).fit(X_train, train["sales"])
error = np.abs(model.predict(X_test) - test["sales"])
reported = float(np.mean(error <= 0.1 * test["sales"]))
print(f"weeks from {cutoff:%Y-%m-%d}: share of store-weeks within 10%: {reported:.3f}")
"""
    bad = code.replace('level = train.groupby("store")["sales"].mean()', 'level = df.groupby("store")["sales"].mean()')
    return PairSpec(
        "store-level.panel", "temporal_leakage", "store_panel",
        "Forecasting the final weeks of the year from the weeks before, the model gets store sales within 10% on a share of @FIG@ of store-weeks.",
        code, bad, ('level = df.groupby("store")',),
        "Each store's average level is taken over the training weeks only.",
        "Each store's average level is taken over the whole year, the forecast weeks included, so the features already know how those weeks went.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"shift": ["sales", 80.0]}, "held": "test.index"},
        knobs=tuple(range(8, 20)),
    )


def pairs() -> list[PairSpec]:
    return [
        folds(SALES, "folds.sales"), folds(LOAD, "folds.load"),
        random_split(SALES, "recent-split.sales"), random_split(LOAD, "recent-split.load"),
        window(LOAD, "level-window.load"),
        after_day(SALES, "end-of-day.sales", "staff_on_rota", "overtime_hours",
                  "#   staff_on_rota: staff scheduled for the day; overtime_hours: extra hours worked that day"),
        after_day(LOAD, "end-of-day.load", "humidity", "peak_kw",
                  "#   humidity: the day's forecast humidity; peak_kw: the day's highest quarter-hour demand"),
        in_sample(SALES, "which-split.sales"),
        lags_on_test(SALES, "lag-choice.sales"), lags_on_test(LOAD, "lag-choice.load"),
        store_split(), store_level(), scale_first(SALES, "scale-first.sales"),
    ]
