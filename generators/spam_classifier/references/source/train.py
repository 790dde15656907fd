"""Calibration reference: TF-IDF over subject and body into logistic regression.

Which extra columns it uses is read from `variant.txt` in the current folder:
  text_only  the text alone
  careful    the text plus the four metadata columns known on arrival (log1p, scaled)
  careless   all of the above plus moderator_flagged (the leak)

Run as `python train.py` in the submission folder: reads data/train.csv, prints
the F1 of a stratified 80/20 split and `EXPECTED_F1: <that F1>`, then fits on all
of train and saves model.joblib here. Needs only numpy, pandas, scikit-learn, joblib.
"""

from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

METADATA = ["sender_domain_age_days", "n_links", "n_attachments", "n_replies"]
EXTRA_COLUMNS = {
    "text_only": [],
    "careful": METADATA,
    "careless": METADATA + ["moderator_flagged"],
}
SEED = 0
MODEL_FILE = "model.joblib"


def read_variant() -> str:
    variant = Path("variant.txt").read_text(encoding="utf-8").strip()
    if variant not in EXTRA_COLUMNS:
        raise SystemExit(f"variant.txt names {variant!r}; expected one of {sorted(EXTRA_COLUMNS)}")
    return variant


def text_vectorizer() -> TfidfVectorizer:
    return TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2, dtype=np.float32)


def build_model(extra_columns: list) -> object:
    parts = [("subject", text_vectorizer(), "subject"), ("body", text_vectorizer(), "body")]
    if extra_columns:
        numeric = make_pipeline(FunctionTransformer(np.log1p), StandardScaler())
        parts.append(("numeric", numeric, extra_columns))
    return make_pipeline(
        ColumnTransformer(parts),
        LogisticRegression(C=4.0, solver="liblinear", max_iter=1000, random_state=SEED),
    )


def drop_pruned_terms(model) -> None:
    """The vectorizers remember every pruned term; that list is not needed to predict and is large."""
    for name in ("subject", "body"):
        vectorizer = model[0].named_transformers_[name]
        if hasattr(vectorizer, "stop_words_"):
            del vectorizer.stop_words_


def main() -> None:
    extra = EXTRA_COLUMNS[read_variant()]
    data = pd.read_csv("data/train.csv", keep_default_na=False, dtype={"subject": str, "body": str})
    features, labels = data.drop(columns=["label"]), data["label"].astype(int)
    fit_part, check_part, fit_labels, check_labels = train_test_split(
        features, labels, test_size=0.2, stratify=labels, random_state=SEED
    )
    local_f1 = f1_score(check_labels, build_model(extra).fit(fit_part, fit_labels).predict(check_part))
    print(f"local F1 (stratified 80/20 split): {local_f1:.4f}")
    print(f"EXPECTED_F1: {local_f1:.4f}", flush=True)
    model = build_model(extra).fit(features, labels)
    drop_pruned_terms(model)
    joblib.dump(model, MODEL_FILE)
    print(f"saved {MODEL_FILE}")


if __name__ == "__main__":
    main()
