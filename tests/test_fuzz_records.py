"""Fuzz the readers of bytes bakeoff did not write, beside the answer parser and the scorer (issue 23): batch-folder
records through their door, plan files, notebooks for `bakeoff review import`, scripted answer files.

The property, for every input: a valid result or the reader's named error (a BakeoffError, or durable's for a
record on disk), never another exception. The budget is tests/fuzz_support.py's (fixed, derandomized, no clock).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from fuzz_support import FUZZ
from hypothesis import given
from hypothesis import strategies as st

from bakeoff.batchfolder.records import read_typed
from bakeoff.errors import BakeoffError
from bakeoff.models.transcript import read_answers
from bakeoff.records import AnalysisRecord, BatchRecord, RunRecord, StageRecord
from bakeoff.review.importer import read_cells
from bakeoff.runner.plan import plan_from_mapping, read_plan_toml

# JSON values as a record might hold them: the keys the readers look for, nested a little, with odd leaves.
KEYS = ["schema", "run_id", "stage", "index", "attribution", "commit", "timings", "check", "turns", "claim", "plan",
        "plan_sha256", "order", "status", "outcome", "rung", "headline", "models", "label", "spec", "f1", "extras"]
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=False),
                   st.text(max_size=12), st.sampled_from(["bakeoff.stage/2", "bakeoff.run/2", "bakeoff.batch/1",
                                                          "bakeoff.stage/1", "bakeoff.run/1", "scored", "ok", "explore"]))
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=6), max_leaves=30)
RECORD_KINDS = (StageRecord, RunRecord, BatchRecord, AnalysisRecord)


def _file(content: bytes) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="fuzz-"))
    path = folder / "record.json"
    path.write_bytes(content)
    return path


@FUZZ
@given(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=12), st.sampled_from(RECORD_KINDS))
def test_a_record_of_any_shape_reads_or_is_damaged(data, kind):
    path = _file(json.dumps(data).encode())
    try:
        record = read_typed(path, kind.from_json)
    except BakeoffError:
        return  # DamagedRecord or UnknownRecordSchema, naming the file
    assert isinstance(record, kind)
    json.dumps(record.to_json())  # what reads back writes out again as JSON


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_as_a_record_are_damaged_or_read(content):
    try:
        read_typed(_file(content), StageRecord.from_json)
    except BakeoffError:
        pass


@FUZZ
@given(st.dictionaries(st.sampled_from(["models", "runs", "task", "corpus", "sandbox", "seed", "limits",
                                        "task_settings", "model_options", "nonsense"]), VALUES, max_size=8))
def test_a_plan_of_any_shape_loads_or_is_a_plan_error(raw):
    try:
        plan = plan_from_mapping(raw, Path("/base"))
    except BakeoffError:
        return
    assert plan.models and plan.sha256()


@FUZZ
@given(st.binary(max_size=400))
def test_any_bytes_as_a_plan_file_are_a_plan_error_or_a_plan(content):
    path = _file(content).with_name("plan.toml")
    path.write_bytes(content)
    try:
        raw = read_plan_toml(path)
        plan_from_mapping(raw, path.parent)
    except BakeoffError:
        pass


@FUZZ
@given(st.one_of(VALUES, st.dictionaries(st.just("cells"), st.lists(st.dictionaries(
    st.sampled_from(["cell_type", "source", "outputs", "metadata"]), VALUES, max_size=4), max_size=4))))
def test_a_notebook_of_any_shape_reads_or_is_a_named_error(data):
    path = _file(json.dumps(data).encode()).with_name("n.ipynb")
    path.write_text(json.dumps(data), encoding="utf-8")
    try:
        cells = read_cells(path)
    except BakeoffError:
        return
    assert isinstance(cells, list) and all(isinstance(cell, dict) for cell in cells)


@FUZZ
@given(st.lists(st.one_of(VALUES.map(json.dumps), st.text(max_size=30)), max_size=5))
def test_a_scripted_answer_file_of_any_lines_reads_or_is_a_named_error(lines):
    path = _file("\n".join(lines).encode("utf-8", errors="surrogatepass"))
    try:
        answers = read_answers(path)
    except BakeoffError:
        return
    assert all(isinstance(a.text, str) for a in answers)


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
