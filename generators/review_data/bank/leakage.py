"""data_leakage pairs: something fitted (a scaler, an imputer, a vocabulary, a selector, an encoding) sees the
rows it is scored on.

Most twins hold the same lines in another order: the fitted step reads a name that a split rebinds
(`X, X_test, y, y_test = train_test_split(X, y)`), or an alias taken before or after the split, so
only the order tells what the step saw. Two sound twins carry the flaw's surface (a transformer fitted
on every row before the split) with a transformer that learns nothing.
"""

from __future__ import annotations

from generators.review_data.bank.common import CAMPAIGN, LOANS, SALES, Table, swap, trade
from generators.review_data.bank.spec import PairSpec


def rebound_scale(table: Table, pair_id: str) -> PairSpec:
    split = "X, X_test, y, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)\n"
    fit = "scaler = StandardScaler().fit(X)\n"
    code = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

{table.doc}
{table.feature_list()}
X, y = df[features], df["{table.target}"]
print(f"{{len(X)}} rows, positive share {{y.mean():.3f}}")

{split}{fit}model = LogisticRegression(max_iter=1000).fit(scaler.transform(X), y)
reported = roc_auc_score(y_test, model.predict_proba(scaler.transform(X_test))[:, 1])
print(f"held-out ROC AUC: {{reported:.3f}}")
"""
    return PairSpec(
        pair_id, "data_leakage", table.fixture,
        f"On held-out rows, a standardised logistic regression ranks {table.subject} with a ROC AUC of @FIG@.",
        code, trade(code, split, fit), ("scaler = StandardScaler().fit(X)",),
        "The split rebinds X and y to the training part before the scaler is fitted, so its means and deviations "
        "come from the training rows only.",
        "The scaler is fitted while X still holds every row; only afterwards does the split rebind X to the "
        "training part, so the held-out rows shaped the scaling.",
        {"kind": "reaches", "probe": "scaler.mean_", "perturb": {"scale": list(table.features[:2])}},
        template="rebound-scale",
    )


def alias_impute() -> PairSpec:
    alias = "fill_from = X\n"
    split = "X, X_test, y, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)\n"
    code = f"""from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: one row per subscriber at the end of the quarter; total_charges has gaps
features = ["tenure_months", "monthly_charges", "total_charges", "support_calls"]
X, y = df[features], df["churned"]
print(X.isna().mean().round(3).to_dict())
{split}{alias}
imputer = SimpleImputer(strategy="median").fit(fill_from)
print(len(fill_from), "rows give the medians:", imputer.statistics_.round(1))
model = LogisticRegression(max_iter=5000).fit(imputer.transform(X), y)
reported = roc_auc_score(y_test, model.predict_proba(imputer.transform(X_test))[:, 1])
print(f"held-out ROC AUC: {{reported:.3f}}")
"""
    return PairSpec(
        "alias-impute.churn", "data_leakage", "churn",
        "With gaps in total charges filled by medians, the model ranks which subscribers cancel with a held-out "
        "ROC AUC of @FIG@.",
        code, trade(code, split, alias), ("fill_from = X",),
        "fill_from is taken after the split has rebound X to the training rows, so the medians come from them alone.",
        "fill_from is taken before the split, while X holds every row; the split rebinds X but not the alias, so "
        "the medians include the held-out rows.",
        {"kind": "reaches", "probe": "imputer.statistics_", "perturb": {"scale": ["total_charges"]}},
        template="alias-impute",
    )


def rebound_vocabulary() -> PairSpec:
    split = "texts, texts_test, labels, labels_test = train_test_split(texts, labels, test_size=0.3, random_state=@KNOB@)\n"
    fit = "vectorizer = TfidfVectorizer(min_df=2, sublinear_tf=True).fit(texts)\n"
    code = f"""from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# df: one message per row; label is "spam" or "ham"
df = df.drop_duplicates("text")
texts, labels = df["text"], (df["label"] == "spam").astype(int)
print(len(texts), "messages; spam share", round(labels.mean(), 3))

{split}{fit}model = LogisticRegression(C=3.0, max_iter=1000).fit(vectorizer.transform(texts), labels)
reported = f1_score(labels_test, model.predict(vectorizer.transform(texts_test)))
print(f"spam F1 on held-out messages: {{reported:.3f}}")
"""
    return PairSpec(
        "rebound-vocabulary.inbox", "data_leakage", "messages",
        "A tf-idf logistic regression flags spam in held-out messages with an F1 of @FIG@.",
        code, trade(code, split, fit), ("fit(texts)",),
        "The split has already rebound texts to the training messages when the vectorizer learns its vocabulary "
        "and idf weights.",
        "The vectorizer learns vocabulary and idf weights while texts still holds every message; the split that "
        "follows rebinds the name, not what was learned.",
        {"kind": "reaches", "probe": "vectorizer.idf_", "perturb": {"text": "text"}, "held": "labels_test.index"},
        knobs=tuple(range(150)), template="rebound-vocabulary",
    )


def rebound_series_scale() -> PairSpec:
    s = SALES
    split = "X, X_recent, y, y_recent = X.iloc[:-n_test], X.iloc[-n_test:], y.iloc[:-n_test], y.iloc[-n_test:]\n"
    fit = "scaler = StandardScaler().fit(X)\n"
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

{s.frame()}
{s.within()}
n_test = @KNOB@
{split}{fit}model = Ridge(alpha=1.0).fit(scaler.transform(X), y)
reported = within(y_recent, model.predict(scaler.transform(X_recent)))
print(f"share {s.within_text} over the last {{n_test}} days: {{reported:.3f}}")
"""
    return PairSpec(
        "rebound-scale.sales", "data_leakage", s.fixture,
        f"With standardised features, the model forecasts the most recent days of {s.what} {s.within_text} on a "
        "share of @FIG@ of days.",
        code, trade(code, split, fit), ("scaler = StandardScaler().fit(X)",),
        "By the time the scaler is fitted, X holds only the earlier days: the last n_test days were cut off into "
        "X_recent.",
        "The scaler is fitted on X before the cut, so the most recent days (the ones scored) set its means and "
        "deviations.",
        {"kind": "reaches", "probe": "scaler.mean_", "perturb": {"shift": ["temperature", 5.0]}, "held": "y_recent.index"},
        knobs=tuple(range(60, 200, 2)), template="rebound-scale",
    )


def stateless_first() -> PairSpec:
    code = """import numpy as np
from sklearn import preprocessing
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

# df: one row per house sale; areas are right-skewed
features = ["living_area", "lot_area", "year_built", "rooms", "garage_spaces"]
transform = preprocessing.FunctionTransformer(np.log1p)
X = transform.fit_transform(df[features])
y = df["log_price"]
print(np.round(X.std(axis=0), 2))

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = Ridge(alpha=1.0).fit(X_train, y_train)
reported = r2_score(y_test, model.predict(X_test))
print(f"R^2 on held-out sales: {reported:.3f}")
"""
    bad = swap(code, "transform = preprocessing.FunctionTransformer(np.log1p)", "transform = preprocessing.StandardScaler()")
    return PairSpec(
        "transform-first.houses", "data_leakage", "houses",
        "Transforming the features once up front, a ridge regression explains @FIG@ of the variance in log price "
        "on held-out sales.",
        code, bad, ("transform = preprocessing.StandardScaler()",),
        "log1p works row by row and learns nothing, so transforming before the split shares nothing between the parts.",
        "A scaler learns means and deviations, here from every sale before the split, the held-out ones included.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"scale": ["living_area", "lot_area"]}},
        template="transform-first",
    )


def hashing_first() -> PairSpec:
    code = """from sklearn.feature_extraction import text as fe
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: one support ticket per row; is it a billing question?
y = (df["category"] == "billing").astype(int)
vectorizer = fe.HashingVectorizer(n_features=2**12, alternate_sign=False, norm="l2")
X = vectorizer.fit_transform(df["text"])
print(X.shape, "share billing:", round(y.mean(), 3))

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = LogisticRegression(C=2.0, max_iter=1000).fit(X_train, y_train)
reported = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"billing ROC AUC on held-out tickets: {reported:.3f}")
"""
    bad = swap(code, 'vectorizer = fe.HashingVectorizer(n_features=2**12, alternate_sign=False, norm="l2")',
               'vectorizer = fe.TfidfVectorizer(min_df=2, sublinear_tf=True, norm="l2")')
    return PairSpec(
        "transform-first.tickets", "data_leakage", "tickets",
        "Vectorising every ticket once, a logistic regression spots billing questions among held-out tickets with "
        "a ROC AUC of @FIG@.",
        code, bad, ("vectorizer = fe.TfidfVectorizer(",),
        "A hashing vectorizer learns nothing from the texts (a word's column is a fixed hash), so vectorising every "
        "ticket before the split shares nothing between the parts.",
        "A tf-idf vectorizer learns a vocabulary and document frequencies, here from every ticket before the split.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"text": "text"}}, knobs=tuple(range(150)),
        template="transform-first",
    )


def waves_scale() -> PairSpec:
    code = """import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

# df: last autumn's campaign; later: this spring's, kept aside until the final check
features = ["emails_opened", "days_since_purchase", "app_sessions", "site_visits"]
both = pd.concat([df, later], keys=["autumn", "spring"])
print(both.groupby(level=0)["responded"].mean().round(3).to_dict())
scaler = StandardScaler().fit(df[features])

X_fit, X_val, y_fit, y_val = train_test_split(scaler.transform(df[features]), df["responded"], test_size=0.3, random_state=@KNOB@)
results = {C: roc_auc_score(y_val, LogisticRegression(C=C).fit(X_fit, y_fit).predict_proba(X_val)[:, 1])
           for C in [0.01, 0.1, 1.0]}
model = LogisticRegression(C=max(results, key=results.get)).fit(scaler.transform(df[features]), df["responded"])
reported = roc_auc_score(later["responded"], model.predict_proba(scaler.transform(later[features]))[:, 1])
print(f"spring ROC AUC: {reported:.3f}")
"""
    bad = swap(code, "scaler = StandardScaler().fit(df[features])", "scaler = StandardScaler().fit(both[features])")
    return PairSpec(
        "waves-scale.campaign", "data_leakage", "campaign_waves",
        "Trained on last autumn's campaign, a standardised logistic regression ranks this spring's customers by "
        "their chance to respond with a ROC AUC of @FIG@.",
        code, bad, ("fit(both[features])",),
        "The scaler learns from the autumn customers only; the spring customers are touched once, to be scored.",
        "The scaler is fitted on both campaigns stacked together, so the spring customers being scored set part of "
        "its means and deviations.",
        {"kind": "reaches", "probe": "scaler.mean_", "perturb": {"scale": ["emails_opened"]}, "frame": "later",
         "held": "later.index"},
        knobs=tuple(range(150)), template="waves-scale",
    )


def rebound_rate() -> PairSpec:
    split = "orders, held = train_test_split(orders, test_size=0.3, random_state=@KNOB@)\n"
    rate = 'rate = orders.groupby("merchant_id")["chargeback"].mean().rename("merchant_rate")\n'
    code = f"""import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: one row per order on the marketplace; each merchant has hundreds of orders
orders = df.assign(log_basket=np.log(df["basket_value"]))
print(orders["merchant_id"].nunique(), "merchants,", len(orders), "orders")
{split}{rate}orders, held = orders.join(rate, on="merchant_id"), held.join(rate, on="merchant_id")

features = ["merchant_rate", "log_basket", "items", "hour"]
model = LogisticRegression(max_iter=1000).fit(orders[features], orders["chargeback"])
reported = roc_auc_score(held["chargeback"], model.predict_proba(held[features])[:, 1])
print(f"ROC AUC on held-out orders: {{reported:.3f}}")
"""
    return PairSpec(
        "rebound-rate.marketplace", "data_leakage", "marketplace",
        "With each merchant's chargeback rate as a feature, the model ranks held-out orders by chargeback risk with "
        "a ROC AUC of @FIG@.",
        code, trade(code, split, rate), ('rate = orders.groupby("merchant_id")',),
        "The merchants' rates are computed after the split has rebound orders to the training orders, so no held-out "
        "order's own outcome is in its merchant's rate.",
        "The rates are computed before the split, over every order, so each held-out order's own chargeback is "
        "averaged into the feature it is scored with.",
        {"kind": "reaches", "probe": "rate", "perturb": {"flip": "chargeback"}, "held": "held.index"},
        knobs=tuple(range(200)), template="rebound-rate",
    )


def rebound_selection() -> PairSpec:
    select = 'selector = SelectKBest(chi2, k=20).fit(counts, labels)\n'
    subset = "counts, labels, test_counts, test_labels = counts[fit_rows], labels[fit_rows], counts[test_rows], labels[test_rows]\n"
    code = f"""from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_selection import SelectKBest, chi2
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupShuffleSplit

# df: one product review per row; authors write several reviews each
splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=@KNOB@)
fit_rows, test_rows = next(splitter.split(df, groups=df["author_id"]))
vectorizer = CountVectorizer(min_df=2).fit(df["text"].iloc[fit_rows])
counts, labels = vectorizer.transform(df["text"]), df["positive"].to_numpy()
{subset}{select}print("kept:", list(vectorizer.get_feature_names_out()[selector.get_support()])[:8])

model = LogisticRegression(max_iter=1000).fit(selector.transform(counts), labels)
reported = roc_auc_score(test_labels, model.predict_proba(selector.transform(test_counts))[:, 1])
print(f"ROC AUC with 20 words: {{reported:.3f}}")
"""
    return PairSpec(
        "rebound-selection.reviews", "data_leakage", "reviews",
        "Keeping the 20 words most tied to sentiment, the model ranks reviews of unseen authors with a ROC AUC of @FIG@.",
        code, trade(code, subset, select), ("selector = SelectKBest(chi2, k=20).fit(counts, labels)",),
        "counts and labels are cut down to the training authors' reviews before the 20 words are chosen.",
        "The 20 words are chosen while counts and labels still cover every review, the held-out authors' included; "
        "the cut to training rows comes a line too late.",
        {"kind": "reaches", "probe": "selector.get_support()", "perturb": {"flip": "positive"},
         "held": "df.index[test_rows]"},
        knobs=tuple(range(200)), template="rebound-selection",
    )


def pairs() -> list[PairSpec]:
    return [rebound_scale(CAMPAIGN, "rebound-scale.campaign"), rebound_scale(LOANS, "rebound-scale.loans"),
            alias_impute(), rebound_vocabulary(), rebound_series_scale(), stateless_first(), hashing_first(),
            waves_scale(), rebound_rate(), rebound_selection()]
