"""The capture audit in a real batch, for every take-home: "said nothing" (uncaptured) apart from "said something
useless" (unusable) apart from a working submission, in the stage records, the run record and the report.

One scripted batch per task on the real Docker sandbox (tests/task_cases.py):
- mute: every answer empty: uncaptured, never graded, never a zero;
- rambler: code asked for, prose given (no code block), twice: unusable (no_code), graded as the model's failure;
- cut: the code answer stopped at the token limit mid-block: unusable (cut_off); its repair turn gives the code;
- working: the task's working submission: captured and scored.
"""

from __future__ import annotations

import csv

import pytest
from runner_support import run_scripted_batch
from task_cases import CASE_IDS, CASES

pytestmark = [pytest.mark.docker, pytest.mark.slow]

KEYS = ("explore#1", "decide#1", "implement#1", "implement#2", "docs#1")
PROSE = "I would load the data with pandas, look at it carefully and then write the code."


def _replaced(lines: list[dict], key: str, row: dict) -> list[dict]:
    return [({"key": key, **row} if line["key"] == key else line) for line in lines]


@pytest.fixture(scope="module", params=CASES, ids=CASE_IDS)
def batch(request, tmp_path_factory):
    from bakeoff.tasks import report_batch as write_report

    case = request.param
    root = tmp_path_factory.mktemp(f"capture-{case.task}")
    data = case.make_data(root / "data")
    working = case.working
    code = next(line["text"] for line in working if line["key"] == "implement#1")
    cut = code[: len(code) // 2]  # inside the first file's block
    rambler = _replaced(working, "implement#1", {"text": PROSE})
    rambler.insert(3, {"key": "implement#2", "text": PROSE})
    scripts = {
        "mute": [{"key": key, "text": ""} for key in KEYS],
        "rambler": rambler,
        "cut": _replaced(working, "implement#1", {"text": cut, "finish_reason": "length"}),  # repaired below
        "working": working,
    }
    scripts["cut"].insert(3, {"key": "implement#2", "text": code})
    plan = {"corpus": str(data), "seed": 2, "task_settings": {"repair_turns": 1, **case.own_settings}}
    if case.plan_task:
        plan["task"] = case.plan_task
    result = run_scripted_batch(root, scripts, plan)
    return root / "batch", {r["model"]["label"]: r for r in [r.to_json() for r in result.records]}, write_report(root / "batch"), case


def _stages(folder, run_id):
    from runner_support import stage_records

    return {record["stage"]: record for record in stage_records(folder / "runs" / run_id)}


def test_empty_answers_are_uncaptured_and_never_graded(batch):
    folder, records, _, _ = batch
    mute = records["mute"]
    assert mute["status"] == "finished" and mute["outcome"]["status"] != "scored"
    assert mute["capture"]["captured"] == 0 and mute["capture"]["uncaptured"] == mute["capture"]["calls"] >= 4
    stages = _stages(folder, mute["run_id"])
    assert [stages[s]["attribution"] for s in ("explore", "decide", "implement", "docs")] == ["uncaptured"] * 4
    assert stages["explore"]["commands"] == []  # nothing came back, so nothing was executed


def test_prose_and_cut_answers_are_unusable_with_their_reason(batch):
    folder, records, _, _ = batch
    rambler = _stages(folder, records["rambler"]["run_id"])
    assert (rambler["implement"]["attribution"], rambler["implement"]["attribution_reason"]) == ("unusable", "no_code")
    (turn,) = rambler["repair"]["turns"]
    assert (turn["capture"]["status"], turn["capture"]["reason"]) == ("unusable", "no_code")
    assert records["rambler"]["capture"]["unusable"] == 2 and records["rambler"]["capture"]["uncaptured"] == 0
    cut = _stages(folder, records["cut"]["run_id"])
    assert (cut["implement"]["capture"]["status"], cut["implement"]["capture"]["reason"]) == ("unusable", "cut_off")
    (turn,) = cut["repair"]["turns"]
    assert turn["capture"]["status"] == "captured" and turn["effect"] == "rescued"  # graded before and after the turn
    assert records["working"]["outcome"]["status"] == "scored" and records["working"]["capture"]["unusable"] == 0


def test_the_report_counts_each_reason_apart(batch):
    _, _, report, case = batch
    with open(report.folder / "tables" / "capture_reasons.csv", newline="") as handle:
        rows = {(r["model"], r["status"], r["reason"]): int(r["calls"]) for r in csv.DictReader(handle)}
    assert rows[("mute", "uncaptured", "empty")] >= 4
    assert rows[("rambler", "unusable", "no_code")] == 2
    assert rows[("cut", "unusable", "cut_off")] == 1
    assert not any(model == "working" for model, _, _ in rows)
    with open(report.folder / "tables" / f"{case.models_table}.csv", newline="") as handle:
        models = {r["model"]: r for r in csv.DictReader(handle)}
    assert models["mute"]["graded"] == "0" and models["mute"]["uncaptured_runs"] == "1"
    assert models["rambler"]["graded"] == "1"  # unusable is the model's failure: graded, not set apart


def test_the_why_lines_name_what_kept_each_model_from_a_score(batch):
    """Issue 38: the model that said nothing and the one that wrote no code each get a line with its counts; the
    cut answer its repair turn mended, and the working one, scored: no line."""
    import re

    from bakeoff.analysis.why import WHY_HEADING
    from bakeoff.cli.batch import closing_lines
    from bakeoff.tasks.registry import plugin_for_batch

    folder, _, report, _ = batch
    lines = closing_lines(folder, plugin_for_batch(folder))
    assert lines[0] == WHY_HEADING
    by_model = {line.split(":")[0]: line for line in lines[1:]}
    assert set(by_model) == {"mute", "rambler"}
    assert re.fullmatch(r"mute: scored 0 of 1 runs: (\d+) of \1 calls came back empty; change: the endpoint or engine, "
                        r"not the model \(`bakeoff check` tests it\)\.", by_model["mute"]), by_model["mute"]
    assert re.fullmatch(r"rambler: scored 0 of 1 runs: 2 of \d+ calls held no code block; no plan setting changes "
                        r"this\.", by_model["rambler"]), by_model["rambler"]
    text = report.markdown.read_text(encoding="utf-8")
    assert all(f"- {line}" in text for line in lines[1:])
