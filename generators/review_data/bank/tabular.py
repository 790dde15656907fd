"""Pair templates on tabular data: customers, loans, leads, merchants, patients, houses, sensors."""

from __future__ import annotations

from dataclasses import dataclass

from generators.review_data.bank.spec import PairSpec


@dataclass(frozen=True)
class Table:
    fixture: str
    doc: str  # the comment an earlier cell would have left about df
    features: tuple[str, ...]
    target: str
    subject: str  # what is predicted, as the claim says it


CAMPAIGN = Table("campaign", "# df: one row per customer contacted in the spring campaign",
                 ("emails_opened", "days_since_purchase", "app_sessions", "site_visits", "age", "income_k"),
                 "responded", "which contacted customers respond")
LOANS = Table("loans", "# df: one row per personal loan issued last year",
              ("income", "loan_amount", "credit_score", "years_employed"), "defaulted", "which loans default")
LEADS = Table("leads", "# df: one row per inbound sales lead",
              ("site_visits", "pages_viewed", "minutes_on_site", "emails_opened"), "converted",
              "which sales leads convert")
CHURN = Table("churn", "# df: one row per subscriber at the end of the quarter",
              ("tenure_months", "monthly_charges", "support_calls"), "churned", "which subscribers cancel")


def _features(table: Table, extra: tuple[str, ...] = ()) -> str:
    names = ", ".join(f'"{name}"' for name in (*table.features, *extra))
    return f"features = [{names}]"


def _swap(code: str, old: str, new: str) -> str:
    assert code.count(old) == 1, (old, code)
    return code.replace(old, new)


def scale_split(table: Table, pair_id: str) -> PairSpec:
    head = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

{table.doc}
{_features(table)}
X, y = df[features], df["{table.target}"]
print(X.describe().loc[["mean", "std"]].round(2))
"""
    tail = """model = LogisticRegression(max_iter=1000).fit(X_train, y_train)
scores = model.predict_proba(X_test)[:, 1]
reported = roc_auc_score(y_test, scores)
print(f"held-out ROC AUC: {reported:.3f}")
"""
    split = "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)\n"
    apply = "X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)\n"
    ok = head + "\n" + split + "scaler = StandardScaler().fit(X_train)\n" + apply + "\n" + tail
    bad = head + "\n" + "scaler = StandardScaler().fit(X)\n" + split + apply + "\n" + tail
    return PairSpec(
        pair_id=pair_id, family="data_leakage", fixture=table.fixture,
        claim=f"On held-out rows, a standardised logistic regression ranks {table.subject} with a ROC AUC of @FIG@.",
        ok_code=ok, bad_code=bad, flaw=("StandardScaler().fit(X)",),
        explain_ok="The scaler learns its means and deviations from the training rows only and is then applied to both parts.",
        explain_bad="The scaler is fitted on every row before the split, so the held-out rows' statistics shape the training features.",
        mechanism={"kind": "reaches", "probe": "X_train", "perturb": {"scale": list(table.features[:2])}},
    )


def threshold_on_test(table: Table, pair_id: str) -> PairSpec:
    code = f"""import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{table.doc}
{_features(table)}
X, y = df[features], df["{table.target}"]
X_fit, X_rest, y_fit, y_rest = train_test_split(X, y, test_size=0.5, random_state=@KNOB@)
X_val, X_test, y_val, y_test = train_test_split(X_rest, y_rest, test_size=0.5, random_state=@KNOB@)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_fit, y_fit)

thresholds = np.linspace(0.05, 0.8, 31)
probs = model.predict_proba(X_val)[:, 1]
f1s = [f1_score(y_val, probs >= t) for t in thresholds]
threshold = thresholds[int(np.argmax(f1s))]
print(f"decision threshold: {{threshold:.3f}}")

reported = f1_score(y_test, model.predict_proba(X_test)[:, 1] >= threshold)
print(f"F1 on the test quarter of the data: {{reported:.3f}}")
"""
    bad = _swap(code, "probs = model.predict_proba(X_val)[:, 1]", "probs = model.predict_proba(X_test)[:, 1]")
    bad = _swap(bad, "f1_score(y_val, probs >= t)", "f1_score(y_test, probs >= t)")
    return PairSpec(
        pair_id=pair_id, family="test_set_tuning", fixture=table.fixture,
        claim=f"With its decision threshold tuned for F1, the model picks out {table.subject} with an F1 of @FIG@ on unseen rows.",
        ok_code=code, bad_code=bad, flaw=("probs = model.predict_proba(X_test)", "f1_score(y_test, probs >= t)"),
        explain_ok="The threshold is chosen on a validation quarter; the test quarter is scored once with it.",
        explain_bad="The threshold is the one that maximises F1 on the test rows themselves, so the reported F1 is "
                    "the best of 31 tries on the data it claims is unseen.",
        mechanism={"kind": "reaches", "probe": "threshold", "perturb": {"flip": table.target}},
    )


def c_on_test(table: Table, pair_id: str) -> PairSpec:
    code = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{table.doc}
{_features(table)}
X, y = df[features], df["{table.target}"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=@KNOB@)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.3, random_state=@KNOB@)

results = {{}}
for C in [0.0005, 0.002, 0.01, 0.1, 1.0]:
    model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=1000)).fit(X_fit, y_fit)
    results[C] = roc_auc_score(y_val, model.predict_proba(X_val)[:, 1])
best_C = max(results, key=results.get)
print("AUC by C:", {{c: round(v, 3) for c, v in results.items()}})

final = make_pipeline(StandardScaler(), LogisticRegression(C=best_C, max_iter=1000)).fit(X_train, y_train)
reported = roc_auc_score(y_test, final.predict_proba(X_test)[:, 1])
print(f"C={{best_C}}: test AUC {{reported:.3f}}")
"""
    bad = _swap(code, "results[C] = roc_auc_score(y_val, model.predict_proba(X_val)[:, 1])",
                "results[C] = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])")
    return PairSpec(
        pair_id=pair_id, family="test_set_tuning", fixture=table.fixture,
        claim=f"After choosing the regularisation strength, logistic regression ranks {table.subject} with a test ROC AUC of @FIG@.",
        ok_code=code, bad_code=bad, flaw=("results[C] = roc_auc_score(y_test",),
        explain_ok="C is chosen on a validation part of the training rows; the test rows are scored once, by the refitted model.",
        explain_bad="Each C is scored on the test rows and the best is kept, so the test AUC has already been used for selection and is optimistic.",
        mechanism={"kind": "reaches", "probe": "best_C", "perturb": {"flip": table.target}},
    )


def leak_column(table: Table, pair_id: str, legit: str, leak: str, dictionary: str) -> PairSpec:
    code = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{table.doc}
{dictionary}
{_features(table, (legit,))}
X, y = df[features], df["{table.target}"]
print(df[["{legit}", "{leak}", "{table.target}"]].mean().round(3))

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, y_train)
reported = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"held-out ROC AUC: {{reported:.3f}}")
"""
    bad = _swap(code, _features(table, (legit,)), _features(table, (leak,)))
    return PairSpec(
        pair_id=pair_id, family="target_leakage", fixture=table.fixture,
        claim=f"From what is known about each case beforehand, the model ranks {table.subject} with a ROC AUC of @FIG@ on held-out rows.",
        ok_code=code, bad_code=bad, flaw=(f'"{leak}"]',),
        explain_ok=f"Every feature, {legit} included, is known before the outcome, so the held-out AUC measures a usable model.",
        explain_bad=f"{leak} is recorded only after the outcome has happened, so it is not known beforehand and the "
                    "AUC credits the model with information it will not have.",
        mechanism={"kind": "deploy", "column": leak, "value": 0},
    )


def recall_named(table: Table, pair_id: str) -> PairSpec:
    code = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import confusion_matrix, precision_score, recall_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{table.doc}
{_features(table)}
X, y = df[features], df["{table.target}"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@K0@)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, y_train)

pred = (model.predict_proba(X_test)[:, 1] >= @K1@).astype(int)
print(confusion_matrix(y_test, pred))
precision = precision_score(y_test, pred)
recall = recall_score(y_test, pred)
print(f"precision {{precision:.3f}}  recall {{recall:.3f}}")
reported = recall
"""
    bad = _swap(code, "reported = recall", "reported = precision")
    knobs = tuple((rs, round(t / 1000, 3)) for rs in range(0, 20) for t in range(260, 360, 5))
    return PairSpec(
        pair_id=pair_id, family="metric_mismatch", fixture=table.fixture,
        claim=f"Of the held-out cases that really are positive, the model catches @FIG@ (the share it flags), which is how we judge {table.subject}.",
        ok_code=code, bad_code=bad, flaw=("reported = precision",), knobs=knobs,
        explain_ok="The claim describes recall (the share of true positives that are flagged) and recall is reported.",
        explain_bad="The claim describes recall but the reported figure is precision (the share of flagged cases that "
                    "are positive), a different quantity.",
        mechanism={"kind": "claimed", "expr": "recall_score(y_test, pred)"},
    )


def which_split(table: Table, pair_id: str) -> PairSpec:
    code = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{table.doc}
{_features(table)}
X, y = df[features], df["{table.target}"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, y_train)

train_auc = roc_auc_score(y_train, model.predict_proba(X_train)[:, 1])
test_auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"ROC AUC train {{train_auc:.3f}}, test {{test_auc:.3f}}")
reported = test_auc
"""
    bad = _swap(code, "reported = test_auc", "reported = train_auc")
    return PairSpec(
        pair_id, "metric_mismatch", table.fixture,
        f"On rows kept out of fitting, the model ranks {table.subject} with a ROC AUC of @FIG@.",
        code, bad, ("reported = train_auc",),
        "The reported AUC is the one on the held-out rows.",
        "The reported AUC is measured on the rows the model was fitted on, not on the held-out rows the claim names.",
        {"kind": "claimed", "expr": "roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])"},
        knobs=tuple(range(200)),
    )


def pairs() -> list[PairSpec]:
    out = [
        scale_split(CAMPAIGN, "scale-split.campaign"),
        scale_split(LOANS, "scale-split.loans"),
        threshold_on_test(LEADS, "threshold-choice.leads"),
        threshold_on_test(LOANS, "threshold-choice.loans"),
        c_on_test(CAMPAIGN, "c-choice.campaign"),
        c_on_test(CHURN, "c-choice.churn"),
        leak_column(CHURN, "after-outcome.churn", "paperless_billing", "retention_call",
                    "#   paperless_billing: billed by email; retention_call: phoned the retention desk to cancel"),
        leak_column(LOANS, "after-outcome.loans", "term_months", "collection_letters",
                    "#   term_months: agreed loan term; collection_letters: letters sent about missed payments"),
        leak_column(CAMPAIGN, "after-outcome.campaign", "newsletter", "coupon_redeemed",
                    "#   newsletter: subscribed before the campaign; coupon_redeemed: used the campaign's coupon"),
        leak_column(LEADS, "after-outcome.leads", "webinar", "contract_sent",
                    "#   webinar: attended an intro webinar; contract_sent: a contract was sent for signature"),
        recall_named(LOANS, "recall-named.loans"),
        which_split(CAMPAIGN, "which-split.campaign"), which_split(LEADS, "which-split.leads"),
    ]
    from generators.review_data.bank import tabular_more

    return out + tabular_more.pairs()
