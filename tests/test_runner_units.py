"""The runner's small parts: ladder effects, context budget cuts, task settings, git repo, atomic records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bakeoff.models.base import Message
from bakeoff.records import LadderCheck, LadderStatus, Requirement, Rung, turn_effect
from bakeoff.runner.conversation import continued_conversation, shared_system_message, shorten, stage_conversation
from bakeoff.taskapi.spec import TaskSpecError, load_task
from bakeoff.tasks.spam_classifier.words import HEADLINE


def check(rung, f1=None):
    return LadderCheck(rung=Rung(rung), status=LadderStatus.SCORED if rung == 5 else LadderStatus.CRASHED,
                       failed_step=None, headline=HEADLINE.of(f1) if f1 is not None else None)


@pytest.mark.parametrize(
    "before, after, effect",
    [
        (check(1), check(5, 0.7), "rescued"),
        (check(5, 0.7), check(3), "regressed"),
        (check(5, 0.80), check(5, 0.78), "regressed"),  # F1 fell by more than 0.01
        (check(5, 0.80), check(5, 0.795), "unchanged"),
        (check(5, 0.70), check(5, 0.75), "rescued"),
        (check(2), check(2), "unchanged"),
    ],
)
def test_turn_effects(before, after, effect):
    assert turn_effect(before, after) == effect


def test_ladder_check_round_trips_through_its_record():
    requirement = Requirement(1, "pandas", "pandas", "provided_by_image", None)
    original = LadderCheck(Rung.SCORED, LadderStatus.SCORED, None, HEADLINE.of(0.8), visible_ok=True, metrics={"f1": 0.8},
                           requirements=(requirement,), visible_output="EXPECTED_F1: 0.8")
    assert LadderCheck.from_json(json.loads(json.dumps(original.to_json()))) == original


def test_shorten_keeps_head_and_tail():
    text = "HEAD" + "x" * 5000 + "Traceback: the cause"
    cut = shorten(text, 500)
    assert len(cut) <= 500 and cut.startswith("HEAD") and cut.endswith("the cause")
    assert shorten("short", 500) == "short"


def test_stage_prompt_is_cut_to_budget_and_the_cut_recorded():
    task = load_task("spam_classifier")
    shared = shared_system_message(task.system, task.statement, "id,subject\n1,hello")
    exploration = "line of output\n" * 2000
    conversation = stage_conversation("decide#1", shared, task.prompts["decide"], {"exploration_output": exploration}, 6000)
    assert conversation.chars <= 6000
    assert conversation.messages[0] == shared and conversation.shared_prefix_chars == len(shared.content)
    (cut,) = conversation.cuts
    assert cut.part == "exploration_output" and cut.original_chars == len(exploration)
    assert cut.kept_chars < len(exploration) and conversation.chars >= 5900  # cut to fit, not cut more than needed
    roomy = stage_conversation("decide#1", shared, task.prompts["decide"], {"exploration_output": "tiny"}, 60000)
    assert roomy.cuts == () and "tiny" in roomy.messages[1].content


def test_every_stage_starts_with_the_same_shared_message():
    task = load_task("spam_classifier")
    shared = shared_system_message(task.system, task.statement, "excerpt")
    first = stage_conversation("explore#1", shared, task.prompts["explore"], {}, 20000)
    repair = continued_conversation("implement#2", first.messages, "answer", task.prompts["repair"], {"failure": "boom"}, 20000)
    assert repair.messages[0] == first.messages[0]
    assert repair.messages[2] == Message("assistant", "answer") and "boom" in repair.messages[3].content


def test_task_statement_says_messages_are_scored_on_arrival():
    task = load_task("spam_classifier")
    assert "before any person has looked at it" in task.statement
    assert "EXPECTED_F1" in task.system


def test_task_settings_overrides_and_errors():
    task = load_task("spam_classifier", {"repair_turns": 3, "max_tokens": {"docs": 50}})
    assert task.settings.repair_turns == 3
    assert task.settings.max_tokens_for("docs") == 50 and task.settings.max_tokens_for("implement") == 4096
    with pytest.raises(TaskSpecError, match="unknown task setting"):
        load_task("spam_classifier", {"repair_turn": 3})
    with pytest.raises(TaskSpecError, match="no task named"):
        load_task("no_such_task")
    for bad in ({"repair_turns": "2"}, {"always_repair": 1}, {"model_timeout_s": 0}, {"max_tokens": {"docs": -5}},
                {"timeouts_s": 30}):
        with pytest.raises(TaskSpecError, match="bad task setting"):
            load_task("spam_classifier", bad)
    assert load_task("spam_classifier", {"repair_turns": 0, "timeouts_s": {"train": 1.5}}).settings.repair_turns == 0


def test_run_repo_commits_every_stage_and_resets_unfinished_work(tmp_path):
    from bakeoff.runner.workspace import RunRepo

    excerpt = tmp_path / "excerpt.txt"
    excerpt.write_text("id,label\n")
    repo = RunRepo.create(tmp_path / "repo", load_task("spam_classifier").template_dir, excerpt)
    assert (repo.path / ".gitignore").is_file() and (repo.path / "data" / "excerpt.txt").is_file()
    repo.write_file("explore.py", "print(1)\n")
    first = repo.commit("explore")
    empty = repo.commit("decide")  # nothing changed: still one commit for the stage
    assert first.sha != empty.sha
    repo.write_file("train.py", "half written")
    (repo.path / "model.pkl").write_bytes(b"partial")
    repo.reset_to(empty.sha)
    assert not (repo.path / "train.py").exists() and not (repo.path / "model.pkl").exists()
    assert (repo.path / "data" / "excerpt.txt").is_file()  # data/ survives a reset
    assert repo.commit_messages() == ["template", "explore", "decide"]
    with pytest.raises(ValueError):
        repo.write_file("../escape.py", "x")


def test_atomic_write_leaves_no_temporary_files(tmp_path):
    from bakeoff.batchfolder.files import WriteCounter, read_json_object, write_json

    counter = WriteCounter()
    write_json(tmp_path / "r.json", {"a": Path("/x"), "b": (1, 2)}, counter)
    write_json(tmp_path / "r.json", {"a": 2}, counter)
    assert read_json_object(tmp_path / "r.json") == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    assert counter.count == 2


def test_kill_hook_reads_its_environment_variable():
    from bakeoff.batchfolder.files import WriteCounter

    assert WriteCounter.from_environment({}).kill_after is None
    assert WriteCounter.from_environment({"BAKEOFF_KILL_AFTER_WRITES": "4"}).kill_after == 4


def test_repair_conversation_shortens_the_previous_answer_to_fit():
    task = load_task("spam_classifier")
    shared = shared_system_message(task.system, task.statement, "excerpt")
    first = stage_conversation("implement#1", shared, task.prompts["implement"], {"design": "d"}, 20000)
    answer = "code line\n" * 2000
    traceback = "Traceback (most recent call last):\nValueError: boom\n"
    budget = first.chars + 4000
    repair = continued_conversation("implement#2", first.messages, answer, task.prompts["repair"], {"failure": traceback}, budget)
    assert repair.chars <= budget
    assert repair.messages[:2] == first.messages  # the processed prefix is untouched
    assert "ValueError: boom" in repair.messages[3].content  # the traceback is kept whole
    assert [c.part for c in repair.cuts] == ["previous_answer"]


def test_progress_writes_one_line_per_event_when_not_on_a_terminal():
    import io

    from rich.console import Console

    from bakeoff.records import RunRecord
    from bakeoff.runner.plan import ModelEntry, RunSlot
    from bakeoff.runner.progress import LiveProgress

    buffer = io.StringIO()
    slot = RunSlot(ModelEntry("m", "default"), 1, 1)
    from bakeoff.runner.batch import BatchStart

    with LiveProgress(Console(file=buffer, width=100), stamp=lambda: "2026-12-06T01:02:03Z") as progress:
        progress.batch_started(BatchStart((slot,)))
        progress.run_started(slot)
        progress.stage_started("m-r01", "repair")
        progress.run_finished(slot, RunRecord.from_json({
            "schema": "bakeoff.run/2", "run_id": "m-r01", "status": "finished", "timings": {},
            "outcome": {"status": "crashed", "rung": 1, "crash_class": "type_error"}}))
    lines = [line.removeprefix("2026-12-06T01:02:03Z ") for line in buffer.getvalue().splitlines()]
    assert lines[1:4] == ["m-r01: started (1 run left)", "m-r01: repair", "m-r01: crashed (type_error)"]
    assert lines[-1].startswith("bakeoff batch: 1/1 runs done")


def test_run_repo_never_follows_links_planted_by_sandboxed_code(tmp_path):
    from bakeoff.runner.workspace import RunRepo

    secret = tmp_path / "holdout_answers.csv"
    secret.write_text("id,label\n1,1\n")
    repo = RunRepo.create(tmp_path / "repo", load_task("spam_classifier").template_dir, None)
    (repo.path / "DESIGN.md").symlink_to(secret)
    assert repo.read_file("DESIGN.md") is None  # the answer key never reaches a prompt
    repo.write_file("DESIGN.md", "my design")
    assert secret.read_text() == "id,label\n1,1\n" and not (repo.path / "DESIGN.md").is_symlink()
    (repo.path / "lib").symlink_to(tmp_path)
    with pytest.raises(ValueError, match="symbolic link"):
        repo.write_file("lib/evil.py", "x")
    scratch = repo.path / ".bakeoff"
    scratch.rmdir() if scratch.is_dir() else None
    scratch.symlink_to(tmp_path)
    assert repo.scratch().is_dir() and not scratch.is_symlink()


def test_journal_line_after_one_cut_by_a_kill_is_still_read(tmp_path):
    from bakeoff.batchfolder.files import Journal

    journal = Journal(tmp_path / "events.jsonl")
    journal.append("batch_started", runs=2)
    with open(journal.path, "a", encoding="utf-8") as handle:
        handle.write('{"at": "2026-01-01", "event": "stage_st')  # the kill came mid-write
    journal.append("stage_started", run_id="m-r01", stage="explore")
    assert [entry["event"] for entry in journal.entries()] == ["batch_started", "stage_started"]


@pytest.mark.parametrize(
    "path, kept",
    [("train.py", True), ("src/features.py", True), ("./predict.py", True), ("data/x.py", False),
     ("src/../data/x.py", False), ("src/../.bakeoff/seed/sitecustomize.py", False), ("a/../.git/hooks.py", False),
     ("../outside.py", False), ("/etc/x.py", False)],
)
def test_model_files_never_land_in_data_scratch_or_git(path, kept):
    from bakeoff.runner.modelcall import _is_submission_path

    assert _is_submission_path(path) is kept


def test_holdout_predictions_are_kept_only_from_a_regular_file_in_the_workspace(tmp_path):
    from bakeoff.taskapi.workspace import keep_output as _keep_predictions
    from bakeoff.tasks.spam_classifier.check import HOLDOUT_OUTPUT

    workspace, outside, kept = tmp_path / "repo", tmp_path / "outside", tmp_path / "run" / "predictions" / "implement.csv"
    outside.mkdir()
    (outside / "holdout_predictions.csv").write_text("host file")
    workspace.mkdir()
    (workspace / ".bakeoff").symlink_to(outside)  # swapped in by sandboxed code
    _keep_predictions(workspace, HOLDOUT_OUTPUT, kept)
    assert not kept.exists() and (outside / "holdout_predictions.csv").read_text() == "host file"
    (workspace / ".bakeoff").unlink()
    (workspace / ".bakeoff").mkdir()
    (workspace / HOLDOUT_OUTPUT).write_text("id,label\n1,0\n")
    _keep_predictions(workspace, HOLDOUT_OUTPUT, kept)
    assert kept.read_text() == "id,label\n1,0\n" and not (workspace / HOLDOUT_OUTPUT).exists()
