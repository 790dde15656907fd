"""Issue 38, point 5: a model whose runs were graded but at the headline's floor (a scripted model scoring F1 0.000
on every graded run) gets its why line too: it scored nothing, and the line says so and why, in the same words in
`bakeoff status`, the live display's end and the report's first screen. A model that scored above the floor has
none."""

from __future__ import annotations

import pytest
from analysis_factory import FakeRun, write_batch

from bakeoff.analysis.why import WHY_HEADING, at_floor
from bakeoff.cli.batch import closing_lines
from bakeoff.tasks import report_batch
from bakeoff.tasks.registry import task_plugin
from bakeoff.tasks.spam_classifier.words import HEADLINE

FLOOR = ("floor: scored 3 of 3 runs: 3 of 3 runs were graded at the floor (F1 0.000): the code ran and its answers "
         "earned nothing (its transcripts show what it did); no plan setting changes this.")
PARTLY = ("partly: scored 2 of 3 runs: 2 of 3 runs were graded at the floor (F1 0.000): the code ran and its answers "
          "earned nothing (its transcripts show what it did); 1 crashed on module_not_found; change: "
          "[task_settings] repair_turns (now 1).")


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    runs = [FakeRun("floor", i, f1=0.0) for i in (1, 2, 3)]
    runs += [FakeRun("fine", i, f1=f) for i, f in enumerate((0.70, 0.72, 0.75), 1)]
    runs += [FakeRun("partly", 1, f1=0.0), FakeRun("partly", 2, f1=0.0),
             FakeRun("partly", 3, f1=None, rung=2, status="crashed", crash_class="module_not_found")]
    runs += [FakeRun("low", i, f1=f) for i, f in enumerate((0.0, 0.1, 0.2), 1)]  # little, but above the floor
    return write_batch(tmp_path_factory.mktemp("floor") / "batch", runs)


def test_a_model_graded_at_the_floor_gets_a_why_line(batch):
    assert closing_lines(batch, task_plugin("spam_classifier")) == [WHY_HEADING, FLOOR, PARTLY]


def test_the_reports_first_screen_has_it(batch, tmp_path):
    text = (report_batch(batch, tmp_path / "report").folder / "report.md").read_text()
    assert FLOOR in text and PARTLY in text and text.find(WHY_HEADING) < text.find("## Findings")


def test_the_floor_is_the_worst_value_as_printed():
    assert at_floor(0.0, HEADLINE) and at_floor(0.0004, HEADLINE)
    assert not at_floor(0.001, HEADLINE) and not at_floor(1.0, HEADLINE) and not at_floor(0.0, None)
