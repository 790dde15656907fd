"""Acceptance: the Every Eval Ever export of a batch and a review validates against the schemas the
`every-eval-ever` package ships (with jsonschema, and with the package's own validator), and its
numbers are the report's.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from analysis_factory import FakeRun, write_batch
from export_support import add_scripted_review, tree_digest
from runner_support import bakeoff_cli

LOST = {"calls": 3, "captured": 0, "uncaptured": 3, "unusable": 0}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("export-eee")
    runs = [FakeRun("steady", i, f1=0.70 + 0.05 * i) for i in range(1, 4)]
    runs += [FakeRun("leaky", 1, f1=0.4), FakeRun("leaky", 2, f1=None, rung=1, status="crashed",
                                                  crash_class="module_not_found"),
             FakeRun("leaky", 3, f1=0.5, turns=[(1, None, 5, 0.5, "rescued")])]
    runs += [FakeRun("mute", i, f1=None, rung=0, status="not_checked", implement_attribution="uncaptured",
                     capture=LOST, design=None, probe=None, explore_exit=None) for i in range(1, 3)]
    batch = write_batch(root / "batch", runs)
    add_scripted_review(batch, root)
    before = tree_digest(batch)
    done = bakeoff_cli("export", str(batch), "--format", "eee", "--out", str(root / "eee"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert tree_digest(batch) == before  # the batch folder is left as it was
    files = [Path(line) for line in done.stdout.splitlines()]
    aggregates = {json.loads(p.read_text())["model_info"]["name"]: json.loads(p.read_text()) for p in files
                  if p.suffix == ".json"}
    return batch, root / "eee", files, aggregates


def _schema(name: str) -> dict:
    return json.loads(resources.files("every_eval_ever.schemas").joinpath(name).read_text(encoding="utf-8"))


def _instances(out: Path, aggregate: dict) -> list[dict]:
    if "detailed_evaluation_results" not in aggregate:
        return []
    path = out / aggregate["detailed_evaluation_results"]["file_path"]
    return [json.loads(line) for line in path.read_text().splitlines()]


def _result(aggregate: dict, result_id: str) -> dict | None:
    return next((r for r in aggregate["evaluation_results"] if r["evaluation_result_id"] == result_id), None)


def test_every_record_fits_the_shipped_schemas(exported):
    import jsonschema

    _, out, files, _ = exported
    aggregate_schema, instance_schema = _schema("eval.schema.json"), _schema("instance_level_eval.schema.json")
    assert len(files) == 7  # three models and one review, each an aggregate and its instances (mute has none)
    for path in files:
        if path.suffix == ".json":
            jsonschema.Draft7Validator(aggregate_schema).validate(json.loads(path.read_text()))
        else:
            for line in path.read_text().splitlines():
                jsonschema.Draft7Validator(instance_schema).validate(json.loads(line))


def test_the_package_validator_accepts_the_datastore_layout(exported):
    from every_eval_ever.validator import validate as cli
    from every_eval_ever.validator.validation_core import validate_file

    _, _, files, _ = exported
    for path in files:
        repo_path, repo = cli._local_path_context(path)  # the datastore path and companion files, as its CLI reads them
        report = validate_file(path, repo_path=repo_path, available_files=repo, read_repo_file=repo.read_text,
                               run_semantic_checks=True)
        assert report.valid, (path, report.errors)
        assert not report.warnings, (path, report.warnings)


def test_f1_and_its_bootstrap_interval_are_the_reports(exported):
    from bakeoff.batchfolder.read import read_batch
    from bakeoff.tasks.spam_classifier.report import summarise

    batch, out, _, aggregates = exported
    summary = {m.model: m for m in summarise(read_batch(batch)).models}
    for name in ("steady", "leaky"):
        model, aggregate = summary[name], aggregates[name]
        f1 = _result(aggregate, "f1")["score_details"]
        interval = f1["uncertainty"]["confidence_interval"]
        assert f1["score"] == pytest.approx(model.f1_with_crashes.mean)
        assert (interval["lower"], interval["upper"]) == pytest.approx((model.f1_with_crashes.low, model.f1_with_crashes.high))
        assert interval["confidence_level"] == 0.95 and f1["uncertainty"]["num_samples"] == model.graded
        assert _result(aggregate, "crash_rate")["score_details"]["score"] == pytest.approx(model.crash_rate)
        assert _result(aggregate, "capture_rate")["score_details"]["score"] == pytest.approx(model.capture_rate)
        instances = _instances(out, aggregate)
        assert len(instances) == model.graded == 3
        assert sorted(i["evaluation"]["score"] for i in instances) == pytest.approx(
            sorted(r.f1_or_zero for r in summarise(read_batch(batch)).runs if r.model == name))
    crashed = next(i for i in _instances(out, aggregates["leaky"]) if i["sample_id"] == "spam_classifier/r02")
    assert crashed["evaluation"] == {"score": 0.0, "is_correct": False, "num_turns": crashed["evaluation"]["num_turns"]}
    assert crashed["metadata"]["crash_class"] == "module_not_found"


def test_a_model_that_never_answered_has_no_f1_and_no_instances(exported):
    _, out, _, aggregates = exported
    mute = aggregates["mute"]
    assert _result(mute, "f1") is None and _result(mute, "crash_rate") is None  # never graded: no score, not zero
    assert _result(mute, "capture_rate")["score_details"]["score"] == 0.0
    assert "detailed_evaluation_results" not in mute and mute["source_metadata"]["additional_details"]["uncaptured_runs"] == "2"


def test_the_review_aggregate_carries_the_review_cuts_and_youdens_j(exported):
    batch, out, _, aggregates = exported
    review = aggregates["scripted"]
    metrics = json.loads((batch / "review" / "scripted" / "review.json").read_text())["metrics"]
    for name in ("accuracy", "problem_recall", "ok_specificity", "pair_accuracy"):
        assert _result(review, name)["score_details"]["score"] == pytest.approx(metrics[name])
    j = _result(review, "youden_j")
    assert j["score_details"]["score"] == pytest.approx(metrics["problem_recall"] + metrics["ok_specificity"] - 1)
    assert j["metric_config"]["min_score"] == -1.0
    answers = [json.loads(line) for line in (batch / "review" / "scripted" / "answers.jsonl").read_text().splitlines()]
    instances = {i["sample_id"]: i for i in _instances(out, review)}
    graded = [a for a in answers if a["correct"] is not None]
    assert len(instances) == len(graded) == 3  # the uncaptured answer is never graded
    for answer in graded:
        instance = instances[f"{answer['item_id']}#1"]
        assert instance["evaluation"]["is_correct"] == answer["correct"]
        assert instance["input"]["reference"] == [answer["expected"]] and instance["output"]["raw"] == [answer["text"]]


def test_a_review_folder_exports_on_its_own(exported, tmp_path):
    batch, _, _, aggregates = exported
    done = bakeoff_cli("export", str(batch / "review" / "scripted"), "--format", "eee", "--out", str(tmp_path / "alone"))
    assert done.returncode == 0, done.stderr
    files = [Path(line) for line in done.stdout.splitlines()]
    assert [p.suffix for p in files] == [".json", ".jsonl"]
    alone = json.loads(files[0].read_text())
    assert alone["evaluation_results"] == aggregates["scripted"]["evaluation_results"]
