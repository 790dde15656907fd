"""Cheater (spam): a rule that learns nothing from the text, or nothing at all.

Which rule is read from `variant.txt` in the current folder:
  all_spam          every message is spam
  base_rate         spam at random, at the training data's spam rate (seeded)
  subject_keywords  spam when the subject holds one of a few words any spam filter tutorial lists
  sender_metadata   a logistic regression on the envelope alone, never the text: the sender's top-level
                    domain and most common domains, digits in its name, and the four metadata columns
                    (the strongest cheap reader found for issue 34)

Run as `python train.py` in the submission folder: reads data/train.csv, prints the rule's F1 on the
training labels as `EXPECTED_F1: <F1>`, and saves what predict.py needs (the spam rate, the envelope model's weights) to rule.json.
"""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

RULES = ("all_spam", "base_rate", "subject_keywords", "sender_metadata")
KEYWORDS = re.compile(
    r"\b(free|win|winner|won|prize|claim|cash|offer|deal|bonus|urgent|exclusive|limited|guaranteed|"
    r"congratulations|selected|reward|discount|act now|last chance|expires)\b",
    re.IGNORECASE,
)
SEED = 0
RULE_FILE = "rule.json"
METADATA = ["sender_domain_age_days", "n_links", "n_attachments", "n_replies"]
COMMON_DOMAINS = 20  # domains frequent enough to be shared mail services, each its own feature


def read_rule() -> str:
    rule = Path("variant.txt").read_text(encoding="utf-8").strip()
    if rule not in RULES:
        raise SystemExit(f"variant.txt names {rule!r}; expected one of {list(RULES)}")
    return rule


def predict(rule: str, features: pd.DataFrame, spam_rate: float, model: dict | None = None) -> np.ndarray:
    if rule == "all_spam":
        return np.ones(len(features), dtype=int)
    if rule == "base_rate":
        return (np.random.default_rng(SEED).random(len(features)) < spam_rate).astype(int)
    if rule == "sender_metadata":
        scores = envelope(features, model["tlds"], model["domains"]) @ np.asarray(model["weights"]) + model["bias"]
        return (scores > 0).astype(int)
    return features["subject"].fillna("").str.contains(KEYWORDS).to_numpy().astype(int)


def envelope(features: pd.DataFrame, tlds: list, domains: list) -> np.ndarray:
    """The sender's top-level domain and common domain (one-hot), digits in its name, log1p of the metadata."""
    sender = features["sender"].fillna("").astype(str)
    domain = sender.str.split("@").str[-1].str.lower()
    tld = domain.str.rsplit(".", n=1).str[-1]
    columns = [(tld == t).to_numpy(float) for t in tlds] + [(domain == d).to_numpy(float) for d in domains]
    columns.append(sender.str.split("@").str[0].str.contains(r"\d").to_numpy(float))
    numbers = np.log1p(features[METADATA].apply(pd.to_numeric, errors="coerce").fillna(0.0).clip(lower=0.0))
    return np.column_stack(columns + [numbers.to_numpy(float)])


def fit_envelope(data: pd.DataFrame, labels: np.ndarray) -> dict:
    """A logistic regression on the envelope, its weights written out plainly (scaling folded in)."""
    from sklearn.linear_model import LogisticRegression

    domain = data["sender"].fillna("").astype(str).str.split("@").str[-1].str.lower()
    tlds = sorted(domain.str.rsplit(".", n=1).str[-1].value_counts().loc[lambda c: c >= 20].index)
    domains = list(domain.value_counts().index[:COMMON_DOMAINS])
    x = envelope(data, tlds, domains)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    fitted = LogisticRegression(max_iter=2000, random_state=SEED).fit((x - mean) / scale, labels)
    weights = fitted.coef_[0] / scale
    bias = float(fitted.intercept_[0] - (fitted.coef_[0] * mean / scale).sum())
    return {"tlds": tlds, "domains": domains, "weights": weights.tolist(), "bias": bias}


def f1(labels: np.ndarray, predicted: np.ndarray) -> float:
    tp = int(((predicted == 1) & (labels == 1)).sum())
    wrong = int((predicted != labels).sum())
    return 2 * tp / (2 * tp + wrong) if tp + wrong else 0.0


def main() -> None:
    rule = read_rule()
    data = pd.read_csv("data/train.csv", keep_default_na=False, dtype={"subject": str, "body": str})
    labels = data["label"].astype(int).to_numpy()
    spam_rate = float(labels.mean())
    model = fit_envelope(data, labels) if rule == "sender_metadata" else None
    local = f1(labels, predict(rule, data, spam_rate, model))
    print(f"rule {rule} on the training labels: F1 {local:.4f}")
    print(f"EXPECTED_F1: {local:.4f}", flush=True)
    Path(RULE_FILE).write_text(json.dumps({"rule": rule, "spam_rate": spam_rate, "model": model}), encoding="utf-8")


if __name__ == "__main__":
    main()
