"""A task's grade, declared once as a typed value: its headline, the metrics its report shows with an
interval, and the groups it is broken down by (load band, family).

The records keep a grade as the mapping its grader wrote (`metrics` of a ladder check and of a run's outcome),
stamped with the grade's version, so a batch of any age reads the same. What the task and the report see is the
typed value, decoded at one place: `read_grade(GradeType, mapping)`. A grade is a frozen dataclass whose fields
are read from the mapping by their names (or `field(metadata=key("n"))`), leniently as the report always read
them: a number that is not one is None, a count that is not one is 0, a part that is not a mapping is left out.
A record written by a newer grade than this code knows is refused by name (GradeTooNew).

The report's core (bakeoff.analysis.core, bakeoff.report.core) reads the declarations alone: each model's mean
of every declared metric over its scored runs, with its interval, and a table per declared breakdown; a task
writes report code only for what is its own.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from bakeoff.errors import BakeoffError
from bakeoff.records.stage import final_check
from bakeoff.taskapi.headline import HeadlineSpec

if TYPE_CHECKING:
    from bakeoff.batchfolder.read import RunRecords

VERSION_KEY = "grade_version"  # beside the grader's figures in the records; absent: version 1 (older batches)
G = TypeVar("G", bound="Grade")


class GradeTooNew(BakeoffError):
    """A record's grade was written by a newer version of its task's grade than this bakeoff reads."""


def key(name: str) -> dict[str, str]:
    """A field's metadata naming the key it is read from, where the two differ."""
    return {"key": name}


@dataclass(frozen=True)
class Metric:
    """A figure of the grade the report shows per model with its interval (and per group of a breakdown)."""

    name: str  # the grade's field (and the column's name)
    kind: str  # how its column is shown (bakeoff.report.tables.Column: pct, f4...)


@dataclass(frozen=True)
class Breakdown:
    """A group the grade is broken down by: `field` of the grade maps each group's name to its part (a grade of
    its own kind, holding the metrics named here), shown in `order`; the core reports a table of it."""

    field: str  # the grade's field of parts, e.g. bands
    column: str  # the table's column naming the group, e.g. band
    order: tuple[str, ...]  # the groups in the order tables show them
    metrics: tuple[Metric, ...]
    table: str  # the CSV's name
    title: str


@dataclass(frozen=True)
class Grade:
    """The base of a task's grade. A task's grade sets the class attributes and declares its fields."""

    version: ClassVar[int] = 1
    headline: ClassVar[HeadlineSpec]  # its name is the grade's field that is the headline
    metrics: ClassVar[tuple[Metric, ...]] = ()  # reported per model with an interval, in this order
    breakdowns: ClassVar[tuple[Breakdown, ...]] = ()

    @classmethod
    def stamped(cls, figures: dict[str, Any] | None) -> dict[str, Any] | None:
        """The grader's figures as the records keep them: with this grade's version."""
        return None if figures is None else {**figures, VERSION_KEY: cls.version}

    def value(self, name: str) -> float | None:
        """A declared metric's value (None where the run has none)."""
        found = getattr(self, name)
        return found if isinstance(found, (int, float)) else None

    @property
    def headline_value(self) -> float | None:
        return self.value(self.headline.name)

    def part(self, breakdown: Breakdown, group: str) -> Any:
        """The grade's part for one group of a breakdown (None where it has none)."""
        return getattr(self, breakdown.field).get(group)


def read_grade(cls: type[G], data: object) -> G | None:
    """The grade of type `cls` in a record's figures; None when they hold none (no figures, another task's, or
    a grade that never reached its headline's key)."""
    if not isinstance(data, Mapping) or cls.headline.name not in data:
        return None
    version = data.get(VERSION_KEY, 1)  # the version key is bakeoff's own, not the grader's data
    if isinstance(version, int) and version > cls.version:
        raise GradeTooNew(f"a grade of version {version} is newer than this bakeoff's ({cls.__name__} "
                          f"{cls.version}): upgrade bakeoff to read this batch")
    return _decode(cls, data)


def _decode(cls: type[Any], data: Mapping[str, Any]) -> Any:
    """A dataclass of `cls` from a mapping, each field by its declared type."""
    hints = _hints(cls)
    found = {}
    for f in dataclasses.fields(cls):
        if f.init:
            found[f.name] = _value(hints[f.name], data.get(f.metadata.get("key", f.name)))
    return cls(**found)


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    """A dataclass's field types, resolved once per class."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _value(hint: Any, raw: object) -> Any:
    """One field's value read leniently by its type (what the report has always done with these figures)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, _UNION) and len(args) == 2 and type(None) in args:  # an optional part
        inner = next(a for a in args if a is not type(None))
        if dataclasses.is_dataclass(inner):
            hint = inner
    if dataclasses.is_dataclass(hint):
        return _decode(hint, raw) if isinstance(raw, Mapping) else None  # type: ignore[arg-type]
    if origin in (Mapping, dict):
        inner = args[1]
        if not isinstance(raw, Mapping):
            return {}
        if dataclasses.is_dataclass(inner):
            return {str(k): _decode(inner, v) for k, v in raw.items() if isinstance(v, Mapping)}  # type: ignore[arg-type]
        return {str(k): _value(inner, v) for k, v in raw.items()}
    if origin is tuple:
        rows = raw if isinstance(raw, (list, tuple)) else ()
        return tuple(_decode(args[0], r) for r in rows if isinstance(r, Mapping))
    if hint is int:
        number = _number(raw)
        return int(number) if number is not None else 0
    kinds = set(args) - {type(None)} if origin in (typing.Union, _UNION) else {hint}
    if kinds == {int}:  # a count that may be missing
        number = _number(raw)
        return int(number) if number is not None else None
    if kinds <= {float, int}:
        return _number(raw)
    if kinds == {str}:
        return raw if isinstance(raw, str) else None
    if kinds == {bool}:
        return raw if isinstance(raw, bool) else None
    raise TypeError(f"a grade cannot declare a field of type {hint}")


_UNION = type(int | None)


def final_grade(records: RunRecords, cls: type[G]) -> G | None:
    """The grade of a run's final check: run.json's outcome where it holds one, else the last check recorded
    (a run that has not ended has no outcome yet)."""
    outcome = records.run.outcome if records.run is not None else None
    found = read_grade(cls, outcome.metrics) if outcome is not None else None
    if found is not None:
        return found
    check = final_check(records.stages)  # the run's final check, as the runner reads it (bakeoff.records.stage)
    return read_grade(cls, check.metrics) if isinstance(check.metrics, Mapping) else None
