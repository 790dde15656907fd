"""Cheater (spam): a rule that learns nothing from the text, or nothing at all.

Which rule is read from `variant.txt` in the current folder:
  all_spam          every message is spam
  base_rate         spam at random, at the training data's spam rate (seeded)
  subject_keywords  spam when the subject holds one of a few words any spam filter tutorial lists

Run as `python train.py` in the submission folder: reads data/train.csv, prints the rule's F1 on the
training labels as `EXPECTED_F1: <F1>`, and saves what predict.py needs (the spam rate) to rule.json.
"""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

RULES = ("all_spam", "base_rate", "subject_keywords")
KEYWORDS = re.compile(
    r"\b(free|win|winner|won|prize|claim|cash|offer|deal|bonus|urgent|exclusive|limited|guaranteed|"
    r"congratulations|selected|reward|discount|act now|last chance|expires)\b",
    re.IGNORECASE,
)
SEED = 0
RULE_FILE = "rule.json"


def read_rule() -> str:
    rule = Path("variant.txt").read_text(encoding="utf-8").strip()
    if rule not in RULES:
        raise SystemExit(f"variant.txt names {rule!r}; expected one of {list(RULES)}")
    return rule


def predict(rule: str, features: pd.DataFrame, spam_rate: float) -> np.ndarray:
    if rule == "all_spam":
        return np.ones(len(features), dtype=int)
    if rule == "base_rate":
        return (np.random.default_rng(SEED).random(len(features)) < spam_rate).astype(int)
    return features["subject"].fillna("").str.contains(KEYWORDS).to_numpy().astype(int)


def f1(labels: np.ndarray, predicted: np.ndarray) -> float:
    tp = int(((predicted == 1) & (labels == 1)).sum())
    wrong = int((predicted != labels).sum())
    return 2 * tp / (2 * tp + wrong) if tp + wrong else 0.0


def main() -> None:
    rule = read_rule()
    data = pd.read_csv("data/train.csv", keep_default_na=False, dtype={"subject": str, "body": str})
    labels = data["label"].astype(int).to_numpy()
    spam_rate = float(labels.mean())
    local = f1(labels, predict(rule, data, spam_rate))
    print(f"rule {rule} on the training labels: F1 {local:.4f}")
    print(f"EXPECTED_F1: {local:.4f}", flush=True)
    Path(RULE_FILE).write_text(json.dumps({"rule": rule, "spam_rate": spam_rate}), encoding="utf-8")


if __name__ == "__main__":
    main()
