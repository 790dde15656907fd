"""The record codec's messages pinned to their words (bakeoff/records/codec.py): the refusals a whole record meets
before its fields are read, and how `explain` turns msgspec's refusal into a path, a kind and the record field,
for the shapes of field the record classes use (a nested record, a list of them, a mapping, a bare list). Written
against the survivors of the codec's mutation run (docs/mutation.md); the small classes here stand for the records'
own so each path shape is named once."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import pytest

from bakeoff.records import DamagedRecord
from bakeoff.records.codec import TopRecord, check_schema, decode, explain
from bakeoff.records.errors import UnknownRecordSchema


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Inner:
    x: int
    colour: Colour = Colour.RED


@dataclass(frozen=True)
class Outer(TopRecord):
    SCHEMA = "outer/1"
    inner: Inner
    items: list[Inner] = field(default_factory=list)
    table: dict = field(default_factory=dict)
    bare: list = field(default_factory=list)


def refusal(kind: type, data: object) -> str:
    with pytest.raises(DamagedRecord) as raised:
        decode(kind, data)
    return str(raised.value)


def test_a_whole_record_that_is_not_an_object_or_has_no_tag_is_named_so():
    with pytest.raises(DamagedRecord) as raised:
        Outer.from_json([1, 2])
    assert str(raised.value) == "the record is not an object"
    with pytest.raises(DamagedRecord) as raised:
        Outer.from_json({"inner": {"x": 1}})
    assert str(raised.value) == "missing key(s) schema"
    with pytest.raises(UnknownRecordSchema) as unknown:
        Outer.from_json({"schema": "outer/2", "inner": {"x": 1}})
    assert str(unknown.value) == "record schema 'outer/2' is not one bakeoff reads (known: outer/1)"
    with pytest.raises(UnknownRecordSchema) as unknown:
        check_schema({"schema": "b"}, ("a",))
    assert str(unknown.value) == "record schema 'b' is not one bakeoff reads (known: a)"
    assert check_schema({"schema": "a"}, ("a",)) == "a"
    assert Outer.from_json({"schema": "outer/1", "inner": {"x": 1}}) == Outer(Inner(1))


def test_a_value_of_the_wrong_kind_names_its_path_and_the_record_field_that_holds_it():
    assert refusal(Outer, [1]) == "'the record' is not an object (got array)"
    assert refusal(Outer, {"inner": {"x": "one"}}) == "'inner.x' is not a whole number (got str) (inner.x)"
    assert refusal(Outer, {"inner": {"x": 1}, "items": [{"x": 1}, {"x": None}]}) == \
        "'items[1].x' is not a whole number (got null) (inner.x)"
    assert refusal(Outer, {"inner": {"x": 1}, "items": [{"x": 1, "colour": "green"}]}) == \
        "'items[0].colour' is 'green', not one of red, blue (inner.colour)"
    assert refusal(Outer, {"inner": {"x": 1}, "table": []}) == "'table' is not an object (got array) (outer.table)"


def test_explain_keeps_a_kind_it_has_no_words_for_and_leaves_a_field_inside_a_mapping_or_bare_list_unnamed():
    assert explain(Outer, "Expected `datetime`, got `int` - at `$.inner.x`") == \
        "'inner.x' is not datetime (got int) (inner.x)"
    assert explain(Outer, "Expected `int | null`, got `str` - at `$.inner.x`") == \
        "'inner.x' is not a whole number or null (got str) (inner.x)"
    # a key inside a plain mapping, or an item of a list of no declared type, is no record field
    assert explain(Outer, "Expected `int`, got `str` - at `$.table.f1`") == "'table.f1' is not a whole number (got str)"
    assert explain(Outer, "Expected `int`, got `str` - at `$.bare[0].x`") == "'bare[0].x' is not a whole number (got str)"


def test_explain_strips_only_the_leading_dot_of_a_path_or_a_missing_key():
    assert explain(Outer, "Object missing required field `Xkey` - at `$.inner`") == "missing key(s) inner.Xkey"
    assert explain(Outer, "Object missing required field `Xkey`") == "missing key(s) Xkey"
    assert explain(Outer, "Expected `int`, got `str` - at `$.Xa`") == "'Xa' is not a whole number (got str) (outer.Xa)"
    assert explain(Outer, "Expected `int`, got `str`", where=".inner.x") == \
        "'inner.x' is not a whole number (got str) (inner.x)"
