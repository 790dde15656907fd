"""The claim-review section: review results kept in the batch folder become report tables."""

import csv
import json

from analysis_factory import FakeRun, write_batch
from bakeoff.report.build import write_report


def _review(folder, model, accuracy):
    folder.mkdir(parents=True)
    metrics = {"items": 4, "answers": 4, "captured": 3, "uncaptured": 1, "unusable": 0, "accuracy": accuracy,
               "problem_recall": 0.5, "ok_specificity": 1.0, "pair_accuracy": 0.5, "localization": None,
               "brier": 0.21, "per_family": {"data_leakage": {"answers": 2, "recall": 0.5, "localization": None}}}
    (folder / "review.json").write_text(json.dumps({"kind": "claim_review", "schema": 1, "model": model, "metrics": metrics}))


def test_review_results_in_the_batch_become_tables(tmp_path):
    batch = write_batch(tmp_path / "batch", [FakeRun("m", 1)])
    _review(batch / "review" / "m", "scripted:m", 0.75)
    (batch / "review" / "stray").mkdir()
    (batch / "review" / "stray" / "review.json").write_text(json.dumps({"kind": "something_else"}))
    files = write_report(batch)
    with open(files.folder / "tables" / "claim_review.csv", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["model"], row["source"], row["accuracy"], row["uncaptured"]) == ("scripted:m", "review/m", "0.75", "1")
    assert row["localization"] == ""  # nothing to compute stays blank, never zero
    families = (files.folder / "tables" / "claim_review_families.csv").read_text()
    assert "scripted:m,data_leakage,2,0.5," in families
    assert "Claim-versus-code review" in files.html.read_text()


def test_no_review_results_no_review_section(tmp_path):
    files = write_report(write_batch(tmp_path / "batch", [FakeRun("m", 1)]))
    assert not (files.folder / "tables" / "claim_review.csv").exists()
    assert "Claim-versus-code review" not in files.markdown.read_text()
