"""The claim-review section: review results kept in the batch folder become report tables."""

import csv
import json

from analysis_factory import FakeRun, write_batch

from bakeoff.tasks import report_batch as write_report


def _review(folder, model, accuracy, baseline=None, items_sha256="abc"):
    folder.mkdir(parents=True)
    metrics = {"items": 4, "answers": 4, "captured": 3, "uncaptured": 1, "unusable": 0, "accuracy": accuracy,
               "problem_recall": 0.5, "ok_specificity": 1.0, "youden_j": 0.5, "pair_accuracy": 0.5, "localization": None,
               "brier": 0.21, "per_family": {"data_leakage": {"answers": 2, "recall": 0.5, "localization": None,
                                                              "specificity": 1.0, "youden_j": 0.5}}}
    summary = {"kind": "claim_review", "schema": 1, "model": model, "metrics": metrics, "items_sha256": items_sha256}
    if baseline is not None:
        summary["baseline_cues"] = {"model": "baseline:cues", "label": "reading without understanding",
                                    "metrics": dict(metrics, accuracy=baseline, youden_j=0.1)}
    (folder / "review.json").write_text(json.dumps(summary))


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
    assert row["youden_j"] == "0.5"
    families = (files.folder / "tables" / "claim_review_families.csv").read_text()
    assert "scripted:m,data_leakage,2,0.5,1.0,0.5," in families
    assert "Claim-versus-code review" in files.html.read_text()


def test_no_review_results_no_review_section(tmp_path):
    files = write_report(write_batch(tmp_path / "batch", [FakeRun("m", 1)]))
    assert not (files.folder / "tables" / "claim_review.csv").exists()
    assert "Claim-versus-code review" not in files.markdown.read_text()


def test_the_cues_baseline_row_stands_beside_the_models_once_per_item_set(tmp_path):
    batch = write_batch(tmp_path / "batch", [FakeRun("m", 1)])
    _review(batch / "review" / "a", "scripted:a", 0.75, baseline=0.5)
    _review(batch / "review" / "b", "scripted:b", 0.8, baseline=0.5)  # same items: one floor row
    _review(batch / "review" / "c", "scripted:c", 0.9, baseline=0.55, items_sha256="other")
    files = write_report(batch)
    with open(files.folder / "tables" / "claim_review.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    floors = [row for row in rows if row["model"] == "baseline:cues (reading without understanding)"]
    assert sorted(row["accuracy"] for row in floors) == ["0.5", "0.55"]
    assert len(rows) == 5
    assert "reading without understanding" in files.html.read_text()
