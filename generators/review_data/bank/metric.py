"""metric_mismatch pairs: the reported figure is not the quantity the claim names.

The claim decides these: a recall claim over a precision figure is flawed, and a precision claim over a
precision figure is sound, so `reported = precision` tells nothing by itself. Two pairs hold the same
names in swapped places: the keys of a dict of scores, and which of two predictions is called `proba`.
"""

from __future__ import annotations

from generators.review_data.bank.common import CAMPAIGN, LOANS, SALES, Series, Table, swap
from generators.review_data.bank.spec import PairSpec

_PIPE = """from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
"""


def which_split(table: Table, pair_id: str) -> PairSpec:
    code = f"""from sklearn.metrics import roc_auc_score
{_PIPE}
{table.doc}
{table.feature_list()}
X, y = df[features], df["{table.target}"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, y_train)

train_auc = roc_auc_score(y_train, model.predict_proba(X_train)[:, 1])
test_auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"ROC AUC train {{train_auc:.3f}}, test {{test_auc:.3f}}")
reported = test_auc
"""
    return PairSpec(
        pair_id, "metric_mismatch", table.fixture,
        f"On rows kept out of fitting, the model ranks {table.subject} with a ROC AUC of @FIG@.",
        code, swap(code, "reported = test_auc", "reported = train_auc"), ("reported = train_auc",),
        "The reported AUC is the one on the held-out rows.",
        "The reported AUC is measured on the rows the model was fitted on, not on the held-out rows the claim names.",
        {"kind": "claimed", "expr": "roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])"},
        knobs=tuple(range(200)), template="which-split",
    )


def which_split_houses() -> PairSpec:
    code = """import numpy as np
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

# df: one row per house sale
X = np.log(df[["living_area", "lot_area"]]).join(df[["year_built", "rooms", "garage_spaces"]])
y = df["log_price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)

model = Ridge(alpha=1.0).fit(X_train, y_train)
train_r2 = model.score(X_train, y_train)
test_r2 = model.score(X_test, y_test)
print(f"R^2 train {train_r2:.3f}  test {test_r2:.3f}")
print(dict(zip(X.columns, model.coef_.round(4))))
reported = test_r2
"""
    return PairSpec(
        "which-split.houses", "metric_mismatch", "houses",
        "On houses held out from fitting, the model explains @FIG@ of the variance in log price (R^2).",
        code, swap(code, "reported = test_r2", "reported = train_r2"), ("reported = train_r2",),
        "The reported R^2 is computed on the held-out houses, as claimed.",
        "The reported R^2 is the training fit, not the held-out score the claim describes.",
        {"kind": "claimed", "expr": "r2_score(y_test, model.predict(X_test))"}, knobs=tuple(range(200)),
        template="which-split",
    )


def score_keys() -> PairSpec:
    right = 'scores = {"train": evaluate(model, X_train, y_train), "test": evaluate(model, X_test, y_test)}'
    wrong = 'scores = {"train": evaluate(model, X_test, y_test), "test": evaluate(model, X_train, y_train)}'
    code = f"""from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: one row per inbound sales lead
features = ["site_visits", "pages_viewed", "minutes_on_site", "emails_opened"]
X_train, X_test, y_train, y_test = train_test_split(df[features], df["converted"], test_size=0.3, random_state=@KNOB@)
model = RandomForestClassifier(n_estimators=80, min_samples_leaf=40, random_state=0).fit(X_train, y_train)


def evaluate(model, X_part, y_part):
    return roc_auc_score(y_part, model.predict_proba(X_part)[:, 1])


{right}
print({{part: round(value, 3) for part, value in scores.items()}})
reported = scores["test"]
"""
    return PairSpec(
        "score-keys.leads", "metric_mismatch", "leads",
        "On leads kept out of fitting, the forest ranks which sales leads convert with a ROC AUC of @FIG@.",
        code, swap(code, right, wrong), ('scores = {"train": evaluate(model, X_test',),
        "The score stored under 'test' is computed on the held-out leads, and that is the one reported.",
        "The keys are attached to the wrong calls: 'test' holds the score on the training leads, so the reported "
        "figure is the training fit.",
        {"kind": "claimed", "expr": "roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])"},
        knobs=tuple(range(300)), template="swapped-names",
    )


def proba_names() -> PairSpec:
    right = "proba = model.predict_proba(X_test)[:, 1]\npred = model.predict(X_test)\n"
    wrong = "proba = model.predict(X_test)\npred = model.predict_proba(X_test)[:, 1]\n"
    code = f"""from sklearn.metrics import roc_auc_score
{_PIPE}
# df: one row per inbound sales lead
features = ["site_visits", "pages_viewed", "minutes_on_site", "emails_opened"]
X_train, X_test, y_train, y_test = train_test_split(df[features], df["converted"], test_size=0.3, random_state=@KNOB@)
model = make_pipeline(StandardScaler(), LogisticRegression(class_weight="balanced", max_iter=1000))
model.fit(X_train, y_train)

{right}print(f"mean of pred: {{pred.mean():.3f}}, of proba: {{proba.mean():.3f}}")
reported = roc_auc_score(y_test, proba)
print(f"ROC AUC: {{reported:.3f}}")
"""
    return PairSpec(
        "proba-names.leads", "metric_mismatch", "leads",
        "Ranking sales leads by their predicted probability to convert gives a held-out ROC AUC of @FIG@.",
        code, swap(code, right, wrong), ("proba = model.predict(X_test)",),
        "proba holds the predicted probabilities, so the AUC measures the ranking by probability the claim describes.",
        "The names are swapped: proba holds the hard 0/1 predictions, so the AUC measures one threshold (balanced "
        "accuracy), not the ranking by probability the claim names.",
        {"kind": "claimed", "expr": "roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])"},
        knobs=tuple(range(300)), template="swapped-names",
    )


def named_rate(pair_id: str, fixture: str, prepare: str, claim: str, named: str, other: str, cut: str,
               knobs: tuple, explain: tuple[str, str]) -> PairSpec:
    """The claim names `named` (recall or precision); the flawed twin reports `other`."""
    code = f"""from sklearn.metrics import confusion_matrix, precision_score, recall_score
{prepare}
pred = (model.predict_proba(X_test)[:, 1] >= {cut}).astype(int)
print(confusion_matrix(y_test, pred))
precision = precision_score(y_test, pred)
recall = recall_score(y_test, pred)
print(f"precision {{precision:.3f}}  recall {{recall:.3f}}")
reported = {named}
"""
    return PairSpec(
        pair_id, "metric_mismatch", fixture, claim, code, swap(code, f"reported = {named}", f"reported = {other}"),
        (f"reported = {other}",), *explain, {"kind": "claimed", "expr": f"{named}_score(y_test, pred)"},
        knobs=knobs, template="named-rate",
    )


def _tabular_model(table: Table) -> str:
    return f"""{_PIPE}
{table.doc}
{table.feature_list()}
X, y = df[features], df["{table.target}"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@K0@)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, y_train)
"""


_INBOX_MODEL = """from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

# df: one message per row; label is "spam" or "ham"
df = df.drop_duplicates("text")
X_train, X_test, y_train, y_test = train_test_split(df["text"], df["label"] == "spam", test_size=0.3, random_state=@K0@)
model = make_pipeline(TfidfVectorizer(min_df=2), LogisticRegression(C=3.0, max_iter=1000)).fit(X_train, y_train)
"""
_RECALL = ("The claim describes recall (the share of true positives that are flagged) and recall is reported.",
           "The claim describes recall, but the reported figure is precision (the share of flagged cases that are "
           "positive), a different quantity.")
_PRECISION = ("The claim describes precision (of the flagged cases, the share truly positive) and precision is reported.",
              "The claim describes precision, but the reported figure is recall (the share of true positives that "
              "are flagged), a different quantity.")


def macro_named() -> PairSpec:
    code = """from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# df: one support ticket per row; category is billing, access or shipping
train, test = train_test_split(df, test_size=0.3, random_state=@K0@)
print(test["category"].value_counts(normalize=True).round(3).to_dict())

vectorizer = TfidfVectorizer(min_df=2).fit(train["text"])
model = LogisticRegression(C=@K1@, max_iter=1000).fit(vectorizer.transform(train["text"]), train["category"])
pred = model.predict(vectorizer.transform(test["text"]))
reported = f1_score(test["category"], pred, average="macro")
print(f"F1: {reported:.3f}")
"""
    return PairSpec(
        "macro-named.tickets", "metric_mismatch", "tickets",
        "On a random 30% of the year's tickets, the router reaches a macro-averaged F1 of @FIG@ across the three "
        "categories.",
        code, swap(code, 'average="macro")', 'average="micro")'), ('average="micro")',),
        "Macro F1 is computed, as claimed.",
        "The reported figure is micro-averaged F1 (which equals accuracy here), not the macro average over "
        "categories that the claim names.",
        {"kind": "claimed", "expr": "f1_score(test['category'], pred, average='macro')"},
        knobs=tuple((rs, c) for c in (0.3, 1.0, 3.0) for rs in range(60)), template="macro-named",
    )


def fold_summary() -> PairSpec:
    code = """from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# df: one row per personal loan issued last year
features = ["income", "loan_amount", "credit_score", "years_employed"]
X, y = df[features], df["defaulted"]
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=@KNOB@)
scores = cross_val_score(model, X, y, cv=cv, scoring="roc_auc")
print("ROC AUC per fold:", scores.round(3))
print(f"spread {scores.max() - scores.min():.3f}")
reported = scores.mean()
"""
    return PairSpec(
        "fold-summary.loans", "metric_mismatch", "loans",
        "Averaged over five cross-validation folds, the model ranks which loans default with a ROC AUC of @FIG@.",
        code, swap(code, "reported = scores.mean()", "reported = scores.max()"), ("reported = scores.max()",),
        "The mean over the five folds is reported, as claimed.",
        "The best of the five folds is reported, not the average over folds that the claim names.",
        {"kind": "claimed", "expr": "scores.mean()"}, knobs=tuple(range(300)), template="fold-summary",
    )


def fit_share(s: Series) -> PairSpec:
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

{s.frame()}
{s.within()}
n_test = @KNOB@
X_train, X_test, y_train, y_test = X.iloc[:-n_test], X.iloc[-n_test:], y.iloc[:-n_test], y.iloc[-n_test:]
model = Ridge(alpha=1.0).fit(X_train, y_train)
fit_share = within(y_train, model.predict(X_train))
forecast_share = within(y_test, model.predict(X_test))
print(f"{s.within_text}: fit {{fit_share:.3f}}, forecast {{forecast_share:.3f}}")
reported = forecast_share
"""
    return PairSpec(
        "fit-share.sales", "metric_mismatch", s.fixture,
        f"On the most recent days, which it was not fitted on, the model forecasts {s.what} {s.within_text} on a "
        "share of @FIG@ of days.",
        code, swap(code, "reported = forecast_share", "reported = fit_share"), ("reported = fit_share",),
        "The reported share is the one on the held-out recent days.",
        "The reported share is measured on the training days the model was fitted on, not on the recent days that "
        "the claim names.",
        {"kind": "claimed", "expr": "within(y_test, model.predict(X_test))"}, knobs=tuple(range(60, 240, 2)),
        template="which-split",
    )


def pairs() -> list[PairSpec]:
    cuts = tuple((rs, round(t / 1000, 3)) for rs in range(0, 20) for t in range(260, 360, 5))
    inbox_cuts = tuple((rs, round(t / 100, 2)) for rs in range(0, 30) for t in range(30, 60, 2))
    return [
        which_split(CAMPAIGN, "which-split.campaign"),
        which_split_houses(), score_keys(), proba_names(),
        named_rate("recall-named.loans", "loans", _tabular_model(LOANS),
                   "Of the held-out loans that really default, the model catches @FIG@ (the share it flags), which "
                   "is how we judge which loans default.", "recall", "precision", "@K1@", cuts, _RECALL),
        named_rate("recall-named.inbox", "messages", _INBOX_MODEL,
                   "Of the held-out messages that really are spam, the filter catches @FIG@ (the share it flags).",
                   "recall", "precision", "@K1@", inbox_cuts, _RECALL),
        named_rate("precision-named.inbox", "messages", _INBOX_MODEL,
                   "Of the held-out messages the filter flags as spam, a share of @FIG@ really are spam.",
                   "precision", "recall", "@K1@", inbox_cuts, _PRECISION),
        macro_named(), fold_summary(), fit_share(SALES),
    ]
