"""target_leakage pairs: a feature that exists only once the outcome is known.

Meaning decides these: both twins carry the same data dictionary, naming both columns; the code differs
in which one it uses, in a cut-off date, or in a drop list. In one pair the sound twin is the one that
names the after-the-outcome column in its code (it drops it), so a column's name alone says nothing.
"""

from __future__ import annotations

from generators.review_data.bank.common import CAMPAIGN, CHURN, LEADS, LOAD, LOANS, SALES, Series, Table, swap
from generators.review_data.bank.spec import PairSpec


def known_before(table: Table, pair_id: str, legit: str, leak: str, dictionary: str) -> PairSpec:
    code = f"""from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

{table.doc}
{dictionary}
{table.feature_list((legit,))}
X, y = df[features], df["{table.target}"]
print(df[["{legit}", "{leak}", "{table.target}"]].mean().round(3))

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, y_train)
reported = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"held-out ROC AUC: {{reported:.3f}}")
"""
    bad = swap(code, table.feature_list((legit,)), table.feature_list((leak,)))
    return PairSpec(
        pair_id, "target_leakage", table.fixture,
        f"From what is known about each case beforehand, the model ranks {table.subject} with a ROC AUC of @FIG@ "
        "on held-out rows.",
        code, bad, (f'"{leak}"]',),
        f"Every feature, {legit} included, is known before the outcome, so the held-out AUC measures a usable model.",
        f"{leak} is recorded only after the outcome has happened, so it is not known beforehand and the AUC credits "
        "the model with information it will not have.",
        {"kind": "deploy", "column": leak, "value": 0}, knobs=tuple(range(100)), template="known-before",
    )


def drop_list() -> PairSpec:
    code = """import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: one row per subscriber at the end of the quarter
#   contract: the plan signed up for; retention_call: phoned the retention desk to cancel
X = pd.get_dummies(df.drop(columns=["customer_id", "churned", "total_charges", "retention_call"]), dtype=float)
y = df["churned"]
print(sorted(X.columns))

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = RandomForestClassifier(n_estimators=80, min_samples_leaf=10, random_state=0).fit(X_train, y_train)
reported = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"held-out ROC AUC: {reported:.3f}")
"""
    bad = swap(code, '"total_charges", "retention_call"]', '"total_charges", "paperless_billing"]')
    return PairSpec(
        "drop-list.churn", "target_leakage", "churn",
        "Using what is on a subscriber's account before they decide, the forest ranks which subscribers cancel with "
        "a held-out ROC AUC of @FIG@.",
        code, bad, ('"total_charges", "paperless_billing"]',),
        "The drop list removes the ids, the label, the gappy total and retention_call, so every column left is known "
        "before the subscriber decides.",
        "retention_call is not in the drop list (paperless_billing is dropped instead), so the forest is fed a "
        "column written when the subscriber phones to cancel.",
        {"kind": "deploy", "column": "retention_call", "value": 0}, knobs=tuple(range(150)), template="drop-list",
    )


def contact_window() -> PairSpec:
    code = """import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: subscribers as they stood on 2023-03-31; churned: left by 2023-06-30
# contacts: one row per support contact, with its date
cutoff = pd.Timestamp("2023-03-31")
counts = contacts[contacts["date"] <= cutoff].groupby("customer_id").size().rename("contacts")
frame = df.join(counts, on="customer_id").fillna({"contacts": 0})
print(frame.groupby("churned")["contacts"].mean().round(2).to_dict())

features = ["tenure_months", "monthly_charges", "paperless_billing", "contacts"]
train, test = train_test_split(frame, test_size=0.3, random_state=@KNOB@)
model = LogisticRegression(max_iter=2000).fit(train[features], train["churned"])
reported = roc_auc_score(test["churned"], model.predict_proba(test[features])[:, 1])
print(f"held-out ROC AUC: {reported:.3f}")
"""
    bad = swap(code, 'cutoff = pd.Timestamp("2023-03-31")', 'cutoff = pd.Timestamp("2023-06-30")')
    return PairSpec(
        "contact-window.subscribers", "target_leakage", "subscribers",
        "From each subscriber's history up to the end of March, the model ranks who leaves in the next quarter with "
        "a held-out ROC AUC of @FIG@.",
        code, bad, ('cutoff = pd.Timestamp("2023-06-30")',),
        "Contacts are counted up to the snapshot date, so the feature holds only what was known when the prediction "
        "is made.",
        "Contacts are counted up to the end of June, through the quarter being predicted, so the calls of people "
        "who are leaving are counted as if they were known in March.",
        {"kind": "deploy", "frame": "contacts", "held": "test.index",
         "erase": {"after": "2023-03-31", "date": "date", "key": "customer_id", "keys": "test['customer_id']"}},
        knobs=tuple(range(150)),
        template="contact-window",
    )


def inbox_flag() -> PairSpec:
    code = """from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

# df: one message per row; label is "spam" or "ham"
#   has_link: the message contains a link; user_reported: a recipient pressed "report spam"
df = df.drop_duplicates("text")
y = (df["label"] == "spam").astype(int)
columns = ColumnTransformer([("words", TfidfVectorizer(min_df=2), "text"), ("flags", "passthrough", ["has_link"])])
model = make_pipeline(columns, LogisticRegression(C=3.0, max_iter=1000))

X_train, X_test, y_train, y_test = train_test_split(df, y, test_size=0.3, random_state=@KNOB@)
model.fit(X_train, y_train)
reported = f1_score(y_test, model.predict(X_test))
print(f"spam F1 on held-out messages: {reported:.3f}")
"""
    bad = swap(code, '("flags", "passthrough", ["has_link"])', '("flags", "passthrough", ["user_reported"])')
    return PairSpec(
        "known-on-arrival.inbox", "target_leakage", "messages",
        "Using only what is known when a message arrives, the filter flags spam in held-out messages with an F1 of @FIG@.",
        code, bad, ('["user_reported"]',),
        "The words and whether the message holds a link are known on arrival.",
        "user_reported is set when a recipient reports the message, after it arrived, so the filter cannot have it "
        "when it has to decide.",
        {"kind": "deploy", "column": "user_reported", "value": 0}, knobs=tuple(range(150)), template="known-on-arrival",
    )


def ticket_note() -> PairSpec:
    code = """from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

# df: one support ticket per row; category is billing, access or shipping
#   channel: how the ticket came in; resolution_note: what the agent wrote when closing it
words = TfidfVectorizer(min_df=2)
columns = ColumnTransformer([("words", words, "text"), ("extra", OneHotEncoder(handle_unknown="ignore"), ["channel"])])
model = make_pipeline(columns, LogisticRegression(C=@K1@, max_iter=1000))

train, test = train_test_split(df, test_size=0.3, random_state=@K0@)
model.fit(train, train["category"])
reported = f1_score(test["category"], model.predict(test), average="macro")
print(f"macro F1 on held-out tickets: {reported:.3f}")
"""
    bad = swap(code, '("extra", OneHotEncoder(handle_unknown="ignore"), ["channel"])',
               '("extra", OneHotEncoder(handle_unknown="ignore"), ["resolution_note"])')
    return PairSpec(
        "known-on-arrival.tickets", "target_leakage", "tickets",
        "From what a customer sends in, the router sorts new tickets into the three categories with a macro F1 of "
        "@FIG@ on held-out tickets.",
        code, bad, ('["resolution_note"])',),
        "The words and the channel are known when a ticket arrives.",
        "resolution_note is written by the agent who closes the ticket, naming the desk; it does not exist when a "
        "new ticket has to be routed.",
        {"kind": "deploy", "column": "resolution_note", "value": "", "held": "test.index"},
        knobs=tuple((rs, c) for c in (1.0, 0.3, 3.0) for rs in range(60)), template="known-on-arrival",
    )


def end_of_day(s: Series, pair_id: str, legit: str, leak: str, dictionary: str) -> PairSpec:
    cols = ", ".join(f'"{c}"' for c in (*s.inputs, legit, "lag_1", "lag_7", "dow"))
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

# df: one row per day, oldest first
{dictionary}
{s.within()}
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
    bad = swap(code, f'"{legit}", "lag_1"', f'"{leak}", "lag_1"')
    return PairSpec(
        pair_id, "target_leakage", s.fixture,
        f"From what is known the evening before, the model forecasts the most recent days of {s.what} "
        f"{s.within_text} on a share of @FIG@ of days.",
        code, bad, (f'"{leak}", "lag_1"',),
        f"{legit} is known before the day starts, as are the lags.",
        f"{leak} is recorded at the end of the day it describes, so it is not known the evening before.",
        {"kind": "deploy", "column": leak, "value": "median"}, knobs=tuple(range(60, 200, 2)), template="end-of-day",
    )


def pairs() -> list[PairSpec]:
    return [
        known_before(CHURN, "known-before.churn", "paperless_billing", "retention_call",
                     "#   paperless_billing: billed by email; retention_call: phoned the retention desk to cancel"),
        known_before(LOANS, "known-before.loans", "term_months", "collection_letters",
                     "#   term_months: agreed loan term; collection_letters: letters sent about missed payments"),
        known_before(CAMPAIGN, "known-before.campaign", "newsletter", "coupon_redeemed",
                     "#   newsletter: subscribed before the campaign; coupon_redeemed: used the campaign's coupon"),
        known_before(LEADS, "known-before.leads", "webinar", "contract_sent",
                     "#   webinar: attended an intro webinar; contract_sent: a contract was sent for signature"),
        drop_list(), contact_window(), inbox_flag(), ticket_note(),
        end_of_day(SALES, "end-of-day.sales", "staff_on_rota", "overtime_hours",
                   "#   staff_on_rota: staff scheduled for the day; overtime_hours: extra hours worked that day"),
        end_of_day(LOAD, "end-of-day.load", "humidity", "peak_kw",
                   "#   humidity: the day's forecast humidity; peak_kw: the day's highest quarter-hour demand"),
    ]
