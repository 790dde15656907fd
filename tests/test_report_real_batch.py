"""The report on records the real runner wrote: scripted models, real Docker sandbox, the evaluate
stage running the leak probe and the retrains.

- honest: the runner tests' working text-only submission (design drops the column);
- leaky: the same design, but its code appends moderator_flagged to the text features;
- mute: every answer empty (uncaptured): shown as such, never scored as zero.
"""

from __future__ import annotations

import csv

import pytest
from runner_support import answers, implementation, make_tiny_corpus, run_scripted_batch

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TRAIN_LEAKY = """
import pickle

import pandas as pd
from scipy.sparse import csr_matrix, hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

df = pd.read_csv("data/train.csv")
text = (df["subject"].fillna("") + " " + df["body"].fillna("")).tolist()
vectorizer = TfidfVectorizer(min_df=2)
features = hstack([vectorizer.fit_transform(text), csr_matrix(df[["moderator_flagged"]].to_numpy() * 5.0)]).tocsr()
model = LogisticRegression(max_iter=300).fit(features, df["label"])
with open("model.pkl", "wb") as handle:
    pickle.dump((vectorizer, model), handle)
print("EXPECTED_F1: 0.990")
"""

PREDICT_LEAKY = """
import argparse
import pickle

import pandas as pd
from scipy.sparse import csr_matrix, hstack

parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
with open("model.pkl", "rb") as handle:
    vectorizer, model = pickle.load(handle)
df = pd.read_csv(args.input)
text = (df["subject"].fillna("") + " " + df["body"].fillna("")).tolist()
features = hstack([vectorizer.transform(text), csr_matrix(df[["moderator_flagged"]].to_numpy() * 5.0)]).tocsr()
pd.DataFrame({"id": df["id"], "label": model.predict(features)}).to_csv(args.output, index=False)
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from bakeoff.tasks import report_batch as write_report
    from bakeoff.tasks.spam_classifier.hooks import AnalysisOptions, evaluate_hooks

    root = tmp_path_factory.mktemp("real-batch")
    corpus = make_tiny_corpus(root / "corpus")
    empty = [{"key": key, "text": ""} for key in ("explore#1", "decide#1", "implement#1", "implement#2", "docs#1")]
    scripts = {
        "honest": answers(implementation()),
        "leaky": answers(implementation(TRAIN_LEAKY, PREDICT_LEAKY)),
        "mute": empty,
    }
    hooks = evaluate_hooks(AnalysisOptions(probe_rows=400, retrain_seeds=1))
    plan = {"corpus": str(corpus), "seed": 5, "task_settings": {"smoke_rows": 50}}
    run_scripted_batch(root, scripts, plan, evaluate_hooks=hooks)
    files = write_report(root / "batch")
    with open(files.folder / "tables" / "runs.csv", newline="") as handle:
        runs = {row["model"]: row for row in csv.DictReader(handle)}
    with open(files.folder / "tables" / "models.csv", newline="") as handle:
        models_rows = {row["model"]: row for row in csv.DictReader(handle)}
    return files, runs, models_rows


def test_the_honest_run_is_scored_and_leak_free(report):
    _, runs, _ = report
    honest = runs["honest"]
    assert (honest["grading"], honest["status"], honest["rung"]) == ("graded", "scored", "5")
    assert 0.3 < float(honest["f1"]) <= 1.0
    assert (honest["stance"], honest["probe"], honest["divergence"]) == ("excluded_with_reason", "does_not_use", "consistent")
    assert honest["exploration"] == "executed" and honest["metric"] == "f1"
    assert honest["retrain_spread"] != ""  # the evaluate hook retrained it with another seed


def test_the_leaky_run_is_caught_by_the_probe_despite_its_design(report):
    files, runs, _ = report
    leaky = runs["leaky"]
    assert leaky["probe"] == "uses_leak"
    assert leaky["divergence"] == "design_excludes_code_uses"
    assert float(leaky["claimed_f1"]) == pytest.approx(0.99)
    assert "drop moderator_flagged while the code uses it" in files.markdown.read_text()


def test_the_mute_model_is_uncaptured_not_zero(report):
    files, runs, models = report
    assert runs["mute"]["grading"] == "uncaptured"
    assert models["mute"]["f1"] == "uncaptured" and models["mute"]["graded"] == "0"
    assert float(models["mute"]["capture_rate"]) == 0.0
    assert "mute: every answer was uncaptured" in files.markdown.read_text()
