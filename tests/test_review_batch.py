"""A review is a batch folder: it resumes by the batch's rules, its cost reaches the report, and
`bakeoff leaderboard` pools review folders of the same reviewer across nights (issue 33)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from analysis_factory import FakeRun, write_batch
from click.testing import CliRunner
from test_review_scripted import ITEMS, always_problem, perfect, write_script

from bakeoff.cli import main
from bakeoff.review import runner
from bakeoff.tasks import report_batch as write_report

# Three sound and three flawed items (the first six of the file may share one verdict, and J then has no value).
SUBSET = [item for item in ITEMS if not item.is_problem][:3] + [item for item in ITEMS if item.is_problem][:3]


@pytest.fixture
def items(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(item.to_dict()) + "\n" for item in SUBSET))  # a self-contained file
    return path


def review(items, script, out, samples=1):
    args = ["review", "--model", f"scripted:{script}", "--items", str(items), "--samples", str(samples), "--json",
            "--out", str(out)]
    return CliRunner().invoke(main, args)


def events(out):
    return [json.loads(line)["event"] for line in (out / "events.jsonl").read_text().splitlines()]


def test_a_review_batch_resumes_in_its_own_folder_without_asking_a_finished_item_again(items, tmp_path, monkeypatch):
    script = write_script(tmp_path / "s.jsonl", perfect, items=SUBSET)
    asked: list[str] = []
    real_ask = runner.ask

    def ask_or_stop(backend, item, sample, *args, **kwargs):
        if stop["after"] is not None and len(asked) >= stop["after"]:
            raise KeyboardInterrupt
        asked.append(item.id)
        return real_ask(backend, item, sample, *args, **kwargs)

    stop: dict = {"after": 4}
    monkeypatch.setattr(runner, "ask", ask_or_stop)
    out = tmp_path / "night" / "review"
    assert review(items, script, out).exit_code != 0
    first = list(asked)
    assert len((out / "answers.jsonl").read_text().splitlines()) == 4  # in the batch folder itself
    stop["after"] = None
    assert review(items, script, out).exit_code == 0
    again = asked[len(first):]
    assert not set(first) & set(again) and sorted(first + again) == sorted(item.id for item in SUBSET)
    assert events(out) == ["review_started", "review_started", "review_finished"]


def test_a_reviews_cost_appears_in_the_batch_report(items, tmp_path):
    batch = write_batch(tmp_path / "batch", [FakeRun("m", 1)])
    script = write_script(tmp_path / "s.jsonl", perfect, items=SUBSET)
    done = review(items, script, batch / "review" / "m")
    assert done.exit_code == 0, done.output
    answers = [json.loads(line) for line in (batch / "review" / "m" / "answers.jsonl").read_text().splitlines()]
    files = write_report(batch)
    with open(files.folder / "tables" / "claim_review_cost.csv", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["source"], row["answers"]) == ("review/m", str(len(SUBSET)))
    tokens_in = sum(a["prompt_tokens"] for a in answers) / len(answers)
    assert float(row["tokens_in_per_answer"]) == pytest.approx(tokens_in, abs=0.05) and tokens_in > 0
    assert row["wall_s"] != ""
    assert "Claim review: what it cost" in files.markdown.read_text()


def test_the_leaderboard_pools_two_review_batches_of_one_reviewer(items, tmp_path):
    good = write_script(tmp_path / "good.jsonl", perfect, items=SUBSET)
    naive = write_script(tmp_path / "naive.jsonl", always_problem, items=SUBSET)
    nights = tmp_path / "nights"
    for name, script in (("monday", good), ("tuesday", good), ("naive", naive)):
        assert review(items, script, nights / name).exit_code == 0
    board = CliRunner().invoke(main, ["leaderboard", str(nights / "monday"), str(nights / "tuesday"),
                                      str(nights / "naive"), "--out", str(tmp_path / "board")])
    assert board.exit_code == 0, board.output
    with open(tmp_path / "board" / "tables" / "leaderboard-claim_review.csv", newline="") as handle:
        rows = {row["model"]: row for row in csv.DictReader(handle)}
    pooled = rows[f"scripted:{good}"]
    assert (pooled["rank"], pooled["reviews"], pooled["answers"]) == ("1", "2", str(2 * len(SUBSET)))
    assert float(pooled["youden_j"]) == 1.0 and float(rows[f"scripted:{naive}"]["youden_j"]) == 0.0
    assert "reviews pooled by reviewer" in (tmp_path / "board" / "leaderboard.md").read_text()


def test_bakeoff_report_reports_a_review_folder_on_its_own_with_its_cost(items, tmp_path):
    out = tmp_path / "review"
    assert review(items, write_script(tmp_path / "s.jsonl", perfect, items=SUBSET), out).exit_code == 0
    done = CliRunner().invoke(main, ["report", str(out)])
    assert done.exit_code == 0, done.output
    markdown = (out / "report" / "report.md").read_text()
    assert "Claim-versus-code review" in markdown and "Claim review: what it cost" in markdown
    assert (out / "report" / "tables" / "claim_review_cost.csv").is_file()
    assert "every answer beside the truth" in (out / "report" / "report.html").read_text()
    assert (out / "report" / "transcripts" / "review.html").is_file()


OLD_REVIEW = Path(__file__).parent / "data" / "batch_before_records" / "batch" / "review" / "cues"


def test_an_old_review_folder_is_read_by_the_leaderboard_and_the_report(tmp_path):
    board = CliRunner().invoke(main, ["leaderboard", str(OLD_REVIEW), "--out", str(tmp_path / "board")])
    assert board.exit_code == 0, board.output
    with open(tmp_path / "board" / "tables" / "leaderboard-claim_review.csv", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["model"], row["answers"]) == ("baseline:cues", "98")
    assert float(row["youden_j"]) == pytest.approx(0.16326530612244894)  # its review.json's, recomputed
    report = CliRunner().invoke(main, ["report", str(OLD_REVIEW), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    assert not (tmp_path / "report" / "tables" / "claim_review_cost.csv").exists()  # it recorded none


def test_a_damaged_review_json_is_refused_by_name(tmp_path):
    out = tmp_path / "review"
    out.mkdir()
    (out / "review.json").write_text(json.dumps({"kind": "claim_review", "model": "m", "metrics": {"accuracy": "high"}}))
    done = CliRunner().invoke(main, ["report", str(out)])
    assert done.exit_code != 0 and "ReviewRecordDamaged" in done.stderr and "accuracy" in done.stderr
    assert "Traceback" not in done.output


def test_a_second_writer_on_a_review_folder_is_refused_by_the_batch_lock(items, tmp_path):
    from bakeoff.batchfolder.lock import batch_lock

    out = tmp_path / "review"
    out.mkdir()
    with batch_lock(out):  # another `bakeoff review` working on the folder
        done = review(items, write_script(tmp_path / "s.jsonl", perfect, items=SUBSET), out)
    assert done.exit_code == 3 and "error: BatchLocked:" in done.stderr, done.output
    assert not (out / "answers.jsonl").exists()
