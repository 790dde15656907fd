"""Pair templates on text: an inbox, product reviews, support tickets."""

from __future__ import annotations

from generators.review_data.bank.spec import PairSpec

_INBOX = """from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# df: one message per row; label is "spam" or "ham"
"""


def vocabulary_split() -> PairSpec:
    code = _INBOX + """df = df.drop_duplicates("text")
y = (df["label"] == "spam").astype(int)
print(len(df), "messages; spam share", round(y.mean(), 3))

X_train, X_test, y_train, y_test = train_test_split(df["text"], y, test_size=0.3, random_state=@KNOB@)
vectorizer = TfidfVectorizer(min_df=2, sublinear_tf=True).fit(X_train)
X_train, X_test = vectorizer.transform(X_train), vectorizer.transform(X_test)
model = LogisticRegression(C=3.0, max_iter=1000).fit(X_train, y_train)
reported = f1_score(y_test, model.predict(X_test))
print(f"spam F1 on held-out messages: {reported:.3f}")
"""
    bad = code.replace("vectorizer = TfidfVectorizer(min_df=2, sublinear_tf=True).fit(X_train)\n", "")
    bad = bad.replace('print(len(df), "messages; spam share", round(y.mean(), 3))\n',
                      'print(len(df), "messages; spam share", round(y.mean(), 3))\nvectorizer = '
                      'TfidfVectorizer(min_df=2, sublinear_tf=True).fit(df["text"])\n')
    return PairSpec(
        "vocabulary-split.inbox", "data_leakage", "messages",
        "A tf-idf logistic regression flags spam in held-out messages with an F1 of @FIG@.",
        code, bad, ('.fit(df["text"])',),
        "The vocabulary and its idf weights are learned from the training messages only.",
        "The vectorizer learns its vocabulary and document frequencies from every message, the held-out ones included, before the split.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"text": "text"}},
    )


def bulk_copies() -> PairSpec:
    code = _INBOX + """y = (df["label"] == "spam").astype(int)
print(len(df), "messages,", df["text"].duplicated().sum(), "repeated texts")
df = df.drop_duplicates("text")
train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)

vectorizer = TfidfVectorizer(min_df=2, sublinear_tf=True).fit(train["text"])
model = LogisticRegression(C=3.0, max_iter=1000)
model.fit(vectorizer.transform(train["text"]), train["label"] == "spam")
reported = f1_score(test["label"] == "spam", model.predict(vectorizer.transform(test["text"])))
print(f"spam F1 on held-out messages: {reported:.3f}")
"""
    bad = code.replace("""df = df.drop_duplicates("text")
train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)""", """train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)
train = train.drop_duplicates("text")""")
    return PairSpec(
        "bulk-copies.inbox", "train_test_contamination", "messages",
        "On messages it has not been trained on, the spam filter reaches an F1 of @FIG@.",
        code, bad, ('train = train.drop_duplicates("text")',),
        "Repeated texts are removed before the split, so no held-out message was also a training message.",
        "Repeats are removed only from the training part; copies of training messages remain among the test messages.",
        {"kind": "shared", "train": "train", "test": "test", "key": "text"},
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
    bad = code.replace('("flags", "passthrough", ["has_link"])', '("flags", "passthrough", ["user_reported"])')
    return PairSpec(
        "after-outcome.inbox", "target_leakage", "messages",
        "Using only what is known when a message arrives, the filter flags spam in held-out messages with an F1 of @FIG@.",
        code, bad, ('["user_reported"]',),
        "The words and whether the message holds a link are known on arrival.",
        "user_reported is set when a recipient reports the message, after it arrived, so the filter cannot have it when it has to decide.",
        {"kind": "deploy", "column": "user_reported", "value": 0}, knobs=tuple(range(150)),
    )


def alpha_on_test() -> PairSpec:
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
results = {}
for alpha in [0.01, 0.1, 0.5, 1.0, 3.0, 10.0]:
    nb = MultinomialNB(alpha=alpha).fit(vectorizer.transform(X_fit), y_fit)
    results[alpha] = f1_score(y_val, nb.predict(vectorizer.transform(X_val)))
best_alpha = max(results, key=results.get)
nb = MultinomialNB(alpha=best_alpha).fit(vectorizer.transform(X_fit), y_fit)
reported = f1_score(y_test, nb.predict(vectorizer.transform(X_test)))
print(f"alpha={best_alpha}: F1 {reported:.3f}")
"""
    bad = code.replace("results[alpha] = f1_score(y_val, nb.predict(vectorizer.transform(X_val)))",
                       "results[alpha] = f1_score(y_test, nb.predict(vectorizer.transform(X_test)))")
    return PairSpec(
        "alpha-choice.inbox", "test_set_tuning", "messages",
        "With its smoothing tuned, naive Bayes flags spam in unseen messages with an F1 of @FIG@.",
        code, bad, ("results[alpha] = f1_score(y_test",),
        "Smoothing is chosen on a validation part of the training messages; the test messages are scored once.",
        "Each smoothing value is scored on the test messages and the best is kept, so the reported F1 was used to choose the model.",
        {"kind": "reaches", "probe": "best_alpha", "perturb": {"flip_text_label": "label"}}, knobs=tuple(range(150)),
    )


def author_split() -> PairSpec:
    code = """from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupShuffleSplit

# df: one product review per row; authors write several reviews each
splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=@KNOB@)
train_idx, test_idx = next(splitter.split(df, groups=df["author_id"]))
train, test = df.iloc[train_idx], df.iloc[test_idx]
print(train["author_id"].nunique(), "authors to fit,", test["author_id"].nunique(), "to score")

vectorizer = CountVectorizer(min_df=2).fit(train["text"])
model = LogisticRegression(C=0.5, max_iter=1000).fit(vectorizer.transform(train["text"]), train["positive"])
scores = model.predict_proba(vectorizer.transform(test["text"]))[:, 1]
reported = roc_auc_score(test["positive"], scores)
print(f"ROC AUC: {reported:.3f}")
"""
    bad = code.replace('groups=df["author_id"]', 'groups=df["date"]')
    return PairSpec(
        "author-split.reviews", "train_test_contamination", "reviews",
        "For reviewers it has never read, the sentiment model ranks positive reviews above negative ones with a ROC AUC of @FIG@.",
        code, bad, ('groups=df["date"]',),
        "Whole authors are held out, so their habitual words are new to the model.",
        "Grouping by date puts each author's reviews on both sides; the model learns authors' habits and moods, not sentiment alone.",
        {"kind": "shared", "train": "train", "test": "test", "key": "author_id"}, knobs=tuple(range(150)),
    )


def _tickets(split: str) -> str:
    return f"""from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# df: one support ticket per row, oldest first; category is billing, access or shipping
{split}
print(train["created"].agg(["min", "max"]).tolist(), test["created"].agg(["min", "max"]).tolist())

vectorizer = TfidfVectorizer(min_df=2).fit(train["text"])
model = LogisticRegression(C=@K1@, max_iter=1000).fit(vectorizer.transform(train["text"]), train["category"])
pred = model.predict(vectorizer.transform(test["text"]))
reported = f1_score(test["category"], pred, average="macro")
print(f"macro F1: {{reported:.3f}}")
"""


def ticket_time() -> PairSpec:
    code = _tickets("train, test = train_test_split(df, test_size=0.3, shuffle=False)")
    bad = _tickets("train, test = train_test_split(df, test_size=0.3, random_state=@K0@)")
    return PairSpec(
        "recent-split.tickets", "temporal_leakage", "tickets",
        "Trained on earlier tickets, the router sorts the latest 30% of the year's tickets with a macro F1 of @FIG@.",
        code, bad, ("train_test_split(df, test_size=0.3",),
        "With shuffle=False the split keeps the date order: the last 30% of tickets are held out and the model learns from the earlier ones.",
        "A shuffled split scores tickets from across the year with later tickets in training, not the latest 30%.",
        {"kind": "future", "train": "train", "test": "test", "date": "created"},
        knobs=tuple((rs, c) for c in (0.3, 1.0, 3.0, 10.0) for rs in range(40)),
    )


def ticket_macro() -> PairSpec:
    split = "train, test = train_test_split(df, test_size=0.3, random_state=@K0@)"
    code = _tickets(split)
    bad = code.replace('reported = f1_score(test["category"], pred, average="macro")',
                       'reported = f1_score(test["category"], pred, average="micro")')
    return PairSpec(
        "macro-named.tickets", "metric_mismatch", "tickets",
        "On a random 30% of the year's tickets, the router reaches a macro-averaged F1 of @FIG@ across the three categories.",
        code, bad, ('average="micro")',),
        "Macro F1 is computed, as claimed.",
        "The reported figure is micro-averaged F1 (which equals accuracy here), not the macro average over categories that the claim names.",
        {"kind": "claimed", "expr": "f1_score(test['category'], pred, average='macro')"},
        knobs=tuple((rs, c) for c in (0.3, 1.0, 3.0) for rs in range(60)),
    )


def hashing_trick() -> PairSpec:
    code = """from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# df: one support ticket per row; is it a billing question?
y = (df["category"] == "billing").astype(int)
vectorizer = HashingVectorizer(n_features=2**12, alternate_sign=False, norm="l2")
X = vectorizer.fit_transform(df["text"])
print(X.shape, "share billing:", round(y.mean(), 3))

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=@KNOB@)
model = LogisticRegression(C=2.0, max_iter=1000).fit(X_train, y_train)
reported = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"billing ROC AUC on held-out tickets: {reported:.3f}")
"""
    bad = code.replace('vectorizer = HashingVectorizer(n_features=2**12, alternate_sign=False, norm="l2")',
                       'vectorizer = TfidfVectorizer(min_df=2, sublinear_tf=True, norm="l2")')
    return PairSpec(
        "vectorize-first.tickets", "data_leakage", "tickets",
        "Vectorising every ticket once, a logistic regression spots billing questions among held-out tickets with a ROC AUC of @FIG@.",
        code, bad, ("vectorizer = TfidfVectorizer(",),
        "A hashing vectorizer learns nothing from the texts (each word's column is a fixed hash), so transforming all "
        "tickets before the split shares nothing between them.",
        "A tf-idf vectorizer learns its vocabulary and document frequencies, here from every ticket, the held-out ones included, before the split.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"text": "text"}}, knobs=tuple(range(150)),
    )


def augment_split() -> PairSpec:
    code = """import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# df: one support ticket per row; category is billing, access or shipping
train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)
shorter = train.assign(text=train["text"].str.split().str[1:].str.join(" "))
train = pd.concat([train, shorter])
print(len(train), "training texts after adding shortened copies")

vectorizer = TfidfVectorizer(min_df=2).fit(train["text"])
model = LogisticRegression(C=3.0, max_iter=1000).fit(vectorizer.transform(train["text"]), train["category"])
reported = f1_score(test["category"], model.predict(vectorizer.transform(test["text"])), average="macro")
print(f"macro F1 on held-out tickets: {reported:.3f}")
"""
    bad = code.replace("""train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)
shorter = train.assign(text=train["text"].str.split().str[1:].str.join(" "))
train = pd.concat([train, shorter])""", """shorter = df.assign(text=df["text"].str.split().str[1:].str.join(" "))
df = pd.concat([df, shorter])
train, test = train_test_split(df, test_size=0.3, random_state=@KNOB@)""")
    return PairSpec(
        "augment-split.tickets", "train_test_contamination", "tickets",
        "Adding shortened copies of tickets to the training data, the router sorts held-out tickets with a macro F1 of @FIG@.",
        code, bad, ('shorter = df.assign(', "df = pd.concat([df, shorter])"),
        "The shortened copies are made from training tickets only, after the split.",
        "The copies are made before the split, so a held-out ticket's near-identical copy can sit in training.",
        {"kind": "shared", "train": "train", "test": "test", "key": "index"}, knobs=tuple(range(150)),
    )


_REVIEWS = """from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupShuffleSplit

# df: one product review per row; authors write several reviews each
splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=@KNOB@)
train_idx, test_idx = next(splitter.split(df, groups=df["author_id"]))
train, test = df.iloc[train_idx], df.iloc[test_idx]
"""


def select_reviews() -> PairSpec:
    code = _REVIEWS + """from sklearn.feature_selection import SelectKBest, chi2

vectorizer = CountVectorizer(min_df=2).fit(train["text"])
X_train, X_test = vectorizer.transform(train["text"]), vectorizer.transform(test["text"])
selector = SelectKBest(chi2, k=20).fit(X_train, train["positive"])
print("kept:", list(vectorizer.get_feature_names_out()[selector.get_support()])[:8])

model = LogisticRegression(max_iter=1000).fit(selector.transform(X_train), train["positive"])
reported = roc_auc_score(test["positive"], model.predict_proba(selector.transform(X_test))[:, 1])
print(f"ROC AUC with 20 words: {reported:.3f}")
"""
    bad = code.replace('selector = SelectKBest(chi2, k=20).fit(X_train, train["positive"])',
                       'selector = SelectKBest(chi2, k=20).fit(vectorizer.transform(df["text"]), df["positive"])')
    return PairSpec(
        "select-split.reviews", "data_leakage", "reviews",
        "Keeping the 20 words most tied to sentiment, the model ranks reviews of unseen authors with a ROC AUC of @FIG@.",
        code, bad, ('.fit(vectorizer.transform(df["text"]), df["positive"])',),
        "The 20 words are chosen by their association with the label in the training reviews only.",
        "The 20 words are chosen by their association with the label over all reviews, the held-out ones included.",
        {"kind": "reaches", "probe": "selector.get_support()", "perturb": {"flip": "positive"}, "held": "test.index"},
        knobs=tuple(range(200)),
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
    bad = code.replace('("extra", OneHotEncoder(handle_unknown="ignore"), ["channel"])',
                       '("extra", OneHotEncoder(handle_unknown="ignore"), ["resolution_note"])')
    return PairSpec(
        "after-outcome.tickets", "target_leakage", "tickets",
        "From what a customer sends in, the router sorts new tickets into the three categories with a macro F1 of @FIG@ on held-out tickets.",
        code, bad, ('["resolution_note"])',),
        "The words and the channel are known when a ticket arrives.",
        "resolution_note is written by the agent who closes the ticket, naming the desk; it does not exist when a new ticket has to be routed.",
        {"kind": "deploy", "column": "resolution_note", "value": "", "held": "test.index"},
        knobs=tuple((rs, c) for c in (1.0, 0.3, 3.0) for rs in range(60)),
    )


def ticket_c() -> PairSpec:
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
    results[C] = f1_score(valid["category"], model.predict(vectorizer.transform(valid["text"])), average="macro")
best_C = max(results, key=results.get)
model = LogisticRegression(C=best_C, max_iter=1000).fit(vectorizer.transform(fit["text"]), fit["category"])
reported = f1_score(test["category"], model.predict(vectorizer.transform(test["text"])), average="macro")
print(f"C={best_C}: macro F1 {reported:.3f}")
"""
    bad = code.replace('results[C] = f1_score(valid["category"], model.predict(vectorizer.transform(valid["text"])), average="macro")',
                       'results[C] = f1_score(test["category"], model.predict(vectorizer.transform(test["text"])), average="macro")')
    return PairSpec(
        "c-choice.tickets", "test_set_tuning", "tickets",
        "With its regularisation tuned, the router sorts unseen tickets with a macro F1 of @FIG@.",
        code, bad, ('results[C] = f1_score(test["category"]',),
        "C is chosen on a validation part of the training tickets; the test tickets are scored once.",
        "Each C is scored on the test tickets and the best is kept, so the reported F1 already chose the model.",
        {"kind": "reaches", "probe": "best_C", "perturb": {"rotate": "category"}, "held": "test.index"},
        knobs=tuple(range(150)),
    )


def vocabulary_first_tickets() -> PairSpec:
    code = """from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score

# df: one support ticket per row, oldest first; category is billing, access or shipping
cut = int(len(df) * 0.@KNOB@)
train, test = df.iloc[:cut], df.iloc[cut:]
vectorizer = TfidfVectorizer(min_df=2).fit(train["text"])
print(len(vectorizer.vocabulary_), "words;", train["created"].max(), "is the last training day")

X_train, X_test = vectorizer.transform(train["text"]), vectorizer.transform(test["text"])
model = LogisticRegression(C=3.0, max_iter=1000).fit(X_train, train["category"])
pred = model.predict(X_test)
reported = f1_score(test["category"], pred, average="macro")
print(f"macro F1 on the later tickets: {reported:.3f}")
"""
    bad = code.replace('vectorizer = TfidfVectorizer(min_df=2).fit(train["text"])', 'vectorizer = TfidfVectorizer(min_df=2).fit(df["text"])')
    return PairSpec(
        "vocabulary-first.tickets", "temporal_leakage", "tickets",
        "Trained on the earlier tickets of the year, the router sorts the later ones with a macro F1 of @FIG@.",
        code, bad, ('.fit(df["text"])',),
        "The vocabulary is learned from the earlier tickets only, as it would be when the later ones had not arrived.",
        "The vocabulary and its weights are learned from the whole year, so words that appear only in later tickets "
        "are already known to the model fitted on earlier ones.",
        {"kind": "reaches", "probe": "X_train", "perturb": {"text": "text"}, "held": "test.index"},
        knobs=tuple(range(60, 85)),
    )


def pairs() -> list[PairSpec]:
    return [vocabulary_split(), bulk_copies(), inbox_flag(), alpha_on_test(), author_split(), ticket_time(), ticket_macro(),
            hashing_trick(), augment_split(), select_reviews(),
            ticket_note(), ticket_c(), vocabulary_first_tickets()]
