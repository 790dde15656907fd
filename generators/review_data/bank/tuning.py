"""test_set_tuning pairs: a threshold, a setting or a number of lags chosen by the test score it then reports.

Both twins compute the validation and the test score of every candidate (a notebook logs both) and
differ only in which one the choice reads, so a test score inside the tuning loop is in the sound twin
too. One pair swaps the roles of the validation and test parts in a tuple that later code relies on.
"""

from __future__ import annotations

from generators.review_data.bank.common import (
    CAMPAIGN,
    CHURN,
    LEADS,
    LOAD,
    LOANS,
    SALES,
    Series,
    Table,
    flip_reads,
    swap,
    test_score_first,
)
from generators.review_data.bank.spec import PairSpec

_SPLITS = """X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=@KNOB@)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.3, random_state=@KNOB@)
"""


def threshold_pick(table: Table, pair_id: str) -> PairSpec:
    code = f"""import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{table.doc}
{table.feature_list()}
X, y = df[features], df["{table.target}"]
{_SPLITS}model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_fit, y_fit)

thresholds = np.linspace(0.05, 0.8, 31)
curves = {{name: [f1_score(y_part, model.predict_proba(X_part)[:, 1] >= t) for t in thresholds]
          for name, X_part, y_part in [("val", X_val, y_val), ("test", X_test, y_test)]}}
best = int(np.argmax(curves["val"]))
print(f"threshold {{thresholds[best]:.3f}}; best F1 on each part:", {{k: round(max(v), 3) for k, v in curves.items()}})
reported = curves["test"][best]
"""
    bad = swap(code, 'best = int(np.argmax(curves["val"]))', 'best = int(np.argmax(curves["test"]))')
    return PairSpec(
        pair_id, "test_set_tuning", table.fixture,
        f"With its decision threshold tuned for F1, the model picks out {table.subject} with an F1 of @FIG@ on unseen rows.",
        code, bad, ('best = int(np.argmax(curves["test"]))',),
        "The threshold is the one that maximises F1 on the validation part; the test part's curve is only read at it.",
        "The threshold is the one that maximises F1 on the test part itself, so the reported F1 is the best of 31 "
        "tries on the rows it calls unseen.",
        {"kind": "reaches", "probe": "best", "perturb": {"flip": table.target}}, template="threshold-pick",
    )


def c_pick(table: Table, pair_id: str, test_first: bool = False) -> PairSpec:
    code = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{table.doc}
{table.feature_list()}
X, y = df[features], df["{table.target}"]
{_SPLITS}
results = {{}}
for C in [0.0005, 0.002, 0.01, 0.1, 1.0]:
    model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=1000)).fit(X_fit, y_fit)
    results[C] = (roc_auc_score(y_val, model.predict_proba(X_val)[:, 1]), roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]))
best_C = max(results, key=lambda C: results[C][0])
print("AUC (validation, test) by C:", {{C: tuple(round(v, 3) for v in r) for C, r in results.items()}})
reported = results[best_C][1]
"""
    bad = swap(code, "best_C = max(results, key=lambda C: results[C][0])", "best_C = max(results, key=lambda C: results[C][1])")
    marker = "results[C][1])"
    if test_first:
        scores = ("roc_auc_score(y_val, model.predict_proba(X_val)[:, 1])", "roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])")
        code, bad = (test_score_first(c.replace("(validation, test)", "(test, validation)"), *scores) for c in (code, bad))
        marker = "results[C][0])"
    return PairSpec(
        pair_id, "test_set_tuning", table.fixture,
        f"After choosing the regularisation strength, logistic regression ranks {table.subject} with a test ROC AUC of @FIG@.",
        code, bad, (marker,),
        "C is chosen by the validation AUC; the test AUC of the chosen C is reported.",
        "C is chosen by the test AUC, the same figure then reported, so the test rows "
        "did the choosing.",
        {"kind": "reaches", "probe": "best_C", "perturb": {"flip": table.target}}, template="c-pick",
    )


def roles() -> PairSpec:
    code = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# df: one row per personal loan issued last year
X, y = df[["income", "loan_amount", "credit_score", "years_employed"]], df["defaulted"]
{_SPLITS}tuning, final = (X_val, y_val), (X_test, y_test)


def auc(model, part):
    X_part, y_part = part
    return roc_auc_score(y_part, model.predict_proba(X_part)[:, 1])


def fitted(C, X_part, y_part):
    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=1000)).fit(X_part, y_part)


results = {{C: auc(fitted(C, X_fit, y_fit), tuning) for C in [0.0005, 0.002, 0.01, 0.1, 1.0]}}
best_C = max(results, key=results.get)
reported = auc(fitted(best_C, X_train, y_train), final)
print(f"C={{best_C}}: ROC AUC {{reported:.3f}}")
"""
    bad = swap(code, "tuning, final = (X_val, y_val), (X_test, y_test)", "final, tuning = (X_val, y_val), (X_test, y_test)")
    return PairSpec(
        "roles.loans", "test_set_tuning", "loans",
        "With its regularisation tuned on a validation part and refitted on all training loans, the model ranks "
        "untouched test loans by default risk with a ROC AUC of @FIG@.",
        code, bad, ("final, tuning = ",),
        "C is tuned on the validation part; the refitted model is scored once on the test part, which nothing has seen.",
        "The tuple names are swapped: C is tuned on the test part, and the 'final' score is taken on the validation "
        "part, which the refit on all training loans has just been fitted on.",
        {"kind": "reaches", "probe": "best_C", "perturb": {"flip": "defaulted"}}, knobs=tuple(range(200)),
        template="roles",
    )


def alpha_pick() -> PairSpec:
    code = """from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB

# df: one message per row; label is "spam" or "ham"
df = df.drop_duplicates("text")
y = (df["label"] == "spam").astype(int)
X_train, X_test, y_train, y_test = train_test_split(df["text"], y, test_size=0.3, random_state=@KNOB@)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.3, random_state=@KNOB@)

vectorizer = CountVectorizer(min_df=2).fit(X_fit)
scores = {}
for alpha in [0.01, 0.1, 0.5, 1.0, 3.0, 10.0]:
    nb = MultinomialNB(alpha=alpha).fit(vectorizer.transform(X_fit), y_fit)
    scores[alpha] = (f1_score(y_val, nb.predict(vectorizer.transform(X_val))), f1_score(y_test, nb.predict(vectorizer.transform(X_test))))
best_alpha = max(scores, key=lambda a: scores[a][0])
reported = scores[best_alpha][1]
print(f"alpha={best_alpha}: F1 {reported:.3f}")
"""
    bad = swap(code, "best_alpha = max(scores, key=lambda a: scores[a][0])", "best_alpha = max(scores, key=lambda a: scores[a][1])")
    return PairSpec(
        "alpha-pick.inbox", "test_set_tuning", "messages",
        "With its smoothing tuned, naive Bayes flags spam in unseen messages with an F1 of @FIG@.",
        code, bad, ("scores[a][1])",),
        "The smoothing is chosen by the validation F1 (the first of each pair); the test messages only report.",
        "The smoothing is chosen by the test F1 (the second of each pair), the figure then reported.",
        {"kind": "reaches", "probe": "best_alpha", "perturb": {"flip_text_label": "label"}}, knobs=tuple(range(150)),
        template="c-pick",
    )


def ticket_c_pick(test_first: bool = False) -> PairSpec:
    code = """from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# df: one support ticket per row; category is billing, access or shipping
train, test = train_test_split(df, test_size=0.25, random_state=@KNOB@)
fit, valid = train_test_split(train, test_size=0.3, random_state=@KNOB@)
vectorizer = TfidfVectorizer(min_df=2).fit(fit["text"])

results = {}
for C in [0.03, 0.1, 0.3, 1.0, 3.0, 10.0]:
    model = LogisticRegression(C=C, max_iter=1000).fit(vectorizer.transform(fit["text"]), fit["category"])
    results[C] = [f1_score(part["category"], model.predict(vectorizer.transform(part["text"])), average="macro")
                  for part in (valid, test)]
best_C = max(results, key=lambda C: results[C][0])
reported = results[best_C][1]
print(f"C={best_C}: macro F1 {reported:.3f}")
"""
    bad = swap(code, "best_C = max(results, key=lambda C: results[C][0])", "best_C = max(results, key=lambda C: results[C][1])")
    marker = "results[C][1])"
    if test_first:
        code, bad = (flip_reads(swap(c, "for part in (valid, test)]", "for part in (test, valid)]")) for c in (code, bad))
        marker = "results[C][0])"
    return PairSpec(
        "c-pick.tickets", "test_set_tuning", "tickets",
        "With its regularisation tuned, the router sorts unseen tickets with a macro F1 of @FIG@.",
        code, bad, (marker,),
        "C is chosen by the validation F1; the test F1 of that C is reported.",
        "C is chosen by the test F1, the figure then reported.",
        {"kind": "reaches", "probe": "best_C", "perturb": {"rotate": "category"}, "held": "test.index"},
        knobs=tuple(range(150)), template="c-pick",
    )


def lags_pick(s: Series, pair_id: str, test_first: bool = False) -> PairSpec:
    code = f"""import numpy as np
from sklearn.linear_model import Ridge

# df: one row per day, oldest first
{s.within()}
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
    bad = swap(code, "best = max(results, key=lambda k: results[k][0])", "best = max(results, key=lambda k: results[k][1])")
    marker = "results[k][1])"
    if test_first:
        scores = ("within(y.iloc[valid], model.predict(X.iloc[valid]))", "within(y.iloc[test], model.predict(X.iloc[test]))")
        code, bad = (test_score_first(c, *scores) for c in (code, bad))
        marker = "results[k][0])"
    return PairSpec(
        pair_id, "test_set_tuning", s.fixture,
        f"With the number of lags chosen for it, the model forecasts the final stretch of {s.what} {s.within_text} "
        "on a share of @FIG@ of days.",
        code, bad, (marker,),
        "The number of lags is chosen on the validation stretch; the final stretch is only scored.",
        "The number of lags is the one that scores best on the final stretch, the same figure then reported as the "
        "forecast quality.",
        {"kind": "reaches", "probe": "best", "perturb": {"shift": [s.target, 60.0]}, "held": "y.iloc[test].index"},
        knobs=tuple(range(40, 120, 2)), template="lags-pick",
    )


def search_score() -> PairSpec:
    code = """from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# df: one row per customer contacted in the spring campaign
features = ["emails_opened", "days_since_purchase", "app_sessions", "site_visits", "age", "income_k"]
X_train, X_test, y_train, y_test = train_test_split(df[features], df["responded"], test_size=0.3, random_state=@KNOB@)
grid = {"logisticregression__C": [0.0003, 0.001, 0.01, 0.1, 1.0]}
search = GridSearchCV(make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)), grid, cv=5, scoring="roc_auc")
search.fit(X_train, y_train)
print(search.cv_results_["mean_test_score"].round(3), search.best_params_)
held_out = search.score(X_test, y_test)
print(f"AUC of the chosen C: cross-validated {search.best_score_:.3f}, held out {held_out:.3f}")
reported = held_out
"""
    bad = swap(code, "reported = held_out", "reported = search.best_score_")
    return PairSpec(
        "search-score.campaign", "test_set_tuning", "campaign",
        "Tuned by a grid search on the training customers, the model ranks the held-out customers by their chance to "
        "respond with a ROC AUC of @FIG@.",
        code, bad, ("reported = search.best_score_",),
        "The grid search only sees the training customers; the reported AUC is the chosen model's score on the "
        "held-out ones.",
        "The reported figure is best_score_, the cross-validated AUC that chose C (the best of five), not a score on "
        "the held-out customers the claim names.",
        {"kind": "claimed", "expr": "roc_auc_score(y_test, search.predict_proba(X_test)[:, 1])"},
        knobs=tuple(range(300)), template="search-score",
    )


def pairs() -> list[PairSpec]:
    # Half the index-reading pairs keep their scores as (test, validation): see common.test_score_first.
    return [threshold_pick(LEADS, "threshold-pick.leads"), threshold_pick(LOANS, "threshold-pick.loans"),
            c_pick(CAMPAIGN, "c-pick.campaign", test_first=True), c_pick(CHURN, "c-pick.churn"), roles(), alpha_pick(),
            ticket_c_pick(test_first=True), lags_pick(SALES, "lags-pick.sales"),
            lags_pick(LOAD, "lags-pick.load", test_first=True), search_score()]
