"""Records read and written by one library (issue 33): a missing key is named by its path, a value of the wrong type
is refused (it was read as it came, or silently dropped), keys the record does not know are ignored, old records
are still upgraded on read, and no record spells its JSON field by field."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from bakeoff.batchfolder.records import read_typed
from bakeoff.records import DamagedRecord, LoopEnd, RunRecord, StageRecord
from bakeoff.scaffolds.agent.records import StepRecord

DATA = Path(__file__).parent / "data"
RECORDS = Path(__file__).parent.parent / "bakeoff" / "records"
CURRENT_RUN = DATA / "batch_before_records" / "batch" / "runs"


def _stage() -> dict:
    """A stage record of the current schema with a check, commands and a repair turn (the old run's repair)."""
    record = read_typed(DATA / "records_v1" / "stages" / "4-repair.json", StageRecord.from_json)
    return json.loads(json.dumps(record.to_json()))


@pytest.mark.parametrize("change, says", [
    (lambda d: d["turns"][0]["prompt"]["messages"][0].pop("role"), "missing key(s) turns[0].prompt.messages[0].role"),
    (lambda d: d["turns"][0]["before"].pop("status"), "missing key(s) turns[0].before.status"),
    (lambda d: d["timings"].update(wall_s="3.5"), "'timings.wall_s' is not a number (got str) (timings.wall_s)"),
    (lambda d: d["check"]["headline"].update(value="0.7"), "'check.headline.value' is not a number or null"),
    (lambda d: d["turns"][0]["completion"].update(prompt_tokens=True),
     "'turns[0].completion.prompt_tokens' is not a whole number"),
    (lambda d: d["turns"][0].update(effect="improved"),
     "'turns[0].effect' is 'improved', not one of rescued, regressed, unchanged (repair_turn.effect)"),
    (lambda d: d["commit"].update(skipped=[]), "'commit.skipped' is not an object"),
])
def test_a_missing_key_or_a_wrong_type_is_named_by_its_path(change, says):
    data = _stage()
    change(data)
    with pytest.raises(DamagedRecord) as raised:
        StageRecord.from_json(data)
    assert says in str(raised.value)


def test_a_key_the_record_does_not_know_is_ignored_at_every_depth():
    data = _stage()
    data["from_a_newer_bakeoff"] = 1
    data["turns"][0]["before"]["also_newer"] = {"x": [1]}
    data["commit"]["skipped"]["newer"] = True
    assert StageRecord.from_json(data) == StageRecord.from_json(_stage())


def test_an_old_record_is_upgraded_on_read_through_the_door():
    """A first-schema run record read from its file is the current one (its f1 now the headline)."""
    path = DATA / "records_v1" / "run.json"
    old = json.loads(path.read_text(encoding="utf-8"))
    assert old["schema"] == "bakeoff.run/1" and "f1" in old["outcome"]
    run = read_typed(path, RunRecord.from_json)
    assert run.outcome.headline is not None and run.outcome.headline.name == "f1"
    assert run.outcome.headline_value == old["outcome"]["f1"] and run.to_json()["schema"] == "bakeoff.run/2"


def test_a_step_record_survives_json_and_names_a_bad_loop_end():
    stage = _stage()
    turn = stage["turns"][0]
    step = {"schema": "bakeoff.step/1", "run_id": "m-r01", "step": 2, "prompt": turn["prompt"],
            "completion": turn["completion"], "capture": turn["capture"], "results": [
                {"tool": "run", "ok": True, "shown": "ok", "command": stage["commands"][0], "cpu_s": 0.5}],
            "files_changed": ["train.py"], "commit": stage["commit"], "timings": stage["timings"],
            "usage": {"steps": 2, "tokens": 10}, "ended_by": "submit"}
    record = StepRecord.from_json(step)
    assert record.submitted and record.ended_by is LoopEnd.SUBMIT and record.results[0].command is not None
    assert StepRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    with pytest.raises(DamagedRecord, match=r"'ended_by' is 'gave_up', not one of submit, steps"):
        StepRecord.from_json({**step, "ended_by": "gave_up"})


def _methods(name: str) -> list[str]:
    found = []
    for path in sorted(RECORDS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found += [f"{path.stem}.{node.name}" for item in node.body
                          if isinstance(item, ast.FunctionDef) and item.name == name]
    return found


def test_no_record_spells_its_json_field_by_field():
    """The library reads every record; the only hand-written writers are of JSON that is not the fields
    (a commit's skipped object, a stage record's key order and its empty resources, the plan's hashed form)."""
    assert _methods("from_json") == ["codec.JsonRecord", "codec.TopRecord", "plan.Plan"]
    assert _methods("to_json") == ["codec.JsonRecord", "codec.TopRecord", "parts.Commit", "plan.Plan",
                                   "stage.StageRecord"]


@pytest.mark.parametrize("note, says", [
    ('{"pid": 41, "host": "h", "started_at": "t"}', "pid 41 on host h, running since t"),
    ('{"host": "h"}', "another process (it has not said which yet)"),
    ("[1, 2]", "another process (it has not said which yet)"),
    ("{" * 5000, "another process (it has not said which yet)")])
def test_the_lock_note_says_who_holds_the_batch_or_that_it_has_not_said(tmp_path, note, says):
    import fcntl

    from bakeoff.batchfolder.lock import BatchLocked, batch_lock

    (tmp_path / "batch.lock").write_text(note, encoding="utf-8")
    with open(tmp_path / "batch.lock", encoding="utf-8") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(BatchLocked, match=says.replace("(", r"\(").replace(")", r"\)")), batch_lock(tmp_path):
            pass
    with batch_lock(tmp_path):  # released: this process writes its own note
        assert json.loads((tmp_path / "batch.lock").read_text(encoding="utf-8"))["pid"] > 0
