"""More data_leakage pairs (v4): a feature made of the outcomes of each row's nearest neighbours.

neighbour-rate: a nearest-neighbour index and the labels it points into are taken on one line, before or after
the split that rebinds `X` and `y`. The twins hold the same lines in another order. Taken after the split, the
index holds the training rows only; taken before it, it holds every row, so each held-out row finds itself among
its neighbours and its own label enters its feature (and held-out labels enter the training rows' features).
Both twins fit a log transform on every row before the split (it learns nothing), so a fit before the split is
in both.
"""

from __future__ import annotations

from generators.review_data.bank.common import CHURN, LEADS, Table, trade
from generators.review_data.bank.spec import PairSpec


def neighbour_rate(table: Table, pair_id: str, k: int, model: str, imports: str) -> PairSpec:
    split = "X, X_test, y, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)\n"
    taken = f"index, known = NearestNeighbors(n_neighbors={k}).fit(X), y.to_numpy()\n"
    code = f"""import numpy as np
{imports}from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import FunctionTransformer

{table.doc}
{table.feature_list()}
X = FunctionTransformer(np.log1p).set_output(transform="pandas").fit_transform(df[features])
y = df["{table.target}"]
{split}{taken}

def neighbour_rate(X_part):
    return known[index.kneighbors(X_part, return_distance=False)].mean(axis=1)


model = {model}.fit(X.assign(near=neighbour_rate(X)), y)
reported = roc_auc_score(y_test, model.predict_proba(X_test.assign(near=neighbour_rate(X_test)))[:, 1])
print(f"ROC AUC with the neighbours' rate as a feature: {{reported:.3f}}")
"""
    bad = trade(code, split, taken)
    return PairSpec(
        pair_id, "data_leakage", table.fixture,
        f"With the outcome rate of each row's {k} nearest neighbours among the training rows as a feature, the model "
        f"tells on held-out rows {table.subject} with a ROC AUC of @FIG@.",
        code, bad, ("index, known = NearestNeighbors(",),
        "The neighbour index and its labels are taken after the split, from the training rows only.",
        "The neighbour index and its labels are taken before the split, from every row: each held-out row is its "
        "own nearest neighbour, so its label is part of its feature.",
        {"kind": "reaches", "probe": "model.predict_proba(X_test.assign(near=neighbour_rate(X_test)))",
         "perturb": {"flip": table.target}},
        knobs=tuple(range(200)), template="neighbour-rate",
    )


def pairs() -> list[PairSpec]:
    return [
        neighbour_rate(LEADS, "neighbour-rate.leads", 80, "LogisticRegression(max_iter=1000)",
                       "from sklearn.linear_model import LogisticRegression\n"),
        neighbour_rate(CHURN, "neighbour-rate.churn", 40,
                       "RandomForestClassifier(n_estimators=100, min_samples_leaf=5, random_state=0)",
                       "from sklearn.ensemble import RandomForestClassifier\n"),
    ]
