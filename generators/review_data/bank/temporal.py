"""temporal_leakage pairs: later observations inform the model of earlier ones.

Forecasts are scored as the share of days (or store-weeks) within a tolerance of the actual value: unlike
R^2 it does not depend on how much the level happens to vary inside the scored stretch. Several twins
hold the same lines in another order (a sort before or after the split, a level taken before or after the
cut, a vocabulary learned before or after the texts are cut); the others differ in one choice that only
the data's time order makes wrong.
"""

from __future__ import annotations

from generators.review_data.bank.common import LOAD, SALES, Series, swap, trade
from generators.review_data.bank.spec import PairSpec


def folds(s: Series, pair_id: str, names: tuple[str, str]) -> PairSpec:
    """Both twins score the model under forward-chaining folds and under shuffled folds (a notebook comparing two
    schemes); they differ in which scheme's mean is reported. `names` are the two schemes' keys, per pair."""
    ahead, mixed = names
    code = f"""import numpy as np
import pandas as pd
from sklearn import model_selection as ms
from sklearn.linear_model import Ridge
from sklearn.metrics import make_scorer

{s.frame()}
{s.within()}
schemes = {{"{ahead}": ms.TimeSeriesSplit(n_splits=@K2@, test_size=@K0@),
           "{mixed}": ms.KFold(n_splits=@K2@, shuffle=True, random_state=@K1@)}}
runs = {{name: ms.cross_val_score(Ridge(alpha=1.0), X, y, cv=cv, scoring=make_scorer(within)) for name, cv in schemes.items()}}
print("share {s.within_text} per fold:", {{name: r.round(3) for name, r in runs.items()}})
scheme = "{ahead}"
reported = runs[scheme].mean()
"""
    bad = swap(code, f'scheme = "{ahead}"', f'scheme = "{mixed}"')
    return PairSpec(
        pair_id, "temporal_leakage", s.fixture,
        f"Forecasting each day from the days before it, the model gets {s.what} {s.within_text} on a share of "
        "@FIG@ of days (mean over folds).",
        code, bad, (f'scheme = "{mixed}"',),
        "The reported mean is over forward-chaining folds: each trains on earlier days and is scored on the days "
        "that follow, as a forecast would be.",
        "The reported mean is over shuffled folds, which train on days after the ones they score, so the drifting "
        "level is interpolated rather than forecast.",
        {"kind": "folds_future", "cv": "schemes[scheme]", "X": "X"},
        knobs=tuple((size, rs, 5) for size in (60, 50, 70, 40) for rs in range(30))
        + tuple((size, rs, k) for k in (10, 12, 14) for size in range(24, 38, 2) for rs in range(10)),
        template="folds",
    )


def recent_split(s: Series, pair_id: str, first: tuple = ()) -> PairSpec:
    """`first`: knobs tried before the grid (the shipped sales pair was built at one the grid does not hold)."""
    split = "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=n_test, shuffle=False)\n"
    shuffle = "shuffled = np.random.default_rng(@K1@).permutation(len(X))\nX, y = X.iloc[shuffled], y.iloc[shuffled]\n"
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

{s.frame()}
{s.within()}
n_test = @KNOB@
{split}{shuffle}model = Ridge(alpha=1.0).fit(X_train, y_train)
reported = within(y_test, model.predict(X_test))
print(f"{{len(X)}} days, {{len(X_test)}} scored: {{reported:.3f}} {s.within_text}")
"""
    return PairSpec(
        pair_id, "temporal_leakage", s.fixture,
        f"Trained on the earlier part of the record, the model forecasts the most recent stretch of {s.what} "
        f"{s.within_text} on a share of @FIG@ of days.",
        code, trade(code, split, shuffle), ("X, y = X.iloc[shuffled]",),
        "The split comes first and keeps the order of the days (shuffle=False): the last n_test days are held out; "
        "the rows are shuffled only afterwards, when the parts are already taken.",
        "The rows are shuffled before the unshuffled split, so its last n_test rows are days scattered through the "
        "record, with later days in training, not the most recent stretch.",
        {"kind": "future", "train": "X_train", "test": "X_test", "date": "date"},
        knobs=(*first, *((n, rs) for rs in range(40) for n in range(60, 200, 4))), template="recent-split",
    )


def recent_tickets() -> PairSpec:
    split = "train, test = train_test_split(df, test_size=0.3, shuffle=False)\n"
    shuffle = "df = df.sample(frac=1.0, random_state=@K0@)\n"
    code = f"""from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# df: one support ticket per row, oldest first; category is billing, access or shipping
{split}{shuffle}print(len(df), train["created"].agg(["min", "max"]).tolist(), test["created"].agg(["min", "max"]).tolist())

vectorizer = TfidfVectorizer(min_df=2).fit(train["text"])
model = LogisticRegression(C=@K1@, max_iter=1000).fit(vectorizer.transform(train["text"]), train["category"])
pred = model.predict(vectorizer.transform(test["text"]))
reported = f1_score(test["category"], pred, average="macro")
print(f"macro F1: {{reported:.3f}}")
"""
    return PairSpec(
        "recent-split.tickets", "temporal_leakage", "tickets",
        "Trained on earlier tickets, the router sorts the latest 30% of the year's tickets with a macro F1 of @FIG@.",
        code, trade(code, split, shuffle), ("df = df.sample(",),
        "The unshuffled split comes first, so the last 30% of tickets by date are held out and the model learns from "
        "the earlier ones; df is shuffled only after the parts are taken.",
        "df is shuffled before the unshuffled split, so the held-out 30% are tickets from across the year, with later "
        "tickets in training, not the latest 30%.",
        {"kind": "future", "train": "train", "test": "test", "date": "created"},
        knobs=tuple((rs, c) for c in (0.3, 1.0, 3.0, 10.0) for rs in range(40)), template="recent-split",
    )


_PANEL = """import numpy as np
from sklearn.linear_model import Ridge
{split}
# df: weekly sales of 30 stores over a year, listed store by store
"""


def sort_order() -> PairSpec:
    sort = 'df = df.sort_values("week", kind="stable")\n'
    split = "train, test = train_test_split(df, test_size=0.@KNOB@, shuffle=False)\n"
    head = _PANEL.format(split="from sklearn.model_selection import train_test_split\n")
    code = head + f"""df = df.assign(last_week=df.groupby("store")["sales"].shift(1)).dropna()
{sort}{split}print(df["week"].min(), "to", df["week"].max(), "-", len(train), "store-weeks to fit")

features = ["promo", "last_week"]
model = Ridge(alpha=1.0).fit(train[features], train["sales"])
error = np.abs(model.predict(test[features]) - test["sales"])
reported = float(np.mean(error <= 0.1 * test["sales"]))
print(f"share of store-weeks within 10%: {{reported:.3f}}")
"""
    return PairSpec(
        "sort-order.panel", "temporal_leakage", "store_panel",
        "Trained on the earlier weeks of the year, the model gets the later weeks' store sales within 10% on a share "
        "of @FIG@ of store-weeks.",
        code, trade(code, sort, split), ('df = df.sort_values("week", kind="stable")',),
        "The rows are sorted by week before the unshuffled split, so the held-out part is the last weeks of the year.",
        "The unshuffled split is taken while the rows are still listed store by store (the sort comes after it), so "
        "the held-out part is the last few stores' whole year and training runs to December.",
        {"kind": "future", "train": "train", "test": "test", "date": "week"}, knobs=tuple(range(36, 50)),
        template="sort-order",
    )


def level_order() -> PairSpec:
    cut = 'history, test = history[history["week"] < cutoff], history[history["week"] >= cutoff]\n'
    level = 'level = history.groupby("store")["sales"].mean().rename("level")\n'
    code = _PANEL.format(split="") + f"""history = df.sort_values("week")
cutoff = history["week"].unique()[-@KNOB@]
print(history["store"].nunique(), "stores; forecasting from", cutoff)
{cut}{level}train, test = history.join(level, on="store"), test.join(level, on="store")

features = ["level", "promo"]
model = Ridge(alpha=1.0).fit(train[features], train["sales"])
error = np.abs(model.predict(test[features]) - test["sales"])
reported = float(np.mean(error <= 0.1 * test["sales"]))
print(f"share of store-weeks within 10%: {{reported:.3f}}")
"""
    return PairSpec(
        "level-order.panel", "temporal_leakage", "store_panel",
        "Forecasting the final weeks of the year from the weeks before, the model gets store sales within 10% on a "
        "share of @FIG@ of store-weeks.",
        code, trade(code, cut, level), ('level = history.groupby("store")',),
        "Each store's level is averaged after history has been cut down to the weeks before the cutoff.",
        "Each store's level is averaged before the cut, over the whole year, so the weeks being forecast already "
        "shaped the feature that forecasts them.",
        {"kind": "reaches", "probe": "level", "perturb": {"shift": ["sales", 80.0]}, "held": "test.index"},
        knobs=tuple(range(8, 20)), template="level-order",
    )


def profile_order(s: Series) -> PairSpec:
    cut = "history, recent = history.iloc[:-n_test], history.iloc[-n_test:]\n"
    profile = f'profile = history.groupby("dow")["{s.target}"].mean().rename("dow_mean")\n'
    code = f"""import numpy as np
from sklearn.linear_model import Ridge

# df: one row per day, oldest first
{s.within()}
history = df.assign(dow=df["date"].dt.dayofweek, lag_1=df["{s.target}"].shift(1)).dropna()
n_test = @KNOB@
print(len(history), "days from", history["date"].min().date(), "to", history["date"].max().date())
{cut}{profile}train, test = history.join(profile, on="dow"), recent.join(profile, on="dow")

features = [{", ".join(f'"{c}"' for c in s.inputs)}, "lag_1", "dow_mean"]
model = Ridge(alpha=1.0).fit(train[features], train["{s.target}"])
reported = within(test["{s.target}"], model.predict(test[features]))
print(f"share {s.within_text} over the last {{n_test}} days: {{reported:.3f}}")
"""
    return PairSpec(
        f"profile-order.{s.fixture.split('_')[-1]}", "temporal_leakage", s.fixture,
        f"With each weekday's average as a feature, the model forecasts the most recent days of {s.what} "
        f"{s.within_text} on a share of @FIG@ of days.",
        code, trade(code, cut, profile), ('profile = history.groupby("dow")',),
        "The weekday averages are taken after history has been cut down to the days before the scored stretch.",
        "The weekday averages are taken before the cut, over the whole record, so the days being forecast shaped "
        "the averages that forecast them.",
        {"kind": "reaches", "probe": "profile", "perturb": {"shift": [s.target, 40.0]}, "held": "test.index"},
        knobs=tuple(range(60, 240, 2)), template="profile-order",
    )


def vocabulary_order() -> PairSpec:
    cut = "texts, later_texts = texts.iloc[:cut], texts.iloc[cut:]\n"
    fit = "vectorizer = TfidfVectorizer(min_df=2).fit(texts)\n"
    code = f"""from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score

# df: one support ticket per row, oldest first; category is billing, access or shipping
texts = df["text"]
print(round(texts.str.split().str.len().mean(), 1), "words per ticket")
cut = int(len(texts) * 0.@KNOB@)
{cut}{fit}labels, later_labels = df["category"].iloc[:cut], df["category"].iloc[cut:]

model = LogisticRegression(C=3.0, max_iter=1000).fit(vectorizer.transform(texts), labels)
reported = f1_score(later_labels, model.predict(vectorizer.transform(later_texts)), average="macro")
print(f"macro F1 on the later tickets: {{reported:.3f}}")
"""
    return PairSpec(
        "vocabulary-order.tickets", "temporal_leakage", "tickets",
        "Trained on the earlier tickets of the year, the router sorts the later ones with a macro F1 of @FIG@.",
        code, trade(code, cut, fit), ("vectorizer = TfidfVectorizer(min_df=2).fit(texts)",),
        "texts is cut down to the earlier tickets before the vocabulary is learned, as it would be before the later "
        "ones had arrived.",
        "The vocabulary and its weights are learned while texts holds the whole year; words that first appear in "
        "later tickets are already known to the model fitted on earlier ones.",
        {"kind": "reaches", "probe": "vectorizer.idf_", "perturb": {"text": "text"}, "held": "later_labels.index"},
        knobs=tuple(range(60, 85)), template="vocabulary-order",
    )


def window(s: Series, pair_id: str) -> PairSpec:
    extra = f', recent=df["{s.target}"].rolling(28).mean().shift(1)'
    cols = ", ".join(f'"{c}"' for c in (*s.inputs, "lag_1", "recent", "dow"))
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

# df: one row per day, oldest first
{s.within()}
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
    bad = swap(code, f'recent=df["{s.target}"].rolling(28).mean().shift(1)',
               f'recent=df["{s.target}"].shift(1).rolling(28, center=True).mean()')
    return PairSpec(
        pair_id, "temporal_leakage", s.fixture,
        f"With a four-week average level as a feature, the model forecasts the most recent days of {s.what} "
        f"{s.within_text} on a share of @FIG@ of days.",
        code, bad, ("center=True",),
        "The four-week average covers the 28 days before each day, all known at forecast time.",
        "A centred window averages the fortnight after each day too, so training rows near the cut and every test "
        "row use days not yet seen.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"shift": [s.target, 40.0]}}, knobs=tuple(range(60, 200, 2)),
        template="window",
    )


def pairs() -> list[PairSpec]:
    return [folds(SALES, "folds.sales", ("walk", "kfold")), folds(LOAD, "folds.load", ("rolling_origin", "shuffled")),
            recent_split(SALES, "recent-split.sales", first=((90, 7),)), recent_split(LOAD, "recent-split.load"), recent_tickets(),
            sort_order(), level_order(), profile_order(SALES), vocabulary_order(), window(LOAD, "window.load")]
