"""An interrupted `bakeoff review` keeps its answers in its folder (a batch folder: its journal, its lock) and a
restart asks only the missing ones."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_review_scripted import ITEMS, perfect, write_script

from bakeoff.cli import main
from bakeoff.review import runner

SUBSET = ITEMS[:6]


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """A 6-item subset, a scripted perfect reviewer for 2 samples, and a counter of questions asked."""
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item.to_dict()) + "\n" for item in SUBSET))  # a self-contained file
    script = write_script(tmp_path / "s.jsonl", perfect, items=SUBSET, samples=2)
    calls = {"n": 0, "interrupt_after": None}
    real_ask = runner.ask

    def counting_ask(*args, **kwargs):
        if calls["interrupt_after"] is not None and calls["n"] >= calls["interrupt_after"]:
            raise KeyboardInterrupt  # as Ctrl-C would, in the middle of the run
        calls["n"] += 1
        return real_ask(*args, **kwargs)

    monkeypatch.setattr(runner, "ask", counting_ask)
    return items, script, calls


def review(setup, out, *extra):
    items, script, _ = setup
    args = ["review", "--model", f"scripted:{script}", "--items", str(items), "--samples", "2", "--json",
            "--out", str(out), *extra]
    return CliRunner().invoke(main, args)


def results(out):
    summary = json.loads((out / "review.json").read_text())
    return summary["metrics"], summary["settings"], (out / "answers.jsonl").read_text()


def test_an_uninterrupted_review_is_a_batch_folder_with_its_journal(setup, tmp_path):
    result = review(setup, tmp_path / "whole")
    assert result.exit_code == 0, result.output
    assert setup[2]["n"] == 2 * len(SUBSET)
    assert {"answers.jsonl", "review.json", "events.jsonl", "batch.lock", "resume.json"} <= {
        p.name for p in (tmp_path / "whole").iterdir()}
    events = [json.loads(line)["event"] for line in (tmp_path / "whole" / "events.jsonl").read_text().splitlines()]
    assert events == ["review_started", "review_finished"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no hidden partial folder


def test_an_interrupted_review_resumes_to_the_same_results_asking_only_the_missing_answers(setup, tmp_path):
    calls = setup[2]
    assert review(setup, tmp_path / "whole").exit_code == 0
    calls["n"] = 0

    out = tmp_path / "resumed"
    calls["interrupt_after"] = 5
    stopped = review(setup, out)
    assert stopped.exit_code != 0
    assert not (out / "review.json").exists()  # a partial state never looks like results
    assert len((out / "answers.jsonl").read_text().splitlines()) == 5

    calls["n"], calls["interrupt_after"] = 0, None
    resumed = review(setup, out)
    assert resumed.exit_code == 0, resumed.output
    assert calls["n"] == 2 * len(SUBSET) - 5  # only the missing answers were asked
    assert json.loads(resumed.stdout) == results(tmp_path / "whole")[0]
    assert results(out) == results(tmp_path / "whole")


def test_a_line_cut_by_a_crash_is_asked_again(setup, tmp_path):
    calls = setup[2]
    out = tmp_path / "out"
    calls["interrupt_after"] = 3
    review(setup, out)
    answers = out / "answers.jsonl"
    answers.write_text(answers.read_text() + '{"item_id": "half a li')  # power lost mid-write
    calls["n"], calls["interrupt_after"] = 0, None
    assert review(setup, out).exit_code == 0
    assert calls["n"] == 2 * len(SUBSET) - 3
    assert len((out / "answers.jsonl").read_text().splitlines()) == 2 * len(SUBSET)


@pytest.mark.parametrize("changed", [["--samples", "1"], ["--temperature", "0.5"]])
def test_a_restart_with_other_settings_is_refused_and_keeps_the_answers(setup, tmp_path, changed):
    calls = setup[2]
    out = tmp_path / "out"
    calls["interrupt_after"] = 4
    review(setup, out)
    kept = (out / "answers.jsonl").read_text()
    calls["n"], calls["interrupt_after"] = 0, None
    items, script, _ = setup
    args = ["review", "--model", f"scripted:{script}", "--items", str(items), "--samples", "2",
            "--out", str(out), *changed]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2, refused.output
    assert "error: ReviewResumeMismatch:" in refused.stderr
    assert calls["n"] == 0 and not (out / "review.json").exists()
    assert (out / "answers.jsonl").read_text() == kept
    assert review(setup, out).exit_code == 0  # the original settings still continue it
    assert calls["n"] == 2 * len(SUBSET) - 4


def test_a_finished_folder_is_still_refused(setup, tmp_path):
    out = tmp_path / "out"
    assert review(setup, out).exit_code == 0
    again = review(setup, out)
    assert again.exit_code == 2 and "error: ReviewOutputExists:" in again.stderr


def test_a_damaged_answer_line_is_refused_by_name_and_nothing_is_asked(setup, tmp_path):
    calls = setup[2]
    out = tmp_path / "out"
    calls["interrupt_after"] = 3
    review(setup, out)
    lines = (out / "answers.jsonl").read_text().splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), "sample": "second"})  # a whole line, not an answer
    (out / "answers.jsonl").write_text("\n".join(lines) + "\n")
    calls["n"], calls["interrupt_after"] = 0, None
    refused = review(setup, out)
    assert refused.exit_code == 2, refused.output
    assert "error: ReviewRecordDamaged:" in refused.stderr and "answers.jsonl line 2" in refused.stderr
    assert "sample" in refused.stderr and calls["n"] == 0


def test_a_partial_folder_of_the_old_layout_is_refused_by_name(setup, tmp_path):
    out = tmp_path / "out"
    old = tmp_path / ".out.partial"
    old.mkdir()
    (old / "answers.jsonl").write_text("")
    refused = review(setup, out)
    assert refused.exit_code == 2 and "error: ReviewError:" in refused.stderr
    assert ".out.partial" in refused.stderr and "older bakeoff" in refused.stderr
    assert setup[2]["n"] == 0
