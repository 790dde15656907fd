"""What the core asks a scaffold instead of naming it (issue 33): its kind of interaction for Every Eval Ever,
its loop stage's word for the report, and its own stage names, which the records read without knowing them.
Each test failed on the code before: the scaffolds declared no interaction, the loop table was named in the
report, and a stage record's stage had to be one of the records' own enum values."""

from __future__ import annotations

from pathlib import Path

import pytest

import durable
from bakeoff.batchfolder.read import read_run
from bakeoff.records import Attribution, Commit, DamagedRecord, StageRecord, Timings
from bakeoff.report.scaffolds import loop_stage
from bakeoff.runner.plan import plan_from_mapping
from bakeoff.scaffolds.registry import scaffold_names, scaffold_plugin
from bakeoff.tasks.registry import DEFAULT_TASK, task_names


def test_every_scaffold_declares_its_interaction_for_every_eval_ever():
    for name in scaffold_names():
        assert isinstance(scaffold_plugin(name).interaction, str) and scaffold_plugin(name).interaction, name


def test_the_loop_word_is_the_scaffolds_step_stage():
    assert {name: loop_stage(name) for name in scaffold_names()} == {
        name: scaffold_plugin(name).step_stage for name in scaffold_names()}
    assert loop_stage("no_such_scaffold") is None


def _stage(name: str) -> dict:
    record = StageRecord("m-r01", name, 1, Attribution.OK, Commit("", "", ""), Timings("", ""))
    return record.to_json()


def test_a_stage_a_scaffold_declares_reads_and_a_name_that_is_no_stage_name_is_damaged():
    for name in ("agent", "loop", "explore"):
        assert StageRecord.from_json(_stage(name)).stage == name
    for bad in ("Agent", "two words", "", "../x"):
        with pytest.raises(DamagedRecord):
            StageRecord.from_json(_stage("agent") | {"stage": bad})


def test_a_runs_stage_files_of_a_scaffolds_own_stage_are_read(tmp_path: Path):
    run = tmp_path / "m-r01"
    (run / "stages").mkdir(parents=True)
    (run / "stages" / "1-loop.json").write_text(durable.dumps(_stage("loop")), encoding="utf-8")
    (run / "stages" / "2-Not a stage.json").write_text("{}", encoding="utf-8")
    assert list(read_run(run).stages) == ["loop"]


def test_a_plan_that_names_no_task_leaves_it_to_the_registry():
    plan = plan_from_mapping({"models": ["scripted:/x/a.jsonl"], "corpus": "c"}, Path("/base"))
    assert plan.task == "" and DEFAULT_TASK in task_names()


@pytest.mark.parametrize(("line", "told"), [
    ('{"text": 5}', "'text', 'reasoning' and 'error' must be strings"),
    ('{"text": "a", "reported_prompt_tokens": true}', "'reported_prompt_tokens' must be a whole number"),
    ('{"text": "a", "reported_prompt_tokens": -1}', "'reported_prompt_tokens' must be a whole number"),
    ('{"text": "a", "tool_calls": [1]}', "'tool_calls' must be a list of objects"),
    ('{"error": "x", "error_kind": 3}', "error_kind must be one of"),
    ('{"key": "k"}', "a line needs 'text' or 'error'"),
])
def test_a_transcript_line_of_the_wrong_shape_is_named_by_its_field(tmp_path: Path, line: str, told: str):
    from bakeoff.models.errors import ModelFileInvalid
    from bakeoff.models.transcript import read_answers

    script = tmp_path / "s.jsonl"
    script.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ModelFileInvalid, match=f"s.jsonl:1: {told}"):
        read_answers(script)


def test_a_transcript_line_reads_leniently_where_it_always_did(tmp_path: Path):
    from bakeoff.models.transcript import read_answers

    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "a", "key": 7, "token_budget": "many", "reasoning_unfinished": 1, "extra": [], '
                      '"tool_calls": [{"name": "run", "arguments": {"command": "ls"}, "id": "c1"}]}\n', encoding="utf-8")
    (answer,) = read_answers(script)
    assert (answer.key, answer.token_budget, answer.reasoning_unfinished, answer.reasoning) == ("7", None, False, None)
    (call,) = answer.tool_calls
    assert (call.name, call.arguments, call.call_id, call.error) == ("run", '{"command": "ls"}', "c1", None)
