"""durable's reader of untrusted JSON and its writer, fuzzed and at each cap.

Property: `loads` of any bytes or text returns a value or raises UntrustedJSON (the subclass naming the cap),
never anything else; `dumps` of any value returns text that a strict reader accepts, or raises JSONUnwritable.
"""

from __future__ import annotations

import copy
import json
import math
import re

import pytest
from fuzz_support import FUZZ, Reach, json_paths, mutated_bytes, mutated_json
from hypothesis import given
from hypothesis import strategies as st

import durable
from durable import (
    JsonLimits,
    JSONMalformed,
    JSONNotFinite,
    JSONNumberTooLong,
    JSONTooDeep,
    JSONTooLarge,
    JSONUnwritable,
    UntrustedJSON,
)
from durable.jsonio import nesting_depth

SMALL = JsonLimits(max_bytes=4096, max_depth=8, max_digits=20)

scalars = st.none() | st.booleans() | st.integers(-10**15, 10**15) | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=20)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                           max_size=4), max_leaves=30)
# Text made of JSON's own pieces, so that the fuzzer reaches deep nesting, long numbers and the constants often.
pieces = st.sampled_from(['[', ']', '{', '}', ',', ':', '"a"', '"\\u00e9"', '"\\ud800"', '1', '-', '0', '.5', 'e9',
                          '9' * 30, 'e999', 'NaN', 'Infinity', '-Infinity', 'true', 'null', ' ', '"', '\\'])
jsonish = st.lists(pieces, max_size=60).map("".join)


def _strict(text: str):
    def refuse(token):
        raise ValueError(token)

    return json.loads(text, parse_constant=refuse)


# A valid document (what durable writes) with one byte-level change, or JSON's own pieces strung together (deep
# nesting, long numbers, the constants). The valid ones three times as often: they are where the property is checked.
documents = values.flatmap(lambda value: mutated_bytes(durable.dumps(value).encode()))
jsonish_documents = st.tuples(jsonish.map(str.encode), st.just("jsonish"))
any_documents = st.sampled_from([documents, documents, documents, jsonish_documents]).flatmap(lambda pick: pick)


@FUZZ
@given(case=any_documents)
def _fuzz_bytes(reach: Reach, case) -> None:
    data, change = case
    try:
        value = durable.loads(data, limits=SMALL)
    except UntrustedJSON as exc:
        reach.saw(False, exc.cap)
        assert exc.cap in ("bytes", "depth", "digits", "finite", "syntax") and str(exc)
        return
    reach.saw(True, change.split()[0])
    assert nesting_depth(value) <= SMALL.max_depth
    _strict(durable.dumps(value))  # whatever was accepted can be written back as valid JSON


def test_any_bytes_give_a_value_or_a_named_refusal():
    reach = Reach("JSON bytes")
    _fuzz_bytes(reach)
    reach.check()


@FUZZ
@given(case=any_documents)
def _fuzz_text(reach: Reach, case) -> None:
    data, _change = case
    text = data.decode("utf-8", "replace")
    try:
        value = durable.loads(text, limits=SMALL)
    except UntrustedJSON:
        reach.saw(False)
        return
    reach.saw(True)
    assert value == json.loads(text)  # what passes reads as the standard library reads it


def test_any_text_gives_a_value_or_a_named_refusal():
    reach = Reach("JSON text")
    _fuzz_text(reach)
    reach.check()


def _long_integers(value) -> bool:
    """Whether `value` holds an integer longer than the reader's digit cap (durable writes those; it reads none)."""
    if isinstance(value, dict):
        return any(_long_integers(v) for v in value.values())
    if isinstance(value, list):
        return any(_long_integers(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and len(str(abs(value))) > JsonLimits().max_digits


@st.composite
def with_a_non_finite(draw: st.DrawFn, value):
    """(`value`, or a copy with one place, at any depth, holding NaN or an infinity; whether it does)."""
    places = json_paths(value)
    if not places or draw(st.booleans()):
        return value, False
    changed = copy.deepcopy(value)
    *above, key = draw(st.sampled_from(places))
    parent = changed
    for step in above:
        parent = parent[step]
    parent[key] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    return changed, True


# mutated_json changes the parts of an object: a document as a record is one, of any values.
documents_of_values = st.dictionaries(st.text(max_size=8), st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10), min_size=1, max_size=4)


@FUZZ
@given(case=documents_of_values.flatmap(lambda document: mutated_json(document) | with_a_non_finite(document).map(
    lambda case: (case[0], "non-finite" if case[1] else "none"))))
def _fuzz_round_trip(reach: Reach, case) -> None:
    value, change = case
    try:
        text = durable.dumps(value)
    except JSONUnwritable:  # a hostile NaN or infinity
        reach.saw(False, "unwritable")
        return
    assert _strict(text) == value
    try:
        read = durable.loads(text)
    except JSONNumberTooLong:
        reach.saw(False, "digits")
        assert _long_integers(value)
        return
    reach.saw(True, change.split()[0])
    assert read == value


def test_what_we_write_reads_back_the_same():
    reach = Reach("JSON round trip")
    _fuzz_round_trip(reach)
    reach.check()


@FUZZ
@given(case=values.flatmap(with_a_non_finite))
def _fuzz_writer(reach: Reach, case) -> None:
    value, non_finite = case
    try:
        text = durable.dumps(value)
    except JSONUnwritable as exc:
        reach.saw(False, "non-finite")
        assert non_finite and "not JSON compliant" in str(exc)
        return
    reach.saw(True)
    assert not non_finite and _strict(text) == value


def test_the_writer_writes_valid_json_or_refuses_by_name():
    reach = Reach("JSON writer")
    _fuzz_writer(reach)
    reach.check()


@pytest.mark.parametrize("text, error, cap", [
    ("[" * 100_000 + "]" * 100_000, JSONTooDeep, "depth"),  # far past the C parser's own guard
    ("[" * 101 + "]" * 101, JSONTooDeep, "depth"),
    ("1" + "0" * 400, JSONNumberTooLong, "digits"),  # the 401-digit integer of round 2, row 6
    ("-" + "9" * 101, JSONNumberTooLong, "digits"),
    ("1e999", JSONNotFinite, "finite"),
    ("-1e999", JSONNotFinite, "finite"),
    ("[NaN]", JSONMalformed, "syntax"),
    ('{"a": Infinity}', JSONMalformed, "syntax"),
    ("{'a': 1}", JSONMalformed, "syntax"),
    ("", JSONMalformed, "syntax"),
])
def test_each_cap_is_its_own_named_error(text, error, cap):
    with pytest.raises(error) as raised:
        durable.loads(text)
    assert raised.value.cap == cap and isinstance(raised.value, UntrustedJSON)


def test_the_limits_are_inclusive_and_bytes_are_utf8():
    assert durable.loads("[" * 100 + "]" * 100) is not None  # exactly the default depth
    assert durable.loads("9" * 100) == int("9" * 100)
    assert durable.loads(b"\xef\xbb\xbf{\"a\": 1}") == {"a": 1}  # a BOM
    assert durable.loads('{"x": 1.7e308}') == {"x": 1.7e308}  # finite: the reader lets it through; graders bound it
    with pytest.raises(JSONMalformed, match="not UTF-8"):
        durable.loads(b'"\xff"')
    with pytest.raises(JSONTooLarge):
        durable.loads(b" " * 4097 + b"1", limits=SMALL)
    with pytest.raises(JSONTooLarge):
        durable.loads("\u00e9" * 3000, limits=SMALL)  # 6,000 bytes of UTF-8 in 3,000 characters


def test_the_writer_refuses_nan_and_infinity_everywhere_it_writes(tmp_path):
    for value in (math.nan, {"f1": math.inf}, [1, -math.inf]):
        with pytest.raises(JSONUnwritable):
            durable.dumps(value)
        with pytest.raises(JSONUnwritable):
            durable.write_json(tmp_path / "x.json", value)
        with pytest.raises(JSONUnwritable):
            durable.Journal(tmp_path / "x.jsonl").append(value)
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "x.jsonl").exists()


def test_a_journal_line_past_a_cap_is_damage_not_a_traceback(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n" + b'{"n": 1' + b"0" * 500 + b"}\n{}\n")
    with pytest.raises(durable.JournalDamaged, match="line 1"):
        durable.Journal(path).entries()


# --- pinned by mutation testing (bench/mutation.py): each test kills a planted bug the ones above let through ---


def test_nesting_depth_counts_dicts_and_lists_and_a_scalar_is_zero():
    assert nesting_depth(7) == 0 and nesting_depth("x") == 0
    assert nesting_depth({"a": 1}) == 1 and nesting_depth([1]) == 1
    assert nesting_depth({"a": {"b": [1]}}) == 3 and nesting_depth([{"a": []}, 2]) == 3


def test_each_refusal_says_what_was_read_and_why():
    with pytest.raises(JSONNumberTooLong, match=r"^JSON text: a number of 21 digits \(the cap is 20\)$"):
        durable.loads("1" * 21, limits=SMALL)
    with pytest.raises(JSONMalformed, match=r"^JSON text is not valid JSON: NaN is not a JSON number$"):
        durable.loads("NaN")
    # An overflowing literal is quoted, cut at 40 characters: enough to find it, never the whole of a long one.
    literal = "1" + "0" * 45 + "e999"
    with pytest.raises(JSONNotFinite) as raised:
        durable.loads(literal, what="truth.json")
    assert str(raised.value) == f"truth.json: {literal[:40]} is too large for a finite number"


def test_read_json_reads_a_file_within_its_caps_and_names_the_file(tmp_path):
    path = tmp_path / "value.json"
    path.write_bytes(b'{"a": [1, 2.5]}')
    assert durable.read_json(path) == {"a": [1, 2.5]}
    assert durable.read_json(path, limits=JsonLimits(max_bytes=15)) == {"a": [1, 2.5]}  # exactly the cap
    with pytest.raises(JSONTooLarge, match=f"^{re.escape(str(path))} is over 14 bytes$"):
        durable.read_json(path, limits=JsonLimits(max_bytes=14))
    path.write_bytes(b"[" * 9 + b"]" * 9)
    with pytest.raises(JSONTooDeep, match=f"^{re.escape(str(path))} nests 9 levels deep"):
        durable.read_json(path, limits=SMALL)


def test_the_size_cap_and_the_parse_errors_name_their_cap_and_place():
    for data in (b"1" * 4097, "1" * 4097, "\u00e9" * 3000):
        with pytest.raises(JSONTooLarge, match=r"^JSON text is over 4096 bytes$") as raised:
            durable.loads(data, limits=SMALL)
        assert raised.value.cap == "bytes"
    with pytest.raises(JSONMalformed, match=r"^JSON text is not valid JSON: Expecting value \(line 2, column 3\)$"):
        durable.loads('[1,\n  ]')
    with pytest.raises(JSONTooDeep, match=r"^JSON text nests too deeply to parse \(the cap is 100\)$"):
        durable.loads("[" * 100_000 + "]" * 100_000)


def test_read_json_reads_bytes_so_a_bad_byte_is_a_named_refusal(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(JSONMalformed, match="is not UTF-8"):
        durable.read_json(path)


def test_dumps_passes_each_layout_option_through():
    value = {"b": 1, "a": "\u00e9"}
    assert durable.dumps(value) == '{"b": 1, "a": "\\u00e9"}'  # insertion order, ASCII, spaced
    assert durable.dumps(value, sort_keys=True) == '{"a": "\\u00e9", "b": 1}'
    assert durable.dumps(value, ensure_ascii=False) == '{"b": 1, "a": "\u00e9"}'
    assert durable.dumps(value, separators=(",", ":")) == '{"b":1,"a":"\\u00e9"}'
    assert durable.dumps([1], indent=2) == "[\n  1\n]"
