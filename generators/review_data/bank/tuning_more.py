"""More test_set_tuning pairs (v4): three ideas the first tuning templates do not hold.

- search-then-split: a grid search that only picks a setting (`refit=False`), and a fresh model with that
  setting fitted on the training part. The twins hold the same lines; the split rebinds `X` and `y`, so the
  search sees the training part when it runs after the split and every row, test rows included, before it.
- weekday-smoothing: a forecaster with no fit at all (each weekday's level smoothed on its own), whose weight is
  chosen by the share of days forecast within tolerance, over the days before the scored stretch or over the
  whole series. Both twins smooth the whole series (the scored stretch needs it); only the scored span differs.
- boost-rounds: the number of boosting rounds read off the staged scores of the validation or the test part,
  both kept as the rows of one array (half the pairs in the other order, so no row index marks the flaw).
"""

from __future__ import annotations

from generators.review_data.bank.common import CHURN, LEADS, LOAD, LOANS, SALES, Series, Table, swap, trade
from generators.review_data.bank.spec import PairSpec


def _search_then_split(pair_id: str, fixture: str, head: str, pipeline: str, grid: str, scoring: str,
                       score: str, claim: str, perturb: dict) -> PairSpec:
    """The shared frame of the search-then-split pairs; `head` binds X and y, `pipeline` builds the model."""
    split = "X, X_test, y, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)\n"
    searched = "search.fit(X, y)\n"
    code = f"""{head}search = GridSearchCV({pipeline}, {grid}, cv=4, scoring="{scoring}", refit=False)
{split}{searched}model = {pipeline}.set_params(**search.best_params_).fit(X, y)
reported = {score}
print(search.best_params_, f"held-out score {{reported:.3f}}")
"""
    bad = trade(code, split, searched)
    return PairSpec(
        pair_id, "test_set_tuning", fixture, claim, code, bad, ("search.fit(X, y)",),
        "The grid search runs after the split, on the training part only; the chosen setting is refitted there "
        "and scored once on the held-out part.",
        "The grid search runs before the split, on every row: the held-out rows sat in its folds and helped pick "
        "the setting whose held-out score is then reported.",
        {"kind": "reaches", "probe": 'search.cv_results_["mean_test_score"]', "perturb": perturb},
        knobs=tuple(range(200)), template="search-then-split",
    )


def search_then_split_loans() -> PairSpec:
    head = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{LOANS.doc}
{LOANS.feature_list()}
X, y = df[features], df["{LOANS.target}"]
"""
    return _search_then_split(
        "search-then-split.loans", "loans", head, "make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))",
        '{"logisticregression__C": [0.0005, 0.002, 0.01, 0.1, 1.0]}', "roc_auc",
        "roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])",
        "With its regularisation chosen by a four-fold grid search, the model ranks held-out loans by default risk "
        "with a ROC AUC of @FIG@.",
        {"flip": LOANS.target},
    )


def search_then_split_inbox() -> PairSpec:
    head = """from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import f1_score
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline

# df: one message per row; label is "spam" or "ham"
df = df.drop_duplicates("text")
X, y = df["text"], (df["label"] == "spam").astype(int)
"""
    return _search_then_split(
        "search-then-split.inbox", "messages", head, "make_pipeline(CountVectorizer(min_df=2), MultinomialNB())",
        '{"multinomialnb__alpha": [0.01, 0.1, 0.5, 1.0, 3.0, 10.0]}', "f1",
        "f1_score(y_test, model.predict(X_test))",
        "With its smoothing picked by a grid search, naive Bayes flags spam among held-out messages with an F1 "
        "of @FIG@.",
        {"flip_text_label": "label"},
    )


def search_then_split_tickets() -> PairSpec:
    head = """from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline

# df: one support ticket per row; category is billing, access or shipping
X, y = df["text"], df["category"]
"""
    return _search_then_split(
        "search-then-split.tickets", "tickets", head,
        "make_pipeline(TfidfVectorizer(min_df=2), LogisticRegression(max_iter=1000))",
        '{"logisticregression__C": [0.03, 0.3, 3.0, 30.0]}', "f1_macro",
        'f1_score(y_test, model.predict(X_test), average="macro")',
        "With its regularisation set by a grid search over four folds, the router sorts held-out tickets with a "
        "macro F1 of @FIG@.",
        {"rotate": "category"},
    )


def weekday_smoothing(s: Series, pair_id: str, weights: str, names: tuple[str, str, str], blend: bool) -> PairSpec:
    """`names`: the pair's own names for the forecaster, its levels and its output; `blend` writes the update as
    a weighted mean instead of a step towards the new value (the same arithmetic), so siblings share no text."""
    fn, level, out = names
    update = (f"{level}[t % 7] = (1 - a) * {level}[t % 7] + a * values[t]" if blend
              else f"{level}[t % 7] += a * (values[t] - {level}[t % 7])")
    code = f"""import numpy as np

# df: one row per day, oldest first
{s.within()}

def {fn}(values, a):
    {level} = values[:7].astype(float)
    {out} = np.full(len(values), np.nan)
    for t in range(7, len(values)):
        {out}[t] = {level}[t % 7]
        {update}
    return {out}


y = df["{s.target}"].to_numpy()
cut = len(y) - @KNOB@
scores = {{a: within(y[7:cut], {fn}(y, a)[7:cut]) for a in {weights}}}
best = max(scores, key=scores.get)
reported = within(y[cut:], {fn}(y, best)[cut:])
print(f"weight {{best}}: {{reported:.3f}} of the last {{len(y) - cut}} days")
"""
    bad = swap(code, f"within(y[7:cut], {fn}(y, a)[7:cut])", f"within(y[7:], {fn}(y, a)[7:])")
    return PairSpec(
        pair_id, "test_set_tuning", s.fixture,
        f"With its smoothing weight tuned, smoothing each weekday on its own forecasts the last stretch of {s.what} "
        f"{s.within_text} on a share of @FIG@ of days.",
        code, bad, (f"{fn}(y, a)[7:])",),
        "The weight is chosen by the days before the cut; the one-step forecasts there use only earlier days, and "
        "the stretch after the cut is only scored.",
        "The weight is chosen by the share of good days over the whole series, the scored stretch included, so "
        "the reported share is on days that picked the weight.",
        {"kind": "reaches", "probe": "scores", "perturb": {"shift": [s.target, 60.0]}, "held": "df.index[cut:]"},
        knobs=tuple(range(40, 160, 2)), template="weekday-smoothing",
    )


_BOOST_SPLITS = """X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.3, random_state=@KNOB@)
"""


def boost_rounds(table: Table, pair_id: str, test_first: bool = False) -> PairSpec:
    parts = "(X_test, y_test), (X_val, y_val)" if test_first else "(X_val, y_val), (X_test, y_test)"
    chooser, scorer = ("1", "0") if test_first else ("0", "1")
    code = f"""import numpy as np
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

{table.doc}
{table.feature_list()}
X, y = df[features], df["{table.target}"]
{_BOOST_SPLITS}model = GradientBoostingClassifier(n_estimators=80, max_depth=2, random_state=0).fit(X_fit, y_fit)
staged = np.array([[roc_auc_score(y_part, p[:, 1]) for p in model.staged_predict_proba(X_part)]
                   for X_part, y_part in [{parts}]])
rounds = int(np.argmax(staged[{chooser}])) + 1
print(f"{{rounds}} rounds of 80; AUC by part at that round:", staged[:, rounds - 1].round(3))
reported = staged[{scorer}, rounds - 1]
"""
    bad = swap(code, f"np.argmax(staged[{chooser}])", f"np.argmax(staged[{scorer}])")
    return PairSpec(
        pair_id, "test_set_tuning", table.fixture,
        f"Stopped at the best number of boosting rounds, gradient boosting ranks {table.subject} with a test "
        "ROC AUC of @FIG@.",
        code, bad, (f"np.argmax(staged[{scorer}])",),
        "The number of rounds is read off the validation part's staged scores; the test part's row is only read "
        "at that round.",
        "The number of rounds is the one where the test part's own staged AUC peaks, the figure then reported.",
        {"kind": "reaches", "probe": "rounds", "perturb": {"flip": table.target}}, knobs=tuple(range(150)),
        template="boost-rounds",
    )


def pairs() -> list[PairSpec]:
    return [search_then_split_loans(), search_then_split_inbox(), search_then_split_tickets(),
            weekday_smoothing(SALES, "weekday-smoothing.sales", "(0.05, 0.1, 0.2, 0.3, 0.5, 0.8)",
                              ("one_step", "level", "out"), blend=False),
            weekday_smoothing(LOAD, "weekday-smoothing.load", "(0.02, 0.05, 0.1, 0.25, 0.4, 0.6, 0.9)",
                              ("smoothed_by_weekday", "carry", "ahead"), blend=True),
            boost_rounds(LEADS, "boost-rounds.leads"), boost_rounds(CHURN, "boost-rounds.churn", test_first=True)]
