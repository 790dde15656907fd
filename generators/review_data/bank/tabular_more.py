"""More tabular pair templates: ideas shown on one or two data sets each."""

from __future__ import annotations

from generators.review_data.bank.spec import PairSpec

_CLS_IMPORTS = """from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
"""


def impute_churn() -> PairSpec:
    code = _CLS_IMPORTS + """from sklearn.impute import SimpleImputer

# df: one row per subscriber at the end of the quarter; total_charges has gaps
features = ["tenure_months", "monthly_charges", "total_charges", "support_calls"]
X, y = df[features], df["churned"]
print(X.isna().mean().round(3).to_dict())

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
imputer = SimpleImputer(strategy="median").fit(X_train)
X_train, X_test = imputer.transform(X_train), imputer.transform(X_test)

model = LogisticRegression(max_iter=5000).fit(X_train, y_train)
reported = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"held-out ROC AUC: {reported:.3f}")
"""
    bad = code.replace('imputer = SimpleImputer(strategy="median").fit(X_train)\n', "")
    bad = bad.replace("print(X.isna().mean().round(3).to_dict())\n",
                      'print(X.isna().mean().round(3).to_dict())\nimputer = SimpleImputer(strategy="median").fit(X)\n')
    return PairSpec(
        "impute-split.churn", "data_leakage", "churn",
        "With gaps in total charges filled by the median, the model ranks which subscribers cancel with a held-out ROC AUC of @FIG@.",
        code, bad, ('SimpleImputer(strategy="median").fit(X)',),
        "The medians that fill the gaps come from the training rows alone.",
        "The imputer's medians are computed over all rows, the held-out ones included, before the split.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"scale": ["total_charges"]}},
    )


def oversample_leads() -> PairSpec:
    code = """import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: one row per inbound sales lead; about one in six converts
features = ["site_visits", "pages_viewed", "minutes_on_site", "emails_opened"]
train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)
extra = train[train["converted"] == 1].sample(frac=2.0, replace=True, random_state=0)
train = pd.concat([train, extra])
print(train["converted"].value_counts().to_dict())

model = LogisticRegression(max_iter=1000).fit(train[features], train["converted"])
scores = model.predict_proba(test[features])[:, 1]
reported = roc_auc_score(test["converted"], scores)
print(f"ROC AUC on held-out leads: {reported:.3f}")
"""
    bad = code.replace("""train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)
extra = train[train["converted"] == 1].sample(frac=2.0, replace=True, random_state=0)
train = pd.concat([train, extra])""", """extra = df[df["converted"] == 1].sample(frac=2.0, replace=True, random_state=0)
df = pd.concat([df, extra])
train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)""")
    return PairSpec(
        "oversample-split.leads", "data_leakage", "leads",
        "Oversampling converted leads to balance training, a logistic regression ranks leads by their chance to "
        "convert with a ROC AUC of @FIG@ on held-out leads.",
        code, bad, ('extra = df[df["converted"] == 1]', "df = pd.concat([df, extra])"),
        "Converted leads are duplicated inside the training part only; the held-out leads are untouched.",
        "The duplicates are made before the split, so copies of the same lead land in both parts and the test set is "
        "no longer the real mix of leads.",
        {"kind": "shared", "train": "train", "test": "test", "key": "index"},
    )


def patients_visits() -> PairSpec:
    code = """from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupShuffleSplit

# df: one row per clinic visit; patients come back several times
features = ["age", "bmi", "systolic_bp", "heart_rate"]
print(df["patient_id"].nunique(), "patients,", len(df), "visits")
splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=@KNOB@)
train_idx, test_idx = next(splitter.split(df, groups=df["patient_id"]))
train, test = df.iloc[train_idx], df.iloc[test_idx]

model = RandomForestClassifier(n_estimators=60, min_samples_leaf=3, random_state=0)
model.fit(train[features], train["readmitted"])
reported = roc_auc_score(test["readmitted"], model.predict_proba(test[features])[:, 1])
print(f"ROC AUC on held-out visits: {reported:.3f}")
"""
    bad = code.replace('groups=df["patient_id"]', 'groups=df["visit"]')
    return PairSpec(
        "patient-split.visits", "train_test_contamination", "visits",
        "For patients the clinic has not seen before, the forest ranks readmission risk with a ROC AUC of @FIG@.",
        code, bad, ('groups=df["visit"]',),
        "Whole patients are held out, so the score is for patients the model has never seen.",
        "The groups are visit numbers, not patients, so each held-out patient's other visits are in training and the forest recognises them.",
        {"kind": "shared", "train": "train", "test": "test", "key": "patient_id"},
    )


def duplicates_sensors() -> PairSpec:
    code = """from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

# df: one row per sensor reading; the logger sometimes wrote a reading more than once
features = ["vibration", "temperature", "pressure"]
print(len(df), "rows,", df.duplicated().sum(), "repeated")
df = df.drop_duplicates()
train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)

model = RandomForestClassifier(n_estimators=60, min_samples_leaf=8, random_state=0).fit(train[features], train["failure"])
reported = accuracy_score(test["failure"], model.predict(test[features]))
print(f"accuracy on held-out readings: {reported:.3f}")
"""
    bad = code.replace("""df = df.drop_duplicates()
train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)""", """train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)
train = train.drop_duplicates()""")
    return PairSpec(
        "dedupe-split.sensors", "train_test_contamination", "sensor_readings",
        "The forest predicts machine failure from a new reading with @FIG@ accuracy on held-out readings.",
        code, bad, ("train = train.drop_duplicates()",),
        "Repeated readings are removed before the split, so no held-out reading is also a training reading.",
        "Duplicates are removed only inside the training part; copies of training readings stay in the test part, "
        "where the forest has memorised them.",
        {"kind": "shared", "train": "train", "test": "test", "key": ["vibration", "temperature", "pressure"]},
    )


def relisted_houses() -> PairSpec:
    code = """from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.model_selection import GroupShuffleSplit

# df: one row per sale; a house sold twice appears twice with the same house_id
features = ["living_area", "lot_area", "year_built", "rooms", "garage_spaces"]
print(df["house_id"].nunique(), "houses,", len(df), "sales")
splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=@KNOB@)
train_idx, test_idx = next(splitter.split(df, groups=df["house_id"]))
train, test = df.iloc[train_idx], df.iloc[test_idx]

model = Ridge(alpha=1.0).fit(train[features], train["log_price"])
reported = r2_score(test["log_price"], model.predict(test[features]))
print(f"R^2 on held-out sales: {reported:.3f}")
"""
    bad = code.replace('groups=df["house_id"]', 'groups=df.index')
    return PairSpec(
        "house-split.listings", "train_test_contamination", "listings",
        "Valuing houses it has never priced before, the model explains @FIG@ of the variance in log sale price (R^2).",
        code, bad, ("groups=df.index",),
        "Each house is wholly in training or in testing, so test houses are new to the model.",
        "Grouping by row index splits single sales, so a resold house can be priced in training and scored again in testing.",
        {"kind": "shared", "train": "train", "test": "test", "key": "house_id"},
    )


def merchants_new() -> PairSpec:
    code = """import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupShuffleSplit

# df: one row per order; merchant_id repeats across orders
df = df.assign(merchant_code=df["merchant_id"].str[1:].astype(int), log_basket=np.log(df["basket_value"]))
features = ["merchant_code", "log_basket", "items", "hour"]
splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=@KNOB@)
train_idx, test_idx = next(splitter.split(df, groups=df["merchant_id"]))
train, test = df.iloc[train_idx], df.iloc[test_idx]

model = RandomForestClassifier(n_estimators=60, min_samples_leaf=30, random_state=0)
model.fit(train[features], train["chargeback"])
reported = roc_auc_score(test["chargeback"], model.predict_proba(test[features])[:, 1])
print(f"ROC AUC on held-out orders: {reported:.3f}")
"""
    bad = code.replace('groups=df["merchant_id"]', 'groups=df["hour"]')
    return PairSpec(
        "merchant-split.merchants", "train_test_contamination", "merchants",
        "For merchants who join the platform later, the forest ranks orders by chargeback risk with a ROC AUC of @FIG@.",
        code, bad, ('groups=df["hour"]',),
        "Held-out orders come from merchants absent from training, as new merchants would be.",
        "The groups are hours of the day, so every merchant appears on both sides and the forest learns each merchant's code.",
        {"kind": "shared", "train": "train", "test": "test", "key": "merchant_id"},
    )


def train_score_houses() -> PairSpec:
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
    bad = code.replace("reported = test_r2", "reported = train_r2")
    return PairSpec(
        "which-split.houses", "metric_mismatch", "houses",
        "On houses held out from fitting, the model explains @FIG@ of the variance in log price (R^2).",
        code, bad, ("reported = train_r2",),
        "The reported R^2 is computed on the held-out houses, as claimed.",
        "The reported R^2 is the training fit, not the held-out score the claim describes.",
        {"kind": "claimed", "expr": "r2_score(y_test, model.predict(X_test))"}, knobs=tuple(range(200)),
    )


def auc_hard(fixture: str, doc: str, features: str, target: str, subject: str, pair_id: str) -> PairSpec:
    code = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{doc}
features = {features}
X, y = df[features], df["{target}"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = make_pipeline(StandardScaler(), LogisticRegression(class_weight="balanced", max_iter=1000))
model.fit(X_train, y_train)

proba = model.predict_proba(X_test)[:, 1]
pred = model.predict(X_test)
print(f"accuracy at 0.5: {{accuracy_score(y_test, pred):.3f}}")
reported = roc_auc_score(y_test, proba)
print(f"ROC AUC: {{reported:.3f}}")
"""
    bad = code.replace("reported = roc_auc_score(y_test, proba)", "reported = roc_auc_score(y_test, pred)")
    return PairSpec(
        pair_id, "metric_mismatch", fixture,
        f"Ranking {subject} by predicted probability gives a held-out ROC AUC of @FIG@.",
        code, bad, ("reported = roc_auc_score(y_test, pred)",),
        "ROC AUC is computed from the predicted probabilities, which is the ranking the claim describes.",
        "The AUC is computed from hard 0/1 predictions, which measures one threshold (balanced accuracy), not the "
        "ranking by probability that the claim names.",
        {"kind": "claimed", "expr": "roc_auc_score(y_test, proba)"},
        knobs=tuple(range(0, 150)),
    )


def transform_first() -> PairSpec:
    code = """import numpy as np
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import FunctionTransformer, StandardScaler

# df: one row per house sale; areas are right-skewed
features = ["living_area", "lot_area", "year_built", "rooms", "garage_spaces"]
transform = FunctionTransformer(np.log1p)
X = transform.fit_transform(df[features])
y = df["log_price"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = Ridge(alpha=1.0).fit(X_train, y_train)
reported = r2_score(y_test, model.predict(X_test))
print(f"R^2 on held-out sales: {reported:.3f}")
"""
    bad = code.replace("transform = FunctionTransformer(np.log1p)", "transform = StandardScaler()")
    return PairSpec(
        "transform-first.houses", "data_leakage", "houses",
        "Transforming the features once up front, a ridge regression explains @FIG@ of the variance in log price on held-out sales.",
        code, bad, ("transform = StandardScaler()",),
        "log1p is applied row by row and learns nothing, so transforming before the split shares nothing between the parts.",
        "The scaler learns means and deviations from every sale, the held-out ones included, before the split.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"scale": ["living_area", "lot_area"]}},
    )


def best_fold_loans() -> PairSpec:
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
    bad = code.replace("reported = scores.mean()", "reported = scores.max()")
    return PairSpec(
        "fold-summary.loans", "metric_mismatch", "loans",
        "Averaged over five cross-validation folds, the model ranks which loans default with a ROC AUC of @FIG@.",
        code, bad, ("reported = scores.max()",),
        "The mean over the five folds is reported, as claimed.",
        "The best of the five folds is reported, not the average over folds that the claim names.",
        {"kind": "claimed", "expr": "scores.mean()"}, knobs=tuple(range(300)),
    )


def pairs() -> list[PairSpec]:
    return [
        impute_churn(), oversample_leads(),
        patients_visits(), duplicates_sensors(), relisted_houses(), merchants_new(),
        train_score_houses(), transform_first(), best_fold_loans(),
        auc_hard("leads", "# df: one row per inbound sales lead",
                 '["site_visits", "pages_viewed", "minutes_on_site", "emails_opened"]', "converted",
                 "sales leads", "hard-auc.leads"),
    ]
