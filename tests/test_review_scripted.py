"""`bakeoff review` end to end through the scripted backend (a real backend replaying a JSONL file)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.models.registry import open_backend
from bakeoff.review.items import load_items
from bakeoff.review.output import read_summary, write_results
from bakeoff.review.prompt import load_template
from bakeoff.review.runner import run_review
from bakeoff.review.settings import ReviewSettings

ITEMS = load_items()
JSON_KEYS = ("accuracy", "problem_recall", "ok_specificity", "pair_accuracy", "localization", "brier",
             "captured", "uncaptured", "unusable")


def write_script(path: Path, answer_for, items=ITEMS, samples: int = 1) -> Path:
    with path.open("w") as handle:
        for sample in range(1, samples + 1):
            for item in items:
                handle.write(json.dumps({"key": f"review/{item.id}#{sample}", "text": answer_for(item, sample)}) + "\n")
    return path


def always_problem(item, sample):
    return "VERDICT: PROBLEM\nLINE: 1\nCONFIDENCE: 70\nREASON: data leakage, surely."


def perfect(item, sample):
    if item.is_problem:
        return f"VERDICT: PROBLEM\nLINE: {item.flaw_lines[0]}\nCONFIDENCE: 100\nREASON: {item.explanation}"
    return "VERDICT: OK\nLINE: none\nCONFIDENCE: 100\nREASON: the figure is honest."


def blank(item, sample):
    return ""


def review_with(script: Path, settings: ReviewSettings = ReviewSettings()):
    backend = open_backend(f"scripted:{script}")
    try:
        return run_review(backend, ITEMS, settings, load_template())
    finally:
        backend.close()


def test_a_reviewer_that_always_says_problem_has_full_recall_and_no_specificity(tmp_path):
    m = review_with(write_script(tmp_path / "s.jsonl", always_problem)).metrics
    assert m.problem_recall == 1.0
    assert m.ok_specificity == 0.0
    assert m.accuracy == 0.5 and m.pair_accuracy == 0.0
    assert m.brier == pytest.approx(0.7**2 / 2 + 0.3**2 / 2)  # P(PROBLEM)=0.7 on every item, half of them sound
    assert (m.captured, m.uncaptured, m.unusable) == (len(ITEMS), 0, 0)


def test_a_perfect_reviewer_scores_one_everywhere(tmp_path):
    m = review_with(write_script(tmp_path / "s.jsonl", perfect)).metrics
    assert (m.accuracy, m.problem_recall, m.ok_specificity, m.pair_accuracy, m.localization) == (1, 1, 1, 1, 1)
    assert m.brier == 0.0
    assert all(row.recall == 1.0 for row in m.per_family)


def test_a_reviewer_that_returns_blanks_is_excluded_not_scored(tmp_path):
    m = review_with(write_script(tmp_path / "s.jsonl", blank)).metrics
    assert (m.captured, m.uncaptured, m.unusable) == (0, len(ITEMS), 0)
    assert m.to_dict()["uncaptured_reasons"] == {"empty": len(ITEMS)}
    for name in ("accuracy", "problem_recall", "ok_specificity", "pair_accuracy", "localization", "brier"):
        assert getattr(m, name) is None, name  # not zero: nothing was graded


def test_blank_answers_drop_out_while_the_rest_are_scored(tmp_path):
    def perfect_on_ok_blank_on_problem(item, sample):
        return "" if item.is_problem else perfect(item, sample)

    m = review_with(write_script(tmp_path / "s.jsonl", perfect_on_ok_blank_on_problem)).metrics
    assert m.accuracy == 1.0 and m.ok_specificity == 1.0
    assert m.problem_recall is None and m.pair_accuracy is None
    assert m.uncaptured == sum(item.is_problem for item in ITEMS)


def test_k_samples_use_their_own_keys_and_agreement_is_measured(tmp_path):
    def flip_on_second_sample(item, sample):
        return perfect(item, sample) if sample == 1 or item.is_problem else always_problem(item, sample)

    script = write_script(tmp_path / "s.jsonl", flip_on_second_sample, samples=2)
    result = review_with(script, ReviewSettings(samples=2))
    m = result.metrics
    n_ok = sum(not item.is_problem for item in ITEMS)
    assert m.answers == 2 * len(ITEMS)
    assert m.ok_specificity == 0.5 and m.problem_recall == 1.0
    assert m.agreement == (n_ok * 0.5 + (len(ITEMS) - n_ok) * 1.0) / len(ITEMS)
    assert m.pair_accuracy == 0.5
    assert {a.key for a in result.answers if a.sample == 1} == {f"review/{item.id}#2" for item in ITEMS}


def test_answers_written_by_a_review_replay_to_the_same_metrics(tmp_path):
    script = write_script(tmp_path / "s.jsonl", perfect)
    first = review_with(script)
    out = write_results(tmp_path / "out", first, "items.jsonl", "0" * 64)
    replayed = review_with(out / "answers.jsonl")
    assert replayed.metrics == first.metrics
    assert msgspec.to_builtins(read_summary(out).metrics) == first.metrics.to_dict()
    assert out.stat().st_mode & 0o777 == 0o755  # not the private mode of the staging folder it was assembled in


def invoke(*args):
    return CliRunner().invoke(main, ["review", *args])


def test_the_cli_prints_the_metrics_as_json_and_writes_the_results_folder(tmp_path):
    script = write_script(tmp_path / "s.jsonl", always_problem)
    out = tmp_path / "batch" / "review" / "always-problem"
    result = invoke("--model", f"scripted:{script}", "--json", "--out", str(out))
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    for key in JSON_KEYS:
        assert key in metrics, key
    assert (metrics["problem_recall"], metrics["ok_specificity"], metrics["localization"]) == (1.0, 0.0, 0.0)
    summary = json.loads((out / "review.json").read_text())
    assert (summary["kind"], summary["schema"], summary["model"]) == ("claim_review", 1, f"scripted:{script}")
    assert summary["metrics"] == metrics
    assert summary["settings"]["samples"] == 1 and summary["settings"]["max_tokens"] == 200
    records = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert len(records) == len(ITEMS)
    assert {"item_id", "expected", "verdict", "blamed_line", "confidence", "correct", "capture", "text"} <= set(records[0])
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]  # no staging folder left behind


def test_the_cli_reviews_a_subset_file_and_shows_a_table_without_json(tmp_path):
    subset = tmp_path / "subset.jsonl"
    subset.write_text("".join(json.dumps(item.to_dict()) + "\n" for item in ITEMS[:4]))  # a self-contained file
    script = write_script(tmp_path / "s.jsonl", perfect, items=ITEMS[:4])
    result = invoke("--model", f"scripted:{script}", "--items", str(subset), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "matched-pair accuracy" in result.stdout and "1.000" in result.stdout
    assert json.loads((tmp_path / "out" / "review.json").read_text())["metrics"]["items"] == 4


def test_the_cli_refuses_bad_input_with_a_one_line_error(tmp_path):
    script = write_script(tmp_path / "s.jsonl", perfect)
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "review.json").write_text("{}")
    cases = [
        (["--items", str(tmp_path / "absent.jsonl")], "error: ItemsInvalid: no items file"),
        (["--out", str(taken)], "error: ReviewOutputExists:"),
        (["--samples", "0"], "error: ReviewSettingsInvalid: samples must be at least 1"),
        (["--temperature", "-1"], "error: ReviewSettingsInvalid: temperature"),
    ]
    for extra, message in cases:
        result = invoke("--model", f"scripted:{script}", *extra)
        assert result.exit_code == 2, (extra, result.output)
        assert message in result.stderr, (extra, result.stderr)
        assert "Traceback" not in result.output
    assert (taken / "review.json").read_text() == "{}"  # never overwritten
    missing_model = invoke("--model", f"scripted:{tmp_path / 'nope.jsonl'}", "--out", str(tmp_path / "o2"))
    assert missing_model.exit_code == 2 and "error: ModelFileNotFound" in missing_model.stderr


def test_a_review_written_into_a_batch_appears_in_bakeoff_report(tmp_path):
    import csv

    from analysis_factory import FakeRun, write_batch

    from bakeoff.tasks import report_batch as write_report

    batch = write_batch(tmp_path / "batch", [FakeRun("m", 1)])
    script = write_script(tmp_path / "s.jsonl", always_problem)
    result = invoke("--model", f"scripted:{script}", "--json", "--out", str(batch / "review" / "always-problem"))
    assert result.exit_code == 0, result.output
    files = write_report(batch)
    with open(files.folder / "tables" / "claim_review.csv", newline="") as handle:
        row, floor = list(csv.DictReader(handle))
    assert row["model"] == f"scripted:{script}"
    assert (float(row["problem_recall"]), float(row["ok_specificity"]), float(row["youden_j"])) == (1.0, 0.0, 0.0)
    # The cues reader's row stands beside it, on the same items.
    assert floor["model"] == "baseline:cues (reading without understanding)" and float(floor["accuracy"]) <= 0.62
    assert "Claim-versus-code review" in files.html.read_text()
