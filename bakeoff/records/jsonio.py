"""Reading JSON values into records: the schema check and the few shape checks every record shares.

Unknown keys are ignored on read (docs/records.md: new fields may be added, so a folder written by a
newer bakeoff of the same schema still reads); a key a record needs that is missing, or a value of the
wrong kind, is a DamagedRecord naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any, TypeVar

from bakeoff.records.errors import DamagedRecord, UnknownRecordSchema

JsonObject = dict[str, Any]
E = TypeVar("E", bound=StrEnum)
T = TypeVar("T")


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


def as_object(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DamagedRecord(f"'{name}' is not an object")
    return value


def as_list(value: Any, name: str) -> Sequence[Any]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise DamagedRecord(f"'{name}' is not a list")
    return value


def enum_value(kind: type[E], value: Any, name: str) -> E:
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(member.value for member in kind)
        raise DamagedRecord(f"'{name}' is {value!r}, not one of {allowed}") from None


def optional_enum(kind: type[E], value: Any, name: str) -> E | None:
    return None if value is None else enum_value(kind, value, name)


def optional(read: Callable[[Mapping[str, Any]], T], value: Any, name: str) -> T | None:
    """`read(value)` for an object, None for null (or an absent key)."""
    return None if value is None else read(as_object(value, name))


def items(read: Callable[[Mapping[str, Any]], T], value: Any, name: str) -> tuple[T, ...]:
    return tuple(read(as_object(entry, name)) for entry in as_list(value, name))


def guarded(read: Callable[[], T], kind: str) -> T:
    """`read()`, with any slip on a malformed value (a list where an object was expected...) a DamagedRecord."""
    try:
        return read()
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise DamagedRecord(f"not a {kind} record: {type(exc).__name__}: {exc}") from None


def read_record(data: Mapping[str, Any], keys: tuple[str, ...], schemas: tuple[str, ...], where: str,
                read: Callable[[Mapping[str, Any]], T], kind: str) -> T:
    """A top-level record: its required `keys` present, its schema one of `schemas`, then `read(data)` guarded."""
    required(data, *keys)
    check_schema(data, schemas, where)
    return guarded(lambda: read(data), kind)


def required(data: Mapping[str, Any], *keys: str) -> None:
    missing = [key for key in keys if key not in data]
    if missing:
        raise DamagedRecord(f"missing key(s) {', '.join(missing)}")
