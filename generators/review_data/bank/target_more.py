"""More target_leakage pairs (v5): the after-the-outcome column is in the code of both twins.

- shown-beside: both twins name two columns of the data dictionary in their code, one known before the outcome
  and one written after it; one column is only shown (its outcome rate, or its correlation with the target, is
  printed) and the other is a feature (in a text model, a token appended to the words). The twins hold the same
  tokens: they differ only in which column stands where, so in the flawed twin the late column is the feature and
  the early one is only shown. Tabular data with a
  classifier, daily energy load with a lag model, tickets and messages with a text model. (Daily sales were
  tried: their overtime_hours tells too little beyond the promotions for the flaw to show reliably.)
- recent-contacts: a subscriber's support contacts counted in a window that opens 90 days before the snapshot
  date and closes at the snapshot or at the end of the quarter being predicted; both dates are named in both twins.
"""

from __future__ import annotations

from generators.review_data.bank.common import CAMPAIGN, CHURN, LEADS, LOAD, LOANS, Series, Table, exchange, swap
from generators.review_data.bank.spec import PairSpec


def shown_beside(table: Table, pair_id: str, legit: str, leak: str, dictionary: str, model: str, imports: str,
                 knobs: tuple = tuple(range(200))) -> PairSpec:
    code = f"""{imports}from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

{table.doc}
{dictionary}
{table.feature_list()}
print(df["{table.target}"].groupby(df["{leak}"]).agg(["mean", "size"]).round(3))
X_train, X_test, y_train, y_test = train_test_split(
    df[[*features, "{legit}"]], df["{table.target}"], test_size=0.3, random_state=@KNOB@)
model = {model}.fit(X_train, y_train)
reported = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"ROC AUC on {{len(y_test)}} held-out rows: {{reported:.3f}}")
"""
    bad = exchange(code, f'"{legit}"', f'"{leak}"')
    return PairSpec(
        pair_id, "target_leakage", table.fixture,
        f"Using only what is known about each case beforehand, the model ranks {table.subject} with a ROC AUC of "
        "@FIG@ on held-out rows.",
        code, bad, (f'"{leak}"]]',),
        f"{leak} is only shown against the outcome; the features, {legit} included, are known beforehand.",
        f"{leak} is a feature and {legit} is only shown: {leak} is recorded after the outcome, so the model is "
        "credited with information it will not have when it has to decide.",
        {"kind": "deploy", "column": leak, "value": 0}, knobs=knobs, template="shown-beside",
    )


def shown_beside_series(s: Series, pair_id: str, legit: str, leak: str, dictionary: str, model: str,
                        imports: str) -> PairSpec:
    cols = ", ".join(f'"{c}"' for c in (*s.inputs, legit, "lag_1", "lag_7", "dow"))
    code = f"""import numpy as np
import pandas as pd
{imports}
# df: one row per day, oldest first
{dictionary}
{s.within()}
print("correlation with {s.target}:", round(df["{s.target}"].corr(df["{leak}"]), 2))
df = df.assign(dow=df["date"].dt.dayofweek, lag_1=df["{s.target}"].shift(1), lag_7=df["{s.target}"].shift(7)).dropna()
X = pd.get_dummies(df[[{cols}]], columns=["dow"], dtype=float)
y = df["{s.target}"]
n_test = @KNOB@
model = {model}.fit(X.iloc[:-n_test], y.iloc[:-n_test])
reported = within(y.iloc[-n_test:], model.predict(X.iloc[-n_test:]))
print(f"{{reported:.3f}} of the last {{n_test}} days {s.within_text}")
"""
    bad = exchange(code, f'"{legit}"', f'"{leak}"')
    return PairSpec(
        pair_id, "target_leakage", s.fixture,
        f"From what is known the evening before, the model forecasts the most recent days of {s.what} "
        f"{s.within_text} on a share of @FIG@ of days.",
        code, bad, (f'"{leak}", "lag_1"',),
        f"{leak} is only correlated with the target for the printout; the features ({legit}, the lags, the weekday) "
        "are known the evening before.",
        f"{leak} is a feature: it is recorded at the end of the day it describes, so it is not known the evening "
        "before.",
        {"kind": "deploy", "column": leak, "value": "median", "held": "y.index[-n_test:]"},
        knobs=tuple(range(60, 240, 2)), template="shown-beside",
    )


def shown_beside_tickets() -> PairSpec:
    code = """from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

# df: one support ticket per row; category is billing, access or shipping
#   channel: how the ticket came in; resolution_note: what the agent wrote when closing it
print(df.groupby("category")["resolution_note"].value_counts().unstack(fill_value=0))
words = df["text"] + " via_" + df["channel"]
train, test, y_train, y_test = train_test_split(words, df["category"], test_size=0.3, random_state=@K0@)
model = make_pipeline(TfidfVectorizer(min_df=2), LogisticRegression(C=@K1@, max_iter=1000)).fit(train, y_train)
reported = f1_score(y_test, model.predict(test), average="macro")
print(f"macro F1 on {len(test)} held-out tickets: {reported:.3f}")
"""
    bad = exchange(code, '"resolution_note"', '"channel"')
    return PairSpec(
        "shown-beside.tickets", "target_leakage", "tickets",
        "From what arrives with a ticket, the router sorts held-out tickets into the three categories with a macro "
        "F1 of @FIG@.",
        code, bad, ('df["resolution_note"]',),
        "The text and the channel are known when a ticket arrives; the closing notes are only tabulated.",
        "The closing note, written by the agent who resolves the ticket and often naming the desk, is appended to "
        "the words the router reads; the channel is only tabulated. A new ticket has no such note.",
        {"kind": "deploy", "column": "resolution_note", "value": ""},
        knobs=tuple((rs, c) for c in (1.0, 0.3, 3.0) for rs in range(80)), template="shown-beside",
    )


def shown_beside_inbox() -> PairSpec:
    code = """import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline

# df: one message per row; label is "spam" or "ham"
#   has_link: the message contains a link; user_reported: a recipient pressed "report spam"
df = df.drop_duplicates("text")
print(pd.crosstab(df["label"], df["user_reported"], margins=True))
words = df["text"] + " flag" + df["has_link"].astype(str)
X_train, X_test, y_train, y_test = train_test_split(words, df["label"], test_size=0.3, random_state=@KNOB@)
model = make_pipeline(CountVectorizer(min_df=2), MultinomialNB(alpha=0.5)).fit(X_train, y_train)
reported = f1_score(y_test, model.predict(X_test), pos_label="spam")
print(f"spam F1 on {len(y_test)} held-out messages: {reported:.3f}")
"""
    bad = exchange(code, '"user_reported"', '"has_link"')
    return PairSpec(
        "shown-beside.inbox", "target_leakage", "messages",
        "From what a message holds when it arrives, the filter flags spam among held-out messages with an F1 of "
        "@FIG@.",
        code, bad, ('df["user_reported"].astype(str)',),
        "The words and whether the message holds a link are known on arrival; the reports are only tabulated.",
        "Whether a recipient reported the message is appended to its words as a token, and the link flag is only "
        "tabulated: a report comes after the message arrived, so the filter cannot have it when it decides.",
        {"kind": "deploy", "column": "user_reported", "value": 0}, knobs=tuple(range(300)), template="shown-beside",
    )


def recent_contacts() -> PairSpec:
    code = """import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: subscribers as they stood on 2023-03-31; churned: left by 2023-06-30
# contacts: one row per support contact, with its date
snapshot, quarter_end = pd.Timestamp("2023-03-31"), pd.Timestamp("2023-06-30")
print(f"left between {snapshot:%d %b} and {quarter_end:%d %b}: {df['churned'].mean():.2f}")
window = contacts[contacts["date"].between(snapshot - pd.Timedelta(days=90), snapshot)]
frame = df.assign(recent=df["customer_id"].map(window["customer_id"].value_counts()).fillna(0))
features = ["tenure_months", "monthly_charges", "recent"]
train, test = train_test_split(frame, test_size=0.3, random_state=@KNOB@)
model = LogisticRegression(max_iter=2000).fit(train[features], train["churned"])
reported = roc_auc_score(test["churned"], model.predict_proba(test[features])[:, 1])
print(f"held-out ROC AUC: {reported:.3f}")
"""
    bad = swap(code, "days=90), snapshot)]", "days=90), quarter_end)]")
    return PairSpec(
        "recent-contacts.subscribers", "target_leakage", "subscribers",
        "From each subscriber's last three months up to the end of March, the model ranks who leaves in the next "
        "quarter with a held-out ROC AUC of @FIG@.",
        code, bad, ("days=90), quarter_end)]",),
        "Contacts are counted in the 90 days up to the snapshot date, so the count is known then.",
        "The window runs from 90 days before the snapshot to the end of the quarter being predicted, so the calls "
        "of subscribers who are leaving are counted as if they were known at the end of March.",
        {"kind": "deploy", "frame": "contacts", "held": "test.index",
         "erase": {"after": "2023-03-31", "date": "date", "key": "customer_id", "keys": "test['customer_id']"}},
        knobs=tuple(range(200)), template="recent-contacts",
    )


def pairs() -> list[PairSpec]:
    return [
        shown_beside(LOANS, "shown-beside.loans", "term_months", "collection_letters",
                     "#   term_months: agreed loan term; collection_letters: letters sent about missed payments",
                     "GradientBoostingClassifier(n_estimators=80, max_depth=2, random_state=0)",
                     "from sklearn.ensemble import GradientBoostingClassifier\n"),
        shown_beside(LEADS, "shown-beside.leads", "webinar", "contract_sent",
                     "#   webinar: attended an intro webinar; contract_sent: a contract was sent for signature",
                     "RandomForestClassifier(n_estimators=100, min_samples_leaf=8, random_state=0)",
                     "from sklearn.ensemble import RandomForestClassifier\n"),
        shown_beside(CAMPAIGN, "shown-beside.campaign", "newsletter", "coupon_redeemed",
                     "#   newsletter: subscribed before the campaign; coupon_redeemed: used the campaign's coupon",
                     "LogisticRegression(C=0.5, max_iter=1000)",
                     "from sklearn.linear_model import LogisticRegression\n"),
        shown_beside(CHURN, "shown-beside.churn", "paperless_billing", "retention_call",
                     "#   paperless_billing: billed by email; retention_call: phoned the retention desk to cancel",
                     "make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))",
                     "from sklearn.linear_model import LogisticRegression\nfrom sklearn.pipeline import make_pipeline\n"
                     "from sklearn.preprocessing import StandardScaler\n"),
        shown_beside_series(LOAD, "shown-beside.load", "humidity", "peak_kw",
                            "#   humidity: the day's forecast humidity; peak_kw: the day's highest quarter-hour demand",
                            "GradientBoostingRegressor(n_estimators=150, max_depth=2, random_state=0)",
                            "from sklearn.ensemble import GradientBoostingRegressor\n"),
        shown_beside_tickets(), shown_beside_inbox(), recent_contacts(),
    ]
