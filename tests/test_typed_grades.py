"""A task's grade is declared once as a typed value (bakeoff.taskapi.grade): decoded from the records' mapping at
one place, and reported by the core from its declarations alone. A toy grade with a breakdown gets its table per
model and group from the core, with no report code of its own."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pytest

from bakeoff.analysis.core import GRADED, RunCore, summarise_core
from bakeoff.records import Claim
from bakeoff.report.core import core_section
from bakeoff.taskapi.grade import VERSION_KEY, Breakdown, Grade, GradeTooNew, Metric, read_grade
from bakeoff.taskapi.headline import HeadlineSpec
from bakeoff.tasks.registry import task_names, task_plugin

TOY_HEADLINE = HeadlineSpec("accuracy", "accuracy", higher_is_better=True, tolerance=0.01, failed_value=0.0)
FAMILIES = ("easy", "hard")


@dataclass(frozen=True)
class FamilyPart:
    accuracy: float | None
    items: int


@dataclass(frozen=True)
class ToyGrade(Grade):
    version = 2
    headline = TOY_HEADLINE
    metrics = (Metric("accuracy", "pct"),)
    breakdowns = (Breakdown("families", "family", FAMILIES, (Metric("accuracy", "pct"),), "toy_families",
                            "Per model and family: accuracy"),)

    accuracy: float | None
    items: int
    families: Mapping[str, FamilyPart]


def _figures(accuracy: float, easy: float, hard: float | None) -> dict:
    families = {"easy": {"accuracy": easy, "items": 3}}
    if hard is not None:
        families["hard"] = {"accuracy": hard, "items": 2}
    return {"accuracy": accuracy, "items": 5, "families": families}


def _run(model: str, seed: int, figures: dict | None) -> RunCore:
    grade = read_grade(ToyGrade, figures)
    scored = grade is not None
    return RunCore(run_id=f"{model}-{seed}", model=model, seed=seed, grading=GRADED, grading_reason=None, calls=1,
                   captured=1, uncaptured=0, unusable=0, exploration="executed",
                   outcome_status="scored" if scored else "crashed", rung=5 if scored else 1,
                   headline=grade.headline_value if grade else None, crash_class=None if scored else "other",
                   crash_detail=None, repair_turns=(), claim=Claim(None), grade=grade)


def test_a_grade_is_read_typed_from_the_records_mapping_leniently():
    grade = read_grade(ToyGrade, {**_figures(0.8, 1.0, 0.5), "items": "five", "extra": 1})
    assert grade is not None and grade.accuracy == 0.8 and grade.items == 0  # a count that is not one is 0
    assert grade.families["hard"] == FamilyPart(0.5, 2) and grade.headline_value == 0.8
    assert read_grade(ToyGrade, {"items": 3}) is None  # no headline: not this task's grade
    assert read_grade(ToyGrade, None) is None


def test_the_records_keep_the_grades_version_and_a_newer_one_is_refused_by_name():
    stamped = ToyGrade.stamped(_figures(0.8, 1.0, 0.5))
    assert stamped is not None and stamped[VERSION_KEY] == 2 and read_grade(ToyGrade, stamped) is not None
    assert read_grade(ToyGrade, _figures(0.8, 1.0, 0.5)) is not None  # an older batch has no version: 1
    with pytest.raises(GradeTooNew, match="newer"):
        read_grade(ToyGrade, {**stamped, VERSION_KEY: 3})


def test_the_core_reports_a_declared_breakdown_with_no_report_code_of_the_task():
    runs = [_run("a", 1, _figures(0.8, 1.0, 0.5)), _run("a", 2, _figures(0.6, 0.8, None)),
            _run("b", 1, _figures(0.4, 0.5, 0.2)), _run("b", 2, None)]
    summary = summarise_core(runs, ["a", "b"], TOY_HEADLINE, 0, ToyGrade)
    a, b = summary.grade_of("a"), summary.grade_of("b")
    assert a is not None and b is not None and (a.scored, b.scored) == (2, 1)
    assert a.metric("accuracy").mean == pytest.approx(0.7) and a.in_group("families", "hard", "accuracy").n == 1
    tables = {t.name: t for t in core_section(summary).tables}
    table = tables["toy_families"]
    assert table.title == "Per model and family: accuracy"
    assert [c.name for c in table.columns] == ["model", "family", "accuracy", "accuracy_low", "accuracy_high"]
    rows = {(row[0], row[1]): row[2] for row in table.rows}
    assert rows == {("a", "easy"): pytest.approx(0.9), ("a", "hard"): 0.5, ("b", "easy"): 0.5, ("b", "hard"): 0.2}


def test_without_a_declared_grade_the_core_adds_no_breakdown():
    summary = summarise_core([_run("a", 1, _figures(0.8, 1.0, 0.5))], ["a"], TOY_HEADLINE, 0)
    assert summary.grades == () and {t.name for t in core_section(summary).tables} == {
        "crash_taxonomy", "repair_turns", "paired_comparisons"}


@pytest.mark.parametrize("name", task_names())
def test_every_tasks_grade_declares_the_tasks_headline(name):
    plugin = task_plugin(name)
    assert plugin.grade_type is not None and plugin.grade_type.headline == plugin.headline
