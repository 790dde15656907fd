"""The typed records: every record survives JSON unchanged, an unknown schema is refused by name,
and records written by the code before the records package read back and write out the same JSON."""

from __future__ import annotations

import enum
import json
import shutil
from pathlib import Path

import msgspec
import pytest

from bakeoff.batchfolder.upgrade import upgrade
from bakeoff.errors import BakeoffError
from bakeoff.records import (
    AnalysisRecord,
    Attribution,
    BatchRecord,
    Capture,
    CaptureCounts,
    CaptureReason,
    CaptureStatus,
    Claim,
    ClaimSource,
    CodeVersion,
    Command,
    Commit,
    CompletionRecord,
    CorpusRef,
    Crash,
    CrashClass,
    DamagedRecord,
    FileWritten,
    Headline,
    LadderCheck,
    LadderStatus,
    ModelEntry,
    ModelRef,
    Outcome,
    Plan,
    Prompt,
    PromptCut,
    PromptMessage,
    RepairEffect,
    RepairGrant,
    RepairTurn,
    Requirement,
    Resources,
    Rung,
    RunRecord,
    RunStatus,
    SkippedPath,
    Stage,
    StageRecord,
    StageSummary,
    Timings,
    TokenCounts,
    UnknownRecordSchema,
)
from bakeoff.records.errors import DamagedRecord as DamagedRecordItself

OLD = Path(__file__).parent / "data" / "records_v1"
TIMINGS = Timings("2026-12-01T14:00:00.000+00:00", "2026-12-01T14:00:03.500+00:00", 3.5, 1.0, 2.0, 0.25, 0.25)
PROMPT = Prompt("implement#2", (PromptMessage("system", "sys"), PromptMessage("user", "fix it")), 9, 3,
                (PromptCut("failure", 5000, 400),))
COMPLETION = CompletionRecord("# file: train.py\n```python\npass\n```\n", "length", 120, 64, 0.5, 1.5, "scripted:x",
                              cached_prompt_tokens=100, model_info={"scripted_line": 3}, reasoning="hm",
                              reasoning_tokens=2, token_budget=64)
CAPTURE = Capture(CaptureStatus.UNUSABLE, CaptureReason.CUT_OFF, "stopped at the token limit", budget_cut=True)
BEFORE = LadderCheck(Rung.VISIBLE_STEP_RAN, LadderStatus.CRASHED, "predict", None, crash_class=CrashClass.MODULE_NOT_FOUND,
                     detail="No module named 'x'", traceback_tail="Traceback...", visible_ok=False,
                     visible_failure="`python predict.py` failed", visible_output="EXPECTED_F1: 0.7",
                     requirements=(Requirement(1, "pandas", "pandas", "provided_by_image", "the image has it"),
                                   Requirement(2, "nope==1", "nope", "unavailable", "no wheel", ("a.whl",))))
AFTER = LadderCheck(Rung.SCORED, LadderStatus.SCORED, None, Headline("f1", 0.75, True, 0.01), visible_ok=True,
                    metrics={"f1": 0.75, "confusion": {"tp": 3, "fp": 1, "fn": 1, "tn": 5}}, extras={"ab": 1})


def _through_json(record):
    """What a reader gets back after the record was written to disk."""
    return json.loads(json.dumps(record.to_json(), sort_keys=True))


def _stage_record() -> StageRecord:
    command = Command("train", ("python", "train.py"), 1, False, False, 0.8, "", "boom", 0, 12, "docker",
                      Crash(CrashClass.MODULE_NOT_FOUND, "No module named 'x'", "tb"))
    bad_output = Command("smoke_predict", ("python", "predict.py"), 0, False, False, 0.1, "", "", isolation="docker",
                         crash=Crash(LadderStatus.BAD_OUTPUT, "no id column", None))
    turns = (
        RepairTurn(1, RepairGrant.VISIBLE_FAILURE, PROMPT, COMPLETION, CAPTURE,
                   (FileWritten("train.py", 10, "ab" * 32), FileWritten("link/x.py", 3, None, refused="a link")),
                   BEFORE, AFTER, RepairEffect.RESCUED),
        RepairTurn(2, RepairGrant.ALWAYS_REPAIR, PROMPT, None, None, (), AFTER, AFTER, RepairEffect.UNCHANGED,
                   harness_error="ConnectionError: gone"),
    )
    return StageRecord(
        run_id="m-r01", stage="repair", index=4, attribution=Attribution.UNUSABLE,
        commit=Commit("c0ffee", "repair", "2026-12-01T14:00:04+00:00", 1, (SkippedPath("bad", "link"),)),
        timings=TIMINGS, attribution_reason="cut_off", prompt=PROMPT, completion=COMPLETION, capture=CAPTURE,
        files_written=(FileWritten("train.py", 10, "cd" * 32),), commands=(command, bad_output),
        shown_to_model="(no output)", check=AFTER, turns=turns, claim=Claim(ClaimSource.VISIBLE_OUTPUT, 0.7, 0.75),
        extras={"probe": {"verdict": "uses_leak"}}, resources=Resources(100, 200, None),
    )


def _run_record() -> RunRecord:
    return RunRecord(
        run_id="m-r01", run_index=1, seed=11, task="spam_classifier",
        model=ModelRef("m", "scripted:x.jsonl", "scripted:x.jsonl", {"scripted_line": 5}),
        corpus=CorpusRef("/corpora/default", "ef" * 32), isolation="docker", status=RunStatus.FINISHED, error=None,
        outcome=Outcome(LadderStatus.SCORED, Rung.SCORED, metrics={"f1": 0.75}, headline=Headline("f1", 0.75, True, 0.01),
                        claim=Claim(ClaimSource.VISIBLE_OUTPUT, 0.7, 0.75)),
        stages=(StageSummary(Stage.EXPLORE, Attribution.OK, CaptureStatus.CAPTURED),
                StageSummary(Stage.EVALUATE, Attribution.OK, None)),
        repair_effects=(RepairEffect.RESCUED, RepairEffect.UNCHANGED),
        capture=CaptureCounts(5, 4, 0, 1), tokens=TokenCounts(1000, 600, 300), timings=TIMINGS,
        code_version=CodeVersion("0.1.0", "abc", False),
    )


def _batch_record() -> BatchRecord:
    return BatchRecord(Plan((ModelEntry("m", "default"),), "/corpora/default", runs=1, task="spam_classifier"), "12" * 32,
                       ("m-r01", "m-r02"),
                       "2026-12-01T14:00:00.000+00:00", CodeVersion("0.1.0"), {"train.csv": "34" * 32, "excerpt.txt": None})


def _analysis_record() -> AnalysisRecord:
    return AnalysisRecord("m-r01", "2026-12-01T15:00:00.000+00:00", {"mentions_leak": True}, isolation="docker",
                          requirements={"ok": True}, probe={"verdict": "no_leak"}, design_judge={"stance": "drops"})


RECORDS = {"stage": _stage_record, "run": _run_record, "batch": _batch_record, "analysis": _analysis_record}


@pytest.mark.parametrize("kind", sorted(RECORDS))
def test_every_record_survives_json_as_the_same_object(kind):
    record = RECORDS[kind]()
    assert type(record).from_json(_through_json(record)) == record


def test_parts_survive_json_as_the_same_object():
    for part in (PROMPT, COMPLETION, CAPTURE, BEFORE, AFTER, TIMINGS, Claim(None),
                 Claim(ClaimSource.DESIGN, 0.1, None, {"claimed_ci": [0.0, 0.2]}),
                 Outcome(LadderStatus.SCORED, Rung.SCORED, metrics={"winkler": 0.3},
                         headline=Headline("winkler", 0.3, False, 0.0005))):
        assert type(part).from_json(_through_json(part)) == part


def test_a_stage_record_writes_the_keys_docs_records_md_names():
    data = _stage_record().to_json()
    assert list(data) == ["schema", "run_id", "stage", "index", "attribution", "attribution_reason", "prompt",
                          "completion", "capture", "files_written", "commands", "shown_to_model", "check", "turns",
                          "claim", "extras", "commit", "timings", "resources"]
    assert data["schema"] == "bakeoff.stage/2"
    assert data["capture"] == {"status": "unusable", "reason": "cut_off", "detail": "stopped at the token limit",
                               "budget_cut": True}
    assert "harness_error" not in data["turns"][0] and data["turns"][1]["harness_error"] == "ConnectionError: gone"
    assert data["files_written"][0] == {"path": "train.py", "bytes": 10, "sha256": "cd" * 32}
    assert data["commit"]["skipped"] == {"count": 1, "paths": [{"path": "bad", "kind": "link"}]}
    assert "extras" in data["turns"][0]["after"] and "extras" not in data["turns"][0]["before"]
    # enums are written as their plain strings
    assert json.dumps(data["attribution"]) == '"unusable"'


def test_a_stage_that_was_not_sampled_writes_empty_resources():
    record = StageRecord("m-r01", Stage.IMPLEMENT, 3, Attribution.MODEL_ERROR, Commit("c", "implement", "d"), TIMINGS,
                         "disk_full", extras={"disk_full": "OSError: no space"})
    assert record.to_json()["resources"] == {}
    assert StageRecord.from_json(_through_json(record)) == record


@pytest.mark.parametrize("kind", sorted(RECORDS))
def test_an_unknown_schema_is_refused_by_name(kind):
    data = _through_json(RECORDS[kind]())
    data["schema"] = f"bakeoff.{kind}/9"
    with pytest.raises(UnknownRecordSchema) as raised:
        type(RECORDS[kind]()).from_json(data, where="runs/x/record.json")
    message = str(raised.value)
    current = _through_json(RECORDS[kind]())["schema"]  # the schema this bakeoff writes, named as the one it knows
    assert f"bakeoff.{kind}/9" in message and current in message and "runs/x/record.json" in message
    assert isinstance(raised.value, BakeoffError)
    # not a damaged record: a resumed batch re-does a damaged stage, but must not overwrite a newer one
    assert not isinstance(raised.value, DamagedRecord)


def test_a_record_of_another_kind_is_an_unknown_schema():
    with pytest.raises(UnknownRecordSchema):
        StageRecord.from_json(_through_json(_run_record()) | {"stage": "x", "attribution": "ok", "commit": {}})


def test_unknown_extra_keys_are_ignored_on_read():
    data = _through_json(_stage_record())
    data["added_by_a_newer_bakeoff"] = {"x": 1}
    data["turns"][0]["after"]["another"] = 2
    assert StageRecord.from_json(data) == _stage_record()


@pytest.mark.parametrize("change, says", [
    (lambda d: d.pop("commit"), "commit"),
    (lambda d: d.pop("schema"), "schema"),
    (lambda d: d.update(attribution="fine"), "attribution"),
    (lambda d: d["commit"].update(sha=3), "commit.sha"),
    (lambda d: d["turns"][0].update(effect="improved"), "turn.effect"),
    (lambda d: d.update(turns=[3]), "turns"),
    (lambda d: d["prompt"]["messages"][0].pop("role"), "role"),
])
def test_a_malformed_record_is_a_damaged_record_saying_what(change, says):
    data = _through_json(_stage_record())
    change(data)
    with pytest.raises(DamagedRecordItself) as raised:
        StageRecord.from_json(data)
    assert says in str(raised.value)


def _old(name: str) -> dict:
    return json.loads((OLD / name).read_text(encoding="utf-8"))


# What the second schema renamed (bakeoff.batchfolder.upgrade): the only keys in which an old record, read
# through the batch folder's door and written back, may differ from what the old code wrote.
RENAMED = {"schema", "f1", "headline", "train_output", "visible_output", "rung_name", "claimed_f1", "real_f1",
           "claim_source", "claimed", "real", "source", "extra", "claim"}
RENAMED_VALUES = {"no_predict_script", "no_train_script"}  # a status (or a command's crash class) that was renamed


def _leaves(data, path=()):
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _leaves(value, (*path, i))
    else:
        yield path, data


def _differences(old: dict, new: dict) -> set:
    """Where two JSON objects differ outside the renamed keys: each differing path's innermost key, for the
    paths that pass through no renamed key (an empty set when only renamed keys differ)."""
    old_leaves, new_leaves = dict(_leaves(old)), dict(_leaves(new))
    changed = {p for p in old_leaves.keys() | new_leaves.keys() if old_leaves.get(p, ...) != new_leaves.get(p, ...)}
    return {next((part for part in reversed(p) if isinstance(part, str)), "") for p in changed
            if not RENAMED & {part for part in p if isinstance(part, str)} and old_leaves.get(p) not in RENAMED_VALUES}


def _read_old(data: dict, kind):
    """An old record read as the batch folder's door reads it, and written back."""
    return _through_json(kind.from_json(upgrade(data)))


@pytest.mark.parametrize("name", sorted(p.name for p in (OLD / "stages").glob("*.json")))
def test_stage_records_of_the_old_code_read_and_write_the_same_json(name):
    data = _old(f"stages/{name}")
    record = StageRecord.from_json(upgrade(data))
    assert record.stage == data["stage"] and record.attribution == data["attribution"]
    written = _read_old(data, StageRecord)
    assert written == json.loads(json.dumps(upgrade(data), sort_keys=True))
    assert not _differences(data, written), _differences(data, written)


def test_the_old_run_reads_with_its_repair_rescuing_it():
    repair = StageRecord.from_json(upgrade(_old("stages/4-repair.json")))
    turn = repair.turns[0]
    assert turn.effect is RepairEffect.RESCUED and turn.before.status is LadderStatus.CRASHED
    assert turn.before.crash_class is CrashClass.MODULE_NOT_FOUND and turn.after.rung == 5
    assert repair.check == turn.after and turn.capture == Capture(CaptureStatus.CAPTURED, CaptureReason.OK)
    data = _old("run.json")
    run = RunRecord.from_json(upgrade(data))
    assert run.status is RunStatus.FINISHED and run.finished and run.repair_effects == (RepairEffect.RESCUED,)
    assert run.outcome.headline_value == repair.check.headline_value and run.capture.calls == 5
    assert not _differences(data, _read_old(data, RunRecord))
    batch = _old("batch.json")
    assert _through_json(BatchRecord.from_json(batch)) == batch
    assert BatchRecord.from_json(batch).order == ("competent-r01", "rescued-r01", "regressed-r01")


def test_an_older_batch_without_a_corpus_fingerprint_reads():
    data = _old("batch.json")
    del data["corpus_sha256"]
    assert BatchRecord.from_json(data).corpus_sha256 is None


def test_enums_are_the_strings_records_hold():
    assert CaptureStatus.UNCAPTURED == "uncaptured" and Attribution.UNCAPTURED == "uncaptured"
    assert {e.value for e in RepairEffect} == {"rescued", "regressed", "unchanged"}
    assert {e.value for e in RunStatus} == {"finished", "harness_failed"}
    assert LadderCheck.from_json(_through_json(BEFORE)).status is LadderStatus.CRASHED


def _old_run_folder(tmp_path: Path) -> Path:
    run_dir = tmp_path / "runs" / "rescued-r01"
    shutil.copytree(OLD / "stages", run_dir / "stages")
    shutil.copy(OLD / "run.json", run_dir / "run.json")
    return run_dir


def test_the_runner_resumes_from_records_of_the_old_code(tmp_path):
    from bakeoff.batchfolder.records import finished_stages, is_finished, read_run_record

    run_dir = _old_run_folder(tmp_path)
    done = finished_stages(run_dir)
    assert list(done) == ["explore", "decide", "implement", "repair", "evaluate", "docs"]
    assert done["repair"] == StageRecord.from_json(upgrade(_old("stages/4-repair.json")))
    assert is_finished(run_dir) and read_run_record(run_dir / "run.json") == RunRecord.from_json(upgrade(_old("run.json")))


def test_a_damaged_stage_is_redone_but_a_newer_schema_stops_the_resume(tmp_path):
    from bakeoff.batchfolder.records import finished_stages

    run_dir = _old_run_folder(tmp_path)
    implement = run_dir / "stages" / "3-implement.json"
    implement.write_text(implement.read_text()[:500])
    assert list(finished_stages(run_dir)) == ["explore", "decide"]  # cut short: implement runs again
    data = _old("stages/3-implement.json")
    implement.write_text(json.dumps(data | {"schema": "bakeoff.stage/3"}))
    with pytest.raises(UnknownRecordSchema) as raised:
        finished_stages(run_dir)
    assert str(implement) in str(raised.value) and "bakeoff.stage/3" in str(raised.value)


GOLDEN = Path(__file__).parent / "data" / "batch_before_records"  # tests/test_report_change_detector.py's old-code batch
READERS = {"bakeoff.stage/1": StageRecord, "bakeoff.run/1": RunRecord, "bakeoff.batch/1": BatchRecord,
           "bakeoff.analysis/1": AnalysisRecord}


def test_every_record_of_the_golden_old_batch_writes_back_the_same_json():
    found = {}
    for path in sorted(GOLDEN.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("schema") in READERS:
            written = _through_json(READERS[data["schema"]].from_json(upgrade(data), str(path)))
            assert not _differences(data, written), (path, _differences(data, written))
            found[data["schema"]] = found.get(data["schema"], 0) + 1
    assert set(found) == set(READERS) and sum(found.values()) >= 10, found



class _Colour(enum.Enum):
    RED = "red"


class _Shape(msgspec.Struct):
    colours: list[_Colour]


def test_a_lone_surrogate_where_an_enum_is_read_is_a_damaged_record_not_a_unicode_error():
    from bakeoff.records.codec import decode

    with pytest.raises(DamagedRecordItself, match="not valid Unicode"):
        decode(_Shape, {"colours": ["\udc80"]})
