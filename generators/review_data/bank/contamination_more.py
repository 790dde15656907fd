"""More train_test_contamination pairs (v5): the entities are split, not the rows, and the keys must be distinct.

key-split: both twins take the entity key of every row (a patient, an author, a message's text, a store), drop the
repeated keys and split the keys; the rows of the keys on each side make the training and the held-out part. The
twins hold the same lines in another order: with the repeats dropped after the split (the dropped copy is only
counted), a key that repeats is drawn onto both sides, and so are its rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from generators.review_data.bank.common import trade
from generators.review_data.bank.spec import PairSpec


@dataclass(frozen=True)
class Keyed:
    pair_id: str
    fixture: str
    imports: str
    doc: str
    key: str  # the entity column
    noun: str  # what one key is, for the printout
    features: str  # a line binding the model's inputs, or ""
    fit: str  # the model line, fitting on train
    score: str  # the reported figure's expression on test
    claim: str
    entity: str  # what is held out, as the explanations say it
    names: tuple[str, str, str] = ("keys", "fit_keys", "held_keys")  # the pair's own names: all keys, each side's
    knobs: tuple = tuple(range(200))


def key_split(k: Keyed) -> PairSpec:
    keys, fit_keys, held_keys = k.names
    dedupe = f"{keys} = {keys}.drop_duplicates()\n"
    split = f"{fit_keys}, {held_keys} = train_test_split({keys}, test_size=0.3, random_state=@KNOB@)\n"
    code = f"""{k.imports}from sklearn.model_selection import train_test_split

{k.doc}
{k.features}{keys} = df["{k.key}"]
{dedupe}{split}print(len({keys}), "{k.noun}:", len({fit_keys}), "to fit,", len({held_keys}), "held out")
train, test = df[df["{k.key}"].isin({fit_keys})], df[df["{k.key}"].isin({held_keys})]
{k.fit}
reported = {k.score}
print(f"{{len(train)}} rows to fit, {{len(test)}} to score: {{reported:.3f}}")
"""
    return PairSpec(
        k.pair_id, "train_test_contamination", k.fixture, k.claim, code, trade(code, dedupe, split),
        (f"{fit_keys}, {held_keys} = train_test_split(",),
        f"The repeated keys are dropped before the split, so each of the {k.entity} is wholly on one side.",
        f"The keys are split while they still repeat (one per row); dropping the repeats afterwards changes only the "
        f"count. A key with several rows is drawn onto both sides, so the same {k.entity} are fitted and scored.",
        {"kind": "shared", "train": "train", "test": "test", "key": k.key}, knobs=k.knobs,
        template="key-split",
    )


KEYED = (
    Keyed("key-split.visits", "visits",
          "from sklearn.linear_model import LogisticRegression\nfrom sklearn.metrics import roc_auc_score\n",
          "# df: one row per clinic visit; patients come back several times", "patient_id", "patients",
          'features = ["age", "bmi", "systolic_bp", "heart_rate"]\n',
          'model = LogisticRegression(C=0.3, max_iter=1000).fit(train[features], train["readmitted"])',
          'roc_auc_score(test["readmitted"], model.predict_proba(test[features])[:, 1])',
          "For patients kept out of fitting, the model ranks visits by readmission risk with a ROC AUC of @FIG@.",
          "patients", ("ids", "fit_ids", "held_ids")),
    Keyed("key-split.reviews", "reviews",
          "from sklearn.feature_extraction.text import CountVectorizer\nfrom sklearn.metrics import accuracy_score\n"
          "from sklearn.naive_bayes import MultinomialNB\nfrom sklearn.pipeline import make_pipeline\n",
          "# df: one product review per row; authors write several reviews each", "author_id", "authors", "",
          'model = make_pipeline(CountVectorizer(min_df=3), MultinomialNB(alpha=2.0)).fit(train["text"], train["positive"])',
          'accuracy_score(test["positive"], model.predict(test["text"]))',
          "On reviews by authors it was not trained on, the classifier tells positive reviews from negative ones "
          "with an accuracy of @FIG@.",
          "authors", ("writers", "writers_a", "writers_b")),
    Keyed("key-split.inbox", "messages",
          "from sklearn.feature_extraction.text import CountVectorizer\nfrom sklearn.metrics import f1_score\n"
          "from sklearn.naive_bayes import MultinomialNB\nfrom sklearn.pipeline import make_pipeline\n",
          '# df: one message per row; label is "spam" or "ham"; bulk senders repeat a text', "text", "texts", "",
          'model = make_pipeline(CountVectorizer(min_df=3, binary=True), MultinomialNB(alpha=3.0)).fit(train["text"], train["label"])',
          'f1_score(test["label"], model.predict(test["text"]), pos_label="spam")',
          "On messages whose text it never saw in training, the filter flags spam with an F1 of @FIG@.",
          "texts", knobs=tuple(range(800))),
    Keyed("key-split.panel", "store_panel",
          "import numpy as np\nfrom sklearn.linear_model import Ridge\n",
          "# df: weekly sales of 30 stores over a year; footfall is counted at the door", "store", "stores",
          'features = ["promo", "footfall"]\n',
          'model = Ridge(alpha=1.0).fit(train[features], train["sales"])',
          'float(np.mean(np.abs(model.predict(test[features]) - test["sales"]) <= 0.1 * test["sales"]))',
          "For stores left out of fitting, the model gets weekly sales within 10% on a share of @FIG@ of store-weeks.",
          "stores", ("shops", "shops_fit", "shops_scored")),
)


def pairs() -> list[PairSpec]:
    return [key_split(k) for k in KEYED]
