"""Records to and from their JSON by one library (msgspec): the fields a record class declares are its JSON.

Reading converts the JSON value that durable's capped reader gave (bakeoff.batchfolder.files: its size, depth and
digit caps apply before any record is built) into the record's class. msgspec checks every field's type, refuses
a missing one, and ignores a key the class does not know (docs/records.md: a newer bakeoff of the same schema may
add keys). Its refusal becomes a DamagedRecord saying where and what, in the records' own words ("'check.metrics'
is not an object", "missing key(s) prompt.messages[0].role").

Writing walks the fields in their order. A class says which fields are written only when set (`WRITTEN_WHEN_SET`:
left out at their default, as older records were written) and which derived values are written beside them
(`DERIVED`, such as a check's `rung_name`); nothing else is spelled per field.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Any, ClassVar, TypeVar

import msgspec

from bakeoff.records.errors import DamagedRecord, UnknownRecordSchema

JsonObject = dict[str, Any]
T = TypeVar("T")
R = TypeVar("R", bound="JsonRecord")
TopT = TypeVar("TopT", bound="TopRecord")

# What msgspec calls a JSON kind, in the words a damaged record's message uses.
KIND_WORDS = {"object": "an object", "array": "a list", "str": "a string", "int": "a whole number",
              "float": "a number", "bool": "true or false", "null": "null"}
AT = re.compile(r" - at `\$([^`]*)`")
STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


class JsonRecord:
    """A record part whose JSON is its fields (a frozen dataclass): `to_json` and `from_json` by the library."""

    WRITTEN_WHEN_SET: ClassVar[tuple[str, ...]] = ()
    DERIVED: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> JsonObject:
        return encode(self)

    @classmethod
    def from_json(cls: type[R], data: Any, where: str = "") -> R:
        return decode(cls, data)


class TopRecord(JsonRecord):
    """A record that is a whole file: its JSON starts with its `schema` tag, checked before anything is read.

    `READ_DEFAULTS` are the values of the keys a reader never needed (a record made by hand, or by an older
    bakeoff, may leave them out) where the constructor has no default for them."""

    SCHEMA: ClassVar[str]
    READ_DEFAULTS: ClassVar[Mapping[str, Any]] = {}

    @classmethod
    def schemas(cls) -> tuple[str, ...]:
        return (cls.SCHEMA,)

    def to_json(self) -> JsonObject:
        return {"schema": self.SCHEMA, **encode(self)}

    @classmethod
    def from_json(cls: type[TopT], data: Any, where: str = "") -> TopT:
        if not isinstance(data, Mapping):
            raise DamagedRecord("the record is not an object")
        check_schema(data, cls.schemas(), where)
        return decode(cls, {**cls.READ_DEFAULTS, **data})


def check_schema(data: Mapping[str, Any], known: tuple[str, ...], where: str = "") -> str:
    """The record's schema tag when it is one of `known`; UnknownRecordSchema for another one.

    A record without a tag is a DamagedRecord (every record bakeoff ever wrote has one).
    """
    if "schema" not in data:
        raise DamagedRecord("missing key(s) schema")
    schema = data["schema"]
    if schema not in known:
        raise UnknownRecordSchema(schema, known, where)
    return str(schema)


def decode(kind: type[T], data: Any, where: str = "") -> T:
    """`data` (a JSON value) as a `kind`; DamagedRecord naming the first key that is missing or of the wrong type.

    `where` is the path of `data` inside its record, for a part read on its own."""
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        raise DamagedRecord(explain(kind, str(exc), where)) from None
    except UnicodeEncodeError:  # msgspec encodes a text to match it against an enum: a lone surrogate cannot be
        raise DamagedRecord(f"{where or kind.__name__}: a text that is not valid Unicode (a lone surrogate)") from None


def decode_or_none(kind: type[T], data: Any, where: str = "") -> T | None:
    """`decode` for a part a reader may go without: None where `data` is not an object, or not of this shape."""
    if not isinstance(data, Mapping):
        return None
    try:
        return decode(kind, data, where)
    except DamagedRecord:
        return None


def encode(record: Any) -> JsonObject:
    """A record's JSON object: its fields in order (those written only when set left out at their default),
    then its derived values."""
    kind = type(record)
    skip_default = getattr(kind, "WRITTEN_WHEN_SET", ())
    data: JsonObject = {}
    for field in dataclasses.fields(record):
        value = getattr(record, field.name)
        if field.name in skip_default and value == _default(field):
            continue
        data[field.name] = json_value(value)
    for name in getattr(kind, "DERIVED", ()):
        data[name] = json_value(getattr(record, name))
    return data


def json_value(value: Any) -> Any:
    """A value as the JSON it is written as: records as objects, enums as their values, tuples as lists."""
    if isinstance(value, JsonRecord):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {key: json_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(item) for item in value]
    return value


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def explain(kind: type, message: str, where: str = "") -> str:
    """msgspec's refusal as a damaged record's message: the key's path, what is wrong, and the record field."""
    paths = AT.findall(message)
    core = AT.sub("", message)
    path = where + "".join(reversed(paths))
    missing = re.fullmatch(r"Object missing required field `(.+)`", core)
    if missing:
        return f"missing key(s) {_join(path, missing.group(1))}"
    shown = path.lstrip(".") or "the record"
    owner, name, hint = _resolve(kind, path)
    field = f" ({_snake(owner.__name__)}.{name})" if owner is not None else ""
    expected = re.fullmatch(r"Expected `(.+)`, got `(.+)`", core)
    if expected:
        words = " or ".join(KIND_WORDS.get(word, word) for word in expected.group(1).split(" | "))
        return f"'{shown}' is not {words} (got {expected.group(2)}){field}"
    enum = re.fullmatch(r"Invalid enum value (.+)", core)
    if enum:
        allowed = ", ".join(str(member.value) for member in _enum_of(hint))
        return f"'{shown}' is {enum.group(1)}, not one of {allowed}{field}"
    return f"'{shown}': {core}{field}"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}".lstrip(".")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _resolve(kind: type, path: str) -> tuple[type | None, str, Any]:
    """The record class that holds the field at `path` (`.turns[0].effect`), the field's name and its type."""
    owner: type | None = None
    name, hint = "", kind
    for key, index in STEP.findall(path):
        hint = _without_none(hint)
        if index:
            args = typing.get_args(hint)
            hint = args[0] if args else Any
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
            owner, name, hint = hint, key, _hints(hint).get(key, Any)
        else:
            return None, "", Any
    return owner, name, hint


def _without_none(hint: Any) -> Any:
    args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    return args[0] if typing.get_origin(hint) in (typing.Union, _UNION) and len(args) == 1 else hint


def _enum_of(hint: Any) -> list[Enum]:
    hint = _without_none(hint)
    return list(hint) if isinstance(hint, type) and issubclass(hint, Enum) else []


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)


_UNION = type(int | None)
