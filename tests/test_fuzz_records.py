"""Fuzz the readers of bytes bakeoff did not write, beside the answer parser and the scorer (issue 23): batch-folder
records through their door, plan files, notebooks for `bakeoff review import`, scripted answer files.

The property, for every input: a valid result or the reader's named error (a BakeoffError, or durable's for a
record on disk), never another exception. The budget is tests/fuzz_support.py's (fixed, derandomized, no clock).
Records and plans start from valid ones (the records real batches wrote, under tests/data; a minimal and a full
plan) with one part changed, and each of those tests asserts its reach (fuzz_support.Reach).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from fuzz_support import FUZZ, Reach, mutated_bytes, mutated_json
from hypothesis import given
from hypothesis import strategies as st

import durable
from bakeoff.batchfolder.records import read_typed
from bakeoff.errors import BakeoffError
from bakeoff.models.base import Completion, Message
from bakeoff.models.tools import ToolCall
from bakeoff.models.transcript import read_answers, transcript_line
from bakeoff.records import AnalysisRecord, BatchRecord, RunRecord, StageRecord
from bakeoff.records.plan import PlanError
from bakeoff.review.importer import read_cells, source_lines
from bakeoff.runner.plan import LIMIT_MAXIMA, MAX_RUNS, Plan, plan_from_mapping, read_plan_toml

DATA = Path(__file__).parent / "data"
RECORD_OF_FILE = {"batch.json": BatchRecord, "run.json": RunRecord, "analysis.json": AnalysisRecord}


def _real_records() -> list[tuple[type, dict]]:
    """(record class, JSON object) of every record the batches under tests/data wrote, each both as it was
    written (first schema, read through the upgrade) and as this bakeoff writes the same record."""
    found: list[tuple[type, dict]] = []
    for path in sorted(DATA.glob("records_v1/**/*.json")) + sorted(DATA.glob("batch_before_records/batch/runs/**/*.json")) \
            + [DATA / "batch_before_records" / "batch" / "batch.json"]:
        kind = RECORD_OF_FILE.get(path.name, StageRecord if path.parent.name == "stages" else None)
        if kind is not None:
            found.append((kind, json.loads(path.read_text(encoding="utf-8"))))
            found.append((kind, json.loads(durable.dumps(read_typed(path, kind.from_json).to_json()))))
    return found


REAL_RECORDS = _real_records()
def _read_record(reach: Reach, path: Path, kind: type, change: str) -> None:
    """Read `path` as `kind`: a named refusal, or a record that writes out as valid JSON and reads back the same."""
    try:
        record = read_typed(path, kind.from_json)
    except BakeoffError as exc:  # DamagedRecord or UnknownRecordSchema, naming the file
        reach.saw(False, type(exc).__name__)
        return
    reach.saw(True, change.split()[0])
    assert isinstance(record, kind)
    written = record.to_json()
    assert kind.from_json(json.loads(durable.dumps(written)), "again").to_json() == written


@FUZZ
@given(case=st.sampled_from(REAL_RECORDS).flatmap(lambda real: st.tuples(st.just(real[0]), mutated_json(real[1]))))
def _fuzz_record_shape(reach: Reach, folder: Path, case) -> None:
    kind, (document, change) = case
    path = folder / "record.json"
    path.write_text(json.dumps(document), encoding="utf-8")  # Python's writer: NaN and Infinity as a hostile one
    _read_record(reach, path, kind, change)


def test_a_record_of_any_shape_reads_or_is_damaged(tmp_path):
    reach = Reach("record shape")
    _fuzz_record_shape(reach, tmp_path)
    reach.check()


@FUZZ
@given(case=st.sampled_from(REAL_RECORDS).flatmap(
    lambda real: st.tuples(st.just(real[0]), mutated_bytes(durable.dumps(real[1], indent=2).encode()))))
def _fuzz_record_bytes(reach: Reach, folder: Path, case) -> None:
    kind, (content, change) = case
    path = folder / "record.json"
    path.write_bytes(content)
    _read_record(reach, path, kind, change)


def _current(kind: type, part: str) -> dict:
    return next(doc for k, doc in REAL_RECORDS if k is kind and isinstance(doc.get(part), dict)
                and doc["schema"].endswith("/2"))


@pytest.mark.parametrize("kind, part, key, value", [
    (StageRecord, "check", "metrics", [["f1", 0.5]]), (StageRecord, "check", "metrics", "f1"),
    (StageRecord, "check", "extras", [1]), (StageRecord, "check", "extras", "x"),
    (RunRecord, "outcome", "metrics", [1, 2]), (RunRecord, "outcome", "metrics", "f1")])
def test_metrics_or_extras_that_are_not_objects_are_a_damaged_record(tmp_path, kind, part, key, value):
    """Found by the record fuzz (issue 35): such a record was read, then writing it back raised a TypeError."""
    document = _current(kind, part)
    path = tmp_path / "record.json"
    path.write_text(json.dumps({**document, part: {**document[part], key: value}}), encoding="utf-8")
    with pytest.raises(BakeoffError, match=rf"'{part}\.{key}' is not an object"):
        read_typed(path, kind.from_json)


def test_any_bytes_as_a_record_are_damaged_or_read(tmp_path):
    reach = Reach("record bytes")
    _fuzz_record_bytes(reach, tmp_path)
    reach.check()


MINIMAL_PLAN = {"corpus": "corpus", "models": ["scripted:answers.jsonl"]}
PLANS = [MINIMAL_PLAN,
         {"corpus": "data/corpus", "runs": 1, "models": ["scripted:a.jsonl", "scripted:b.jsonl"],
          "scaffolds": ["staged", "agent"]},
         {"corpus": "/abs/corpus", "seed": 0, "sandbox": "bwrap", "models": [{"spec": "scripted:a.jsonl"}],
          "limits": {"output_kb": 64}},
         {"corpus": "corpus", "runs": 2, "seed": 3, "sandbox": "docker", "task": "spam_classifier",
             "models": [{"spec": "scripted:a.jsonl", "label": "a"}, {"spec": "scripted:b.jsonl", "label": "b"}],
             "limits": {"memory_mb": 2048, "pids": 256, "cpus": 1.0}, "task_settings": {"smoke_rows": 50},
             "model_options": {"n_ctx": 8192}}]


def _load_plan(reach: Reach, raw: dict, change: str) -> None:
    """Load a plan mapping: a PlanError, or a plan in bounds that the batch record keeps and reads back the same."""
    try:
        plan = plan_from_mapping(raw, Path("/base"))
    except BakeoffError as exc:
        reach.saw(False, type(exc).__name__)
        return
    reach.saw(True, change.split()[0])
    assert plan.models and 1 <= plan.runs <= MAX_RUNS and plan.sha256()
    assert all(0 < value <= LIMIT_MAXIMA[name] for name, value in plan.limits.to_json().items() if value is not None)
    kept = Plan.from_json(durable.loads(durable.dumps(plan.to_dict())))  # as the batch record is read back
    assert kept.sha256() == plan.sha256()


@FUZZ
@given(case=st.sampled_from(PLANS).flatmap(mutated_json))
def _fuzz_plan_shape(reach: Reach, case) -> None:
    raw, change = case
    _load_plan(reach, raw, change)


def test_a_plan_of_any_shape_loads_or_is_a_plan_error():
    reach = Reach("plan shape")
    _fuzz_plan_shape(reach)
    reach.check()


@pytest.mark.parametrize("table, key, value", [("task_settings", "smoke_rows", 10**400),
                                             ("model_options", "n_ctx", 10**400), ("task_settings", "x", math.nan),
                                             ("task_settings", "x", -math.inf)], ids=["digits", "option", "nan", "inf"])
def test_a_plan_value_the_batch_record_cannot_keep_is_a_plan_error(table, key, value):
    """Found by the JSON round-trip fuzz (issue 35): a number of 401 digits in a free table was loaded, written into
    batch.json, and that record then read as damaged; a NaN (TOML has one) failed only when batch.json was written."""
    with pytest.raises(PlanError, match="cannot be kept in the batch record"):
        plan_from_mapping({**MINIMAL_PLAN, table: {key: value}}, Path("/base"))


PLAN_FILES = [b'corpus = "corpus"\nmodels = ["scripted:answers.jsonl"]\n',
              b'corpus = "c"\nruns = 1\nscaffolds = ["staged", "agent"]\n[[models]]\nspec = "scripted:a.jsonl"\n'
              b'label = "a"\n[[models]]\nspec = "scripted:b.jsonl"\n',
              b"""runs = 2
corpus = "corpus"
sandbox = "docker"
seed = 3
models = [{ spec = "scripted:a.jsonl", label = "a" }, { spec = "scripted:b.jsonl", label = "b" }]
[limits]
memory_mb = 2048
pids = 256
cpus = 1.0
[task_settings]
smoke_rows = 50
"""]


@FUZZ
@given(case=st.sampled_from(PLAN_FILES).flatmap(mutated_bytes))
def _fuzz_plan_bytes(reach: Reach, folder: Path, case) -> None:
    content, change = case
    path = folder / "plan.toml"
    path.write_bytes(content)
    try:
        raw = read_plan_toml(path)
    except BakeoffError as exc:
        reach.saw(False, type(exc).__name__)
        return
    _load_plan(reach, raw, change)


def test_any_bytes_as_a_plan_file_are_a_plan_error_or_a_plan(tmp_path):
    reach = Reach("plan bytes")
    _fuzz_plan_bytes(reach, tmp_path)
    reach.check()


NOTEBOOKS = [{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
             {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Spam\n", "A look at the data."]},
                        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
                         "source": ["import pandas as pd\n", "df = pd.read_csv('train.csv')"]},
                        {"cell_type": "code", "execution_count": None, "metadata": {"tags": []},
                         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]}],
                         "source": "print(len(df))\n%time df.describe()"}],
              "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}]


@FUZZ
@given(case=st.sampled_from(NOTEBOOKS).flatmap(mutated_json))
def _fuzz_notebook(reach: Reach, folder: Path, case) -> None:
    """A notebook with one part changed: its cells, each code cell's source lines, or a named error."""
    data, change = case
    path = folder / "n.ipynb"
    path.write_text(json.dumps(data), encoding="utf-8")
    try:
        cells = read_cells(path)
        lines = [source_lines(cell, number) for number, cell in enumerate(cells, start=1)
                 if cell.get("cell_type") == "code"]
    except BakeoffError as exc:
        reach.saw(False, type(exc).__name__)
        return
    reach.saw(True, change.split()[0])
    assert isinstance(cells, list) and all(isinstance(cell, dict) for cell in cells)
    assert all(isinstance(line, str) for cell_lines in lines for line in cell_lines)


def test_a_notebook_of_any_shape_reads_or_is_a_named_error(tmp_path):
    reach = Reach("notebook")
    _fuzz_notebook(reach, tmp_path)
    reach.check()


def _transcript_lines() -> list[dict]:
    """Lines as a run's transcript writes them (bakeoff.models.transcript.transcript_line): an answer, one that
    reasoned, an agent's step with tool calls, a failed turn."""
    def answer(text: str, **fields) -> Completion:
        return Completion(text=text, finish_reason="stop", prompt_tokens=12, completion_tokens=5, prompt_seconds=0.1,
                          generation_seconds=0.2, backend="scripted:x", **fields)

    ask = [Message("user", "Write train.py")]
    return [transcript_line("implement#1", answer("# file: train.py\n```python\nprint(1)\n```\n"), ask),
            transcript_line("decide#1", answer("Metric: F1.", reasoning="Spam is rare.", reasoning_tokens=3), ask),
            transcript_line("agent#2", answer("", tool_calls=(ToolCall("run", '{"command": "ls"}', "c1"),)), ask),
            transcript_line("explore#1", Completion.failure("scripted:x", "the engine died", "backend_error"))]


TRANSCRIPT = _transcript_lines()


@st.composite
def scripted_files(draw: st.DrawFn) -> tuple[bytes, str, list[dict]]:
    """(a scripted answers file, its change, the lines it was made of): one to four transcript lines, then one
    line changed as JSON, or the file changed as bytes."""
    lines = draw(st.lists(st.sampled_from(TRANSCRIPT), min_size=1, max_size=4))
    if draw(st.booleans()):
        content, change = draw(mutated_bytes("".join(durable.dumps(line) + "\n" for line in lines).encode()))
        return content, change, lines
    which = draw(st.integers(0, len(lines) - 1))
    changed, change = draw(mutated_json(lines[which]))
    texts = [json.dumps(changed if n == which else line) for n, line in enumerate(lines)]
    return "\n".join(texts).encode("utf-8", "surrogatepass"), change, lines


@FUZZ
@given(case=scripted_files())
def _fuzz_scripted_answers(reach: Reach, folder: Path, case) -> None:
    content, change, lines = case
    path = folder / "answers.jsonl"
    path.write_bytes(content)
    try:
        answers = read_answers(path)
    except BakeoffError as exc:
        reach.saw(False, type(exc).__name__)
        return
    reach.saw(True, change.split()[0])
    assert all(isinstance(a.text, str) and isinstance(a.finish_reason, str) for a in answers)
    assert all(isinstance(call.name, str) and isinstance(call.arguments, str) for a in answers for call in a.tool_calls or ())
    if change.split()[0] in ("none", "reorder", "spaces", "trailing"):  # changes that leave every line's meaning
        assert [(a.key, a.text, a.error) for a in answers] == [(line["key"], line["text"], line["error"]) for line in lines]


def test_a_scripted_answer_file_of_any_lines_reads_or_is_a_named_error(tmp_path):
    reach = Reach("scripted answers")
    _fuzz_scripted_answers(reach, tmp_path)
    reach.check()


def test_deep_nesting_and_huge_numbers_are_named_in_each_reader(tmp_path):
    """The shapes the first review broke: nesting far past any cap and a number of hundreds of digits."""
    deep = "[" * 100_000 + "]" * 100_000
    for text in (deep, '{"text": ' + "9" * 500 + "}"):
        (tmp_path / "a.jsonl").write_text(text, encoding="utf-8")
        (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
        for read in (lambda: read_answers(tmp_path / "a.jsonl"), lambda: read_cells(tmp_path / "n.ipynb"),
                     lambda: read_typed(tmp_path / "n.ipynb", RunRecord.from_json)):
            try:
                read()
            except BakeoffError as exc:
                assert "RecursionError" not in repr(exc)
            else:
                raise AssertionError("a hostile text was read")
