"""Why a model scored nothing or little, and each row's margin over the next (issue 38, points 5 and 10).

A scripted batch: one model's code answers time out, another's are cut off at the token limit, one scores and one
does both. The why lines name each cause with its counts and the plan setting that changes it, the same words in
report.md's first screen, `bakeoff status` and the live display's end; a model that scored has none. The report's
ranked table gives each row's paired advantage over the next row with its interval and, where the interval holds
zero, about how many runs per model would separate it; the figures are checked against a hand computation.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from pathlib import Path

import pytest
from analysis_factory import FakeRun, change_stage, write_batch
from click.testing import CliRunner
from rich.console import Console

from bakeoff.analysis.margins import runs_to_separate
from bakeoff.analysis.why import WHY_HEADING
from bakeoff.cli import main
from bakeoff.cli.batch import closing_lines
from bakeoff.records import Capture, CaptureReason, CaptureStatus, CompletionRecord
from bakeoff.runner.batch import BatchStart
from bakeoff.runner.plan import ModelEntry, RunSlot
from bakeoff.runner.progress import LiveProgress
from bakeoff.tasks import report_batch
from bakeoff.tasks.registry import task_plugin
from bakeoff.tasks.spam_classifier.words import HEADLINE

SLOW = "slow: scored 0 of 3 runs: 3 of 6 calls timed out at 600 s; change: [task_settings] model_timeout_s (now 600)."
LONG = ("long: scored 0 of 3 runs: 3 of 6 calls cut off at the 6,144-token limit; change: [task_settings.max_tokens] "
        "implement (now 4,096) and [task_settings.reasoning_tokens] implement (now 6,144).")
MIXED = ("mixed: scored 0 of 4 runs: 2 of 7 calls cut off at the 6,144-token limit; 1 timed out at 600 s; 1 of 4 runs "
         "crashed on module_not_found; change: [task_settings.max_tokens] implement (now 4,096) and "
         "[task_settings.reasoning_tokens] implement (now 6,144); [task_settings] model_timeout_s (now 600); "
         "[task_settings] repair_turns (now 1).")


def timed_out(model: str, index: int) -> FakeRun:
    """The code's answer never came: the call timed out (uncaptured, never graded)."""
    return FakeRun(model, index, f1=None, rung=0, status="no_script", implement_attribution="uncaptured",
                   implement_capture=Capture(CaptureStatus.UNCAPTURED, CaptureReason.TIMEOUT, "timed out after 600 s"))


def cut_off(model: str, index: int) -> FakeRun:
    """The code's answer came back cut at the harness's token budget (unusable: nothing to run)."""
    answer = CompletionRecord(text="```python\nimport", finish_reason="length", prompt_tokens=900,
                              completion_tokens=6144, prompt_seconds=1.0, generation_seconds=60.0,
                              backend="scripted:fixture", token_budget=6144)
    return FakeRun(model, index, f1=None, rung=0, status="no_script", implement_attribution="unusable",
                   implement_capture=Capture(CaptureStatus.UNUSABLE, CaptureReason.CUT_OFF, "stopped", budget_cut=True),
                   implement_completion=answer)


# The paired advantage of `good` over `close` on four shared seeds, and of `close` over `mixed`, by hand.
GOOD_F1 = (0.70, 0.72, 0.74, 0.76)
CLOSE_F1 = (0.69, 0.73, 0.72, 0.77)


def scripted_runs() -> list[FakeRun]:
    runs = [timed_out("slow", i) for i in (1, 2, 3)] + [cut_off("long", i) for i in (1, 2, 3)]
    runs += [FakeRun("good", i, f1=f) for i, f in enumerate(GOOD_F1, 1)]
    runs += [FakeRun("close", i, f1=f) for i, f in enumerate(CLOSE_F1, 1)]
    runs += [timed_out("mixed", 1), cut_off("mixed", 2), cut_off("mixed", 3),
             FakeRun("mixed", 4, f1=None, rung=2, status="crashed", crash_class="module_not_found")]
    return runs


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    return write_batch(tmp_path_factory.mktemp("why") / "batch", scripted_runs())


@pytest.fixture(scope="module")
def report(batch, tmp_path_factory) -> Path:
    return report_batch(batch, tmp_path_factory.mktemp("report") / "report").folder


def test_each_model_that_scored_little_gets_its_cause_with_counts_and_the_setting(batch):
    lines = closing_lines(batch, task_plugin("spam_classifier"))
    assert lines == [WHY_HEADING, SLOW, LONG, MIXED]  # good and close scored: no line


def test_the_reports_first_screen_has_the_why_lines_under_the_scores(report):
    text = (report / "report.md").read_text(encoding="utf-8")
    scores, findings = text.index("## Scores:"), text.index("## Findings")
    for line in (SLOW, LONG, MIXED):
        assert scores < text.index(f"- {line}") < findings
    assert "- good: scored" not in text and "- close: scored" not in text
    html = (report / "report.html").read_text(encoding="utf-8")
    scores_section = html[html.index('<section id="scores">'):html.index('<section id="findings">')]
    assert "slow: scored 0 of 3 runs: 3 of 6 calls timed out at 600 s" in scores_section


def test_no_finding_says_every_answer_was_uncaptured_when_some_calls_came_back(report):
    text = (report / "report.md").read_text(encoding="utf-8")
    assert "slow: every answer was uncaptured" not in text  # its explore answers came back
    assert "slow: no run was graded: the answer meant to hold the code never came back in any of its 3 runs" in text


def test_status_ends_with_the_why_lines(batch):
    result = CliRunner().invoke(main, ["status", str(batch)])
    assert result.exit_code == 0, result.output
    tail = result.output.splitlines()[-4:]
    assert tail == [WHY_HEADING, SLOW, LONG, MIXED]


def test_the_live_display_ends_with_the_why_lines(batch):
    out = io.StringIO()
    console = Console(file=out, width=80, height=40, force_terminal=False, color_system=None)
    progress = LiveProgress(console, HEADLINE, None, stamp=lambda: "T",
                            closing=lambda: closing_lines(batch, task_plugin("spam_classifier")))
    with progress:
        progress.run_started(RunSlot(ModelEntry("slow", "scripted:slow"), 1, 1))
    lines = out.getvalue().splitlines()
    assert lines[-4:] == [f"T {line}" for line in (WHY_HEADING, SLOW, LONG, MIXED)]  # off a terminal: stamped


def test_an_interrupted_display_does_not_print_them(batch):
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False, color_system=None)
    progress = LiveProgress(console, HEADLINE, None, closing=lambda: ["never"])
    with pytest.raises(KeyboardInterrupt), progress:
        progress.run_started(RunSlot(ModelEntry("slow", "scripted:slow"), 1, 1))
        raise KeyboardInterrupt
    assert "never" not in out.getvalue()


def _hand_spread(diffs: list[float]) -> tuple[float, float]:
    mean = sum(diffs) / len(diffs)
    return mean, math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))


def test_the_margin_to_the_next_row_and_the_runs_needed_match_a_hand_computation(report):
    with open(report / "tables" / "leaderboard.csv", newline="", encoding="utf-8") as handle:
        rows = {row["model"]: row for row in csv.DictReader(handle)}
    assert rows["good"]["rank"] == "1" and rows["close"]["rank"] == "2"
    mean, spread = _hand_spread([g - c for g, c in zip(GOOD_F1, CLOSE_F1, strict=True)])  # 0.0025, about 0.015
    good = rows["good"]
    assert float(good["vs_next_difference"]) == pytest.approx(mean)
    assert float(good["vs_next_spread"]) == pytest.approx(spread)
    assert good["vs_next_seeds"] == "4"
    assert float(good["vs_next_low"]) <= 0 <= float(good["vs_next_high"])  # cannot be told apart on 4 seeds
    needed = math.ceil(((1.959964 + 0.841621) * spread / mean) ** 2)  # z of 0.975 and of 0.8 (80% power)
    assert int(good["runs_needed"]) == needed
    assert good["vs_next"] == f"+0.003 [{float(good['vs_next_low']):.3f}, {float(good['vs_next_high']):.3f}]"
    # close against the next row, long (ranked before mixed at the same 0.000: ties keep the plan's order), whose
    # three runs crashed (counted as zero): close's advantage is its own mean on seeds 1-3
    close = rows["close"]
    assert rows["long"]["rank"] == "3" and close["vs_next_seeds"] == "3"
    assert float(close["vs_next_difference"]) == pytest.approx(sum(CLOSE_F1[:3]) / 3)
    assert close["runs_needed"] == ""  # the interval excludes zero: nothing to separate
    text = (report / "report.md").read_text(encoding="utf-8")
    assert "runs_needed, where that interval holds zero: about how many runs per model" in text
    assert "80% power" in text


def test_runs_to_separate_is_the_normal_approximation():
    assert runs_to_separate(0.05, 0.1) == math.ceil(((1.959964 + 0.841621) * 2) ** 2)  # 31.4 -> 32
    assert runs_to_separate(-0.05, 0.1) == runs_to_separate(0.05, 0.1)
    assert runs_to_separate(0.0, 0.1) is None and runs_to_separate(0.05, None) is None
    assert runs_to_separate(0.05, 0.0) is None


def test_code_that_came_back_and_failed_is_the_cause_not_a_repair_answer_lost_after_it(tmp_path):
    lost = Capture(CaptureStatus.UNCAPTURED, CaptureReason.TRANSPORT_ERROR, "connection reset")
    runs = [FakeRun("fragile", i, f1=None, rung=2, status="crashed", crash_class="module_not_found",
                    implement_capture=Capture(CaptureStatus.CAPTURED, CaptureReason.OK),
                    turns=[(2, None, 2, None, "unchanged")]) for i in (1, 2)]
    folder = write_batch(tmp_path / "batch", runs)
    for run in runs:
        change_stage(folder, run.run_id, "repair",
                     lambda r: dataclasses.replace(r, turns=(dataclasses.replace(r.turns[0], capture=lost),)))
    assert closing_lines(folder, task_plugin("spam_classifier"))[1:] == [
        "fragile: scored 0 of 2 runs: 2 of 2 runs crashed on module_not_found; 2 of 6 calls were lost in transport; "
        "change: [task_settings] repair_turns (now 1); the endpoint or engine, not the model (`bakeoff check` tests it)."]


def test_an_uncaptured_run_without_a_recorded_audit_is_counted_by_run(tmp_path):
    lost = {"calls": 5, "captured": 0, "uncaptured": 5, "unusable": 0}
    runs = [FakeRun("mute", i, f1=None, rung=0, status="not_checked", implement_attribution="uncaptured", capture=lost,
                    design=None, probe=None, explore_exit=None) for i in (1, 2, 3)]
    lines = closing_lines(write_batch(tmp_path / "batch", runs), None)
    assert lines[1:] == ["mute: scored 0 of 3 runs: 3 of 3 runs never got the code's answer back; change: the endpoint "
                         "or engine, not the model (`bakeoff check` tests it)."]


@pytest.mark.parametrize("width", [80, 120])
def test_on_a_terminal_the_lines_follow_the_last_drawn_table(batch, width):
    out = io.StringIO()
    console = Console(file=out, width=width, height=40, force_terminal=True, color_system=None)
    progress = LiveProgress(console, HEADLINE, None, closing=lambda: closing_lines(batch, task_plugin("spam_classifier")))
    slot = RunSlot(ModelEntry("slow", "scripted:slow"), 1, 1)
    with progress:
        progress.batch_started(BatchStart((slot,)))
        progress.run_started(slot)
    text = out.getvalue()
    assert text.index("bakeoff batch:") < text.rindex(WHY_HEADING) < text.rindex(SLOW) < text.rindex(MIXED)


def test_the_interval_tasks_finding_says_every_answer_only_where_every_call_was_uncaptured():
    from types import SimpleNamespace

    from bakeoff.tasks.intervals.report import findings_by_model

    def model(capture_rate: float, unusable_rate: float) -> SimpleNamespace:
        return SimpleNamespace(model="m", all_uncaptured=True, uncaptured_runs=2, capture_rate=capture_rate,
                               unusable_rate=unusable_rate)

    assert findings_by_model([model(0.0, 0.0)], lambda m: []) == [
        "m: every answer was uncaptured (2 runs); it is not scored, not scored as zero."]
    assert findings_by_model([model(0.25, 0.5)], lambda m: []) == [
        "m: no run was graded: the answer meant to hold the code never came back in any of its 2 runs, while 25% of "
        "its calls were captured and 50% unusable; it is not scored, not scored as zero."]
