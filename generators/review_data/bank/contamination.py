"""train_test_contamination pairs: the same entity or the same row on both sides of the split.

Half the twins hold the same lines in another order: duplicates dropped, or copies added, before the
split or after it; a final refit on every row placed before or after the held-out scores are taken.
The others split by a group column and differ in which column groups (both columns appear in both twins).
"""

from __future__ import annotations

from dataclasses import dataclass

from generators.review_data.bank.common import SALES, swap, trade
from generators.review_data.bank.spec import PairSpec


def dedupe_order() -> PairSpec:
    dedupe = "df = df.drop_duplicates()\n"
    split = "train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)\n"
    code = f"""from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

# df: one row per sensor reading; the logger sometimes wrote a reading more than once
features = ["vibration", "temperature", "pressure"]
print(len(df), "rows,", df.duplicated().sum(), "repeated")
{dedupe}{split}print(len(df), "distinct readings;", len(train), "to fit")

model = RandomForestClassifier(n_estimators=60, min_samples_leaf=8, random_state=0).fit(train[features], train["failure"])
reported = accuracy_score(test["failure"], model.predict(test[features]))
print(f"accuracy on held-out readings: {{reported:.3f}}")
"""
    return PairSpec(
        "dedupe-order.sensors", "train_test_contamination", "sensor_readings",
        "The forest predicts machine failure from a new reading with @FIG@ accuracy on held-out readings.",
        code, trade(code, dedupe, split), ("df = df.drop_duplicates()",),
        "Repeated readings are dropped before the split, so no held-out reading is also a training reading.",
        "The split is drawn before the repeats are dropped (dropping them afterwards changes df, not train or "
        "test), so copies of training readings sit among the test readings.",
        {"kind": "shared", "train": "train", "test": "test", "key": ["vibration", "temperature", "pressure"]},
        template="dedupe-order",
    )


def bulk_order() -> PairSpec:
    dedupe = 'df = df.drop_duplicates("text")\n'
    split = "train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)\n"
    code = f"""from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# df: one message per row; label is "spam" or "ham"
print(len(df), "messages,", df["text"].duplicated().sum(), "repeated texts")
{dedupe}{split}print(len(df), "distinct texts;", round((train["label"] == "spam").mean(), 3), "spam in training")

vectorizer = TfidfVectorizer(min_df=2, sublinear_tf=True).fit(train["text"])
model = LogisticRegression(C=3.0, max_iter=1000).fit(vectorizer.transform(train["text"]), train["label"] == "spam")
reported = f1_score(test["label"] == "spam", model.predict(vectorizer.transform(test["text"])))
print(f"spam F1 on held-out messages: {{reported:.3f}}")
"""
    return PairSpec(
        "dedupe-order.inbox", "train_test_contamination", "messages",
        "On messages it has not been trained on, the spam filter reaches an F1 of @FIG@.",
        code, trade(code, dedupe, split), ('df = df.drop_duplicates("text")',),
        "Repeated texts are dropped before the split, so no held-out message was also a training message.",
        "The split is drawn before repeated texts are dropped; the drop changes df only, so bulk copies of training "
        "messages remain among the test messages.",
        {"kind": "shared", "train": "train", "test": "test", "key": "text"}, knobs=tuple(range(150)),
        template="dedupe-order",
    )


def oversample_order() -> PairSpec:
    split = "leads, held = train_test_split(leads, test_size=0.3, random_state=@KNOB@)\n"
    copies = """extra = leads[leads["converted"] == 1].sample(frac=1.0, replace=True, random_state=0)
leads = pd.concat([leads, extra])
"""
    code = f"""import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: one row per inbound sales lead; about one in six converts
features = ["site_visits", "pages_viewed", "minutes_on_site", "emails_opened"]
leads = df.dropna(subset=features)
{split}{copies}print(leads["converted"].value_counts().to_dict(), len(held), "held out")

model = LogisticRegression(max_iter=1000).fit(leads[features], leads["converted"])
reported = roc_auc_score(held["converted"], model.predict_proba(held[features])[:, 1])
print(f"ROC AUC on held-out leads: {{reported:.3f}}")
"""
    return PairSpec(
        "oversample-order.leads", "train_test_contamination", "leads",
        "Oversampling converted leads to balance training, a logistic regression ranks leads by their chance to "
        "convert with a ROC AUC of @FIG@ on held-out leads.",
        code, trade(code, split, copies), ("extra = leads[leads[", "leads = pd.concat([leads, extra])"),
        "The split comes first and rebinds leads to the training part, so the copies are drawn from training leads only.",
        "The copies are drawn while leads still holds every lead; the split that follows scatters a lead and its "
        "copy over both parts.",
        {"kind": "shared", "train": "leads", "test": "held", "key": "index"}, template="copies-order",
    )


def augment_order() -> PairSpec:
    split = "tickets, held = train_test_split(tickets, test_size=0.3, random_state=@KNOB@)\n"
    copies = """shorter = tickets.assign(text=tickets["text"].str.split().str[1:].str.join(" "))
tickets = pd.concat([tickets, shorter])
"""
    code = f"""import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# df: one support ticket per row; category is billing, access or shipping
tickets = df[["text", "category"]]
{split}{copies}print(len(tickets), "training texts with shortened copies;", len(held), "held out")

vectorizer = TfidfVectorizer(min_df=2).fit(tickets["text"])
model = LogisticRegression(C=3.0, max_iter=1000).fit(vectorizer.transform(tickets["text"]), tickets["category"])
reported = f1_score(held["category"], model.predict(vectorizer.transform(held["text"])), average="macro")
print(f"macro F1 on held-out tickets: {{reported:.3f}}")
"""
    return PairSpec(
        "augment-order.tickets", "train_test_contamination", "tickets",
        "Adding shortened copies of tickets to the training data, the router sorts held-out tickets with a macro F1 "
        "of @FIG@.",
        code, trade(code, split, copies), ("shorter = tickets.assign(", "tickets = pd.concat([tickets, shorter])"),
        "The split rebinds tickets to the training part first, so the shortened copies are made of training tickets only.",
        "The copies are made while tickets holds every ticket; after the split a held-out ticket's near-identical "
        "copy can sit in training.",
        {"kind": "shared", "train": "tickets", "test": "held", "key": "index"}, knobs=tuple(range(150)),
        template="copies-order",
    )


def refit_order() -> PairSpec:
    scores = "scores = model.predict_proba(X_test)[:, 1]\n"
    refit = "model.fit(pd.concat([X_train, X_test]), pd.concat([y_train, y_test]))  # every customer, for the mailing\n"
    code = f"""import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: one row per customer contacted in the spring campaign
features = ["emails_opened", "days_since_purchase", "app_sessions", "site_visits", "age", "income_k"]
X_train, X_test, y_train, y_test = train_test_split(df[features], df["responded"], test_size=0.3, random_state=@KNOB@)
model = LogisticRegression(C=0.3, max_iter=1000).fit(X_train, y_train)
{scores}{refit}
reported = roc_auc_score(y_test, scores)
print(f"held-out ROC AUC: {{reported:.3f}}")
print(dict(zip(features, model.coef_[0].round(2))))
"""
    return PairSpec(
        "refit-order.campaign", "train_test_contamination", "campaign",
        "On customers held out from fitting, the response model ranks who responds with a ROC AUC of @FIG@.",
        code, trade(code, scores, refit), ("scores = model.predict_proba(X_test)",),
        "The held-out scores are taken from the model fitted on the training customers; the refit on everyone comes after.",
        "The model is refitted on every customer, the held-out ones included, before the held-out scores are taken, "
        "so the scored customers were in its training data.",
        {"kind": "reaches", "probe": "scores", "perturb": {"flip": "responded"}}, knobs=tuple(range(200)),
        template="refit-order",
    )


def refit_order_tickets() -> PairSpec:
    pred = 'pred = model.predict(test["text"])\n'
    refit = 'model.fit(df["text"], df["category"])  # every ticket, for the live router\n'
    code = f"""from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline

# df: one support ticket per row; category is billing, access or shipping
train, test = train_test_split(df, test_size=0.3, random_state=@K0@)
model = make_pipeline(CountVectorizer(min_df=2), MultinomialNB(alpha=@K1@))
model.fit(train["text"], train["category"])
{pred}{refit}
reported = f1_score(test["category"], pred, average="macro")
print(f"macro F1 on held-out tickets: {{reported:.3f}}")
"""
    return PairSpec(
        "refit-order.tickets", "train_test_contamination", "tickets",
        "On tickets held out from training, the router reaches a macro F1 of @FIG@ across the three categories.",
        code, trade(code, pred, refit), ('pred = model.predict(test["text"])',),
        "The held-out predictions come from the model fitted on the training tickets; the refit on every ticket comes after.",
        "The model is refitted on every ticket, the held-out ones included, before it predicts them.",
        {"kind": "reaches", "probe": "pred", "perturb": {"rotate": "category"}, "held": "test.index"},
        knobs=tuple((rs, a) for a in (1.0, 3.0) for rs in range(80)), template="refit-order",
    )


def refit_order_sales() -> PairSpec:
    s = SALES
    forecast = "forecast = model.predict(X_test)\n"
    refit = "model.fit(X, y)  # every day, for next week's plan\n"
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

{s.frame()}
{s.within()}
n_test = @KNOB@
X_train, X_test, y_train, y_test = X.iloc[:-n_test], X.iloc[-n_test:], y.iloc[:-n_test], y.iloc[-n_test:]
model = Ridge(alpha=1.0).fit(X_train, y_train)
{forecast}{refit}
reported = within(y_test, forecast)
print(f"share {s.within_text} over the last {{n_test}} days: {{reported:.3f}}")
"""
    return PairSpec(
        "refit-order.sales", "train_test_contamination", s.fixture,
        f"Trained on the earlier days, the model forecasts the most recent stretch of {s.what} {s.within_text} on a "
        "share of @FIG@ of days.",
        code, trade(code, forecast, refit), ("forecast = model.predict(X_test)",),
        "The forecast for the recent days is made by the model fitted on the earlier days; the refit on every day "
        "comes after it.",
        "The model is refitted on every day, the recent ones included, before it forecasts them: the scored days are "
        "training days.",
        # Only the last day changes: no lag of a scored day reads it, so only a model fitted on it can move.
        {"kind": "reaches", "probe": "forecast", "perturb": {"shift": ["sales", 40.0]}, "held": "y_test.index[-1:]"},
        knobs=tuple(range(60, 240, 2)), template="refit-order",
    )


@dataclass(frozen=True)
class Grouped:
    """A group split: which column must group (right) and which the flawed twin groups by (wrong)."""

    pair_id: str
    fixture: str
    imports: str
    doc: str
    prepare: str  # lines that build the frame `rows` and the feature matrix's source
    show: str  # what the cell prints about the groups
    right: str
    wrong: str
    fit: str  # the model line, fitting on train
    score: str  # the reported figure's expression on test
    claim: str
    explain_ok: str
    explain_bad: str
    key: str


def group_pair(g: Grouped) -> PairSpec:
    code = f"""{g.imports}from sklearn.model_selection import GroupShuffleSplit

{g.doc}
{g.prepare}print({g.show})
splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=@KNOB@)
train_idx, test_idx = next(splitter.split(rows, groups=rows["{g.right}"]))
train, test = rows.iloc[train_idx], rows.iloc[test_idx]

{g.fit}
reported = {g.score}
print(f"{{len(train)}} rows to fit, {{len(test)}} to score: {{reported:.3f}}")
"""
    bad = swap(code, f'groups=rows["{g.right}"]', f'groups=rows["{g.wrong}"]')
    return PairSpec(
        g.pair_id, "train_test_contamination", g.fixture, g.claim, code, bad, (f'groups=rows["{g.wrong}"]',),
        g.explain_ok, g.explain_bad, {"kind": "shared", "train": "train", "test": "test", "key": g.key},
        knobs=tuple(range(200)), template="group-split",
    )


_FOREST = "from sklearn.ensemble import RandomForestClassifier\nfrom sklearn.metrics import roc_auc_score\n"
GROUPED = (
    Grouped("group-split.visits", "visits", _FOREST, "# df: one row per clinic visit; patients come back several times",
            'rows = df\nfeatures = ["age", "bmi", "systolic_bp", "heart_rate"]\n',
            'rows.groupby("visit")["readmitted"].mean().round(3).to_dict(), rows["patient_id"].nunique(), "patients"',
            "patient_id", "visit",
            'model = RandomForestClassifier(n_estimators=60, min_samples_leaf=3, random_state=0).fit(train[features], train["readmitted"])',
            'roc_auc_score(test["readmitted"], model.predict_proba(test[features])[:, 1])',
            "For patients the clinic has not seen before, the forest ranks readmission risk with a ROC AUC of @FIG@.",
            "Whole patients are held out, so the score is for patients the model has never seen.",
            "The groups are visit numbers, not patients, so each held-out patient's other visits are in training and "
            "the forest recognises them.", "patient_id"),
    Grouped("group-split.listings", "listings", "from sklearn.linear_model import Ridge\nfrom sklearn.metrics import r2_score\n",
            "# df: one row per sale; a house sold twice appears twice with the same house_id",
            'rows = df\nfeatures = ["living_area", "lot_area", "year_built", "rooms", "garage_spaces"]\n',
            'rows["house_id"].nunique(), "houses,", rows["sale_number"].value_counts().to_dict()',
            "house_id", "sale_number", 'model = Ridge(alpha=1.0).fit(train[features], train["log_price"])',
            'r2_score(test["log_price"], model.predict(test[features]))',
            "Valuing houses it has never priced before, the model explains @FIG@ of the variance in log sale price (R^2).",
            "Each house is wholly in training or in testing, so the test houses are new to the model.",
            "The groups are sale numbers, so a resold house's first sale can be in training and its second sale "
            "scored in testing.", "house_id"),
    Grouped("group-split.merchants", "merchants", _FOREST, "# df: one row per order; merchant_id repeats across orders",
            'rows = df.assign(merchant_code=df["merchant_id"].str[1:].astype(int))\n'
            'features = ["merchant_code", "basket_value", "items", "hour"]\n',
            'rows["merchant_id"].nunique(), "merchants;", rows.groupby("hour").size().min(), "orders in the quietest hour"',
            "merchant_id", "hour",
            'model = RandomForestClassifier(n_estimators=60, min_samples_leaf=30, random_state=0).fit(train[features], train["chargeback"])',
            'roc_auc_score(test["chargeback"], model.predict_proba(test[features])[:, 1])',
            "For merchants who join the platform later, the forest ranks orders by chargeback risk with a ROC AUC of @FIG@.",
            "Held-out orders come from merchants absent from training, as a new merchant's would.",
            "The groups are hours of the day, so every merchant appears on both sides and the forest learns each "
            "merchant's code.", "merchant_id"),
    Grouped("group-split.reviews", "reviews",
            "from sklearn.feature_extraction.text import CountVectorizer\nfrom sklearn.linear_model import LogisticRegression\n"
            "from sklearn.metrics import roc_auc_score\nfrom sklearn.pipeline import make_pipeline\n",
            "# df: one product review per row; authors write several reviews each",
            "rows = df\n", 'rows["author_id"].nunique(), "authors over", rows["date"].nunique(), "days"',
            "author_id", "date",
            'model = make_pipeline(CountVectorizer(min_df=2), LogisticRegression(C=0.5, max_iter=1000)).fit(train["text"], train["positive"])',
            'roc_auc_score(test["positive"], model.predict_proba(test["text"])[:, 1])',
            "For reviewers it has never read, the sentiment model ranks positive reviews above negative ones with a "
            "ROC AUC of @FIG@.",
            "Whole authors are held out, so their habitual words are new to the model.",
            "Grouping by date puts each author's reviews on both sides; the model learns authors' habits and moods, "
            "not sentiment alone.", "author_id"),
    Grouped("group-split.panel", "store_panel",
            "import numpy as np\nfrom sklearn.ensemble import RandomForestRegressor\n",
            "# df: weekly sales of 30 stores over a year; footfall is counted at the door",
            'rows = df.assign(week_number=df["week"].dt.isocalendar().week.astype(int))\n'
            'features = ["promo", "footfall", "week_number"]\n',
            'rows["store"].nunique(), "stores,", rows["week"].nunique(), "weeks"', "store", "week",
            'model = RandomForestRegressor(n_estimators=60, min_samples_leaf=5, random_state=0).fit(train[features], train["sales"])',
            'float(np.mean(np.abs(model.predict(test[features]) - test["sales"]) <= 0.1 * test["sales"]))',
            "For stores it has never seen, the model gets weekly sales within 10% on a share of @FIG@ of store-weeks.",
            "Whole stores are held out, so the score is for stores new to the model.",
            "Grouping by week puts every store on both sides of the split, so the scored stores are ones the model "
            "was fitted on.", "store"),
)


def pairs() -> list[PairSpec]:
    return [dedupe_order(), bulk_order(), oversample_order(), augment_order(), refit_order(), refit_order_tickets(),
            refit_order_sales(),
            *(group_pair(g) for g in GROUPED)]
