"""The live display of a batch (issue 27): drawn to the terminal's width at 80 and 120 columns with no line over
it and a title on one line; per run in flight its model, stage, time in the stage, tokens so far and tokens per
second; the last finished run's headline; time left from the first finished stage on; the runs finished before
a resume kept in the table, and what a resume keeps said above it. An interrupted batch says where it stopped,
journals `interrupted` and raises BatchInterrupted (exit 130)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from bakeoff.records import RunRecord
from bakeoff.runner.batch import BatchStart
from bakeoff.runner.plan import ModelEntry, RunSlot
from bakeoff.runner.progress import LiveProgress
from bakeoff.scaffolds.registry import scaffold_plugin
from bakeoff.tasks.spam_classifier.words import HEADLINE

AGENT_STAGES = {"agent": scaffold_plugin("agent").stages}  # the stages the batch hands the display, by scaffold


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(run_id: str, f1: float | None, status: str = "finished") -> RunRecord:
    outcome = ({"status": "scored", "rung": 5, "headline": {"name": "f1", "value": f1, "higher_is_better": True}}
               if f1 is not None else {"status": "crashed", "rung": 1, "crash_class": "module_not_found"})
    return RunRecord.from_json({"schema": "bakeoff.run/2", "run_id": run_id, "status": status, "timings": {},
                                "outcome": outcome, "error": "engine died" if status == "harness_failed" else None,
                                "tokens": {"prompt": 900, "completion": 321}})


def journal_line(path: Path, event: str, **fields) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"at": "2026-12-01T00:00:00+00:00", "event": event, **fields}) + "\n")


LONG = "qwen2.5-coder-14b-instruct-q4_k_m-reasoning-off"  # a long label: cells are cut, never the lines


def slots() -> list[RunSlot]:
    models = [ModelEntry("default", "default"), ModelEntry(LONG, "gguf:/m/x.gguf")]
    return [RunSlot(model, index, index) for index in (1, 2, 3) for model in models]


def display_after_a_resume(tmp_path: Path, width: int) -> tuple[LiveProgress, Clock, io.StringIO]:
    journal = tmp_path / "events.jsonl"
    journal.write_text("")
    clock = Clock()
    out = io.StringIO()
    console = Console(file=out, width=width, height=40, force_terminal=False, color_system=None)
    progress = LiveProgress(console, HEADLINE, journal, clock)
    order = slots()
    start = BatchStart(tuple(order), finished={"default-r01": record("default-r01", 0.7123)},
                       partial={f"{LONG}-r01": ("explore", "decide")})
    progress.batch_started(start)
    progress.run_started(order[1])  # the long label's first run, resumed
    journal_line(journal, "stage_started", run_id=f"{LONG}-r01", stage="implement")
    clock.now += 30
    journal_line(journal, "stage_done", run_id=f"{LONG}-r01", stage="implement", wall_s=30.0,
                 completion_tokens=600, generation_s=12.0, prompt_tokens=2000, reasoning_tokens=0)
    progress.stage_started(f"{LONG}-r01", "repair")  # as the executor says it; the journal says it again
    journal_line(journal, "stage_started", run_id=f"{LONG}-r01", stage="repair")
    clock.now += 5
    return progress, clock, out


@pytest.mark.parametrize("width", [80, 120])
def test_the_display_fits_the_terminal_and_shows_runs_in_flight(tmp_path, width):
    progress, clock, out = display_after_a_resume(tmp_path, width)
    text = progress.render_to_text()
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]
    title = lines[0]
    assert title.startswith("bakeoff batch: 1/6 runs done, 1 running, about ") and "unknown" not in title
    assert "m" in title.split("about ")[1]  # a time: estimated from the first finished stage on
    row = next(line for line in lines if "4/6 repair" in line)  # the run in flight: its stage,
    assert "0m05s" in row and "600" in row and "50.0" in row  # time in the stage, tokens so far, tokens per s
    kept = next(line for line in lines if line.startswith("default-r01"))
    assert "kept" in kept and "0.712" in kept  # finished before this start: still in the table, with its score
    assert "4 runs waiting" in text
    if width >= 120:
        assert "qwen2.5-coder" in row  # the model column (at 80 columns the run's name carries it)
    progress.run_finished(slots()[1], record(f"{LONG}-r01", 0.65))
    after = progress.render_to_text().splitlines()
    assert any(line.startswith("last finished: ") and "f1=0.650" in line for line in after)
    assert all(len(line) <= width for line in after)


def test_a_resume_says_what_it_keeps_and_re_runs(tmp_path):
    progress, _, out = display_after_a_resume(tmp_path, 200)
    printed = out.getvalue()
    assert "resuming: 1 of 6 runs finished and kept, 5 to run" in printed
    assert f"{LONG}-r01: 2 stages kept (explore, decide); the rest of the run is re-run" in printed


def test_every_line_off_a_terminal_says_when_and_a_terminal_gets_none(tmp_path):
    _, _, out = display_after_a_resume(tmp_path, 200)  # a log file: every line starts with the UTC time
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \S", line) for line in lines), lines
    terminal = io.StringIO()
    progress = LiveProgress(Console(file=terminal, width=120, force_terminal=True, color_system=None), HEADLINE,
                            tmp_path / "events.jsonl", Clock(), stamp=lambda: "STAMP")
    progress.batch_started(BatchStart(tuple(slots()), finished={"default-r01": record("default-r01", 0.7)}))
    progress.__exit__(None, None, None)
    assert "resuming: 1 of 6 runs finished and kept" in terminal.getvalue() and "STAMP" not in terminal.getvalue()


def test_the_display_follows_the_journal_through_its_reader_and_a_damaged_line_never_stops_it(tmp_path):
    """The journal is read by the batch journal's own reader (entries_from): a line being written waits for its
    end; a damaged line (not the batch's: it names the damage itself when it reads the journal again) is passed
    over, and the lines after it are read."""
    journal = tmp_path / "events.jsonl"
    journal.write_text("")
    clock = Clock()
    progress = LiveProgress(Console(file=io.StringIO(), width=100), HEADLINE, journal, clock)
    order = slots()[:2]
    progress.batch_started(BatchStart(tuple(order)))
    progress.run_started(order[0])
    progress.stage_started("default-r01", "explore")
    with open(journal, "ab") as handle:
        handle.write(b'{"event": "stage_done", "run_id": "default-r01", "stage": "explore", "wall_s": 60')
    progress.render_to_text()
    assert progress.seconds_left() is None  # the cut line waits
    with open(journal, "ab") as handle:
        handle.write(b'.0}\n{"event": \n')  # its end, then a damaged line
    progress.render_to_text()
    assert progress.seconds_left() is not None  # the whole line was read
    journal_line(journal, "stage_done", run_id="default-r01", stage="decide", wall_s=30.0)
    progress.render_to_text()  # never raises
    journal_line(journal, "stage_done", run_id="default-r01", stage="implement", wall_s=30.0)
    progress.render_to_text()
    assert progress.seconds_left() is not None


def test_the_estimate_counts_the_stages_left_from_the_first_stage_on(tmp_path):
    journal = tmp_path / "events.jsonl"
    journal.write_text("")
    clock = Clock()
    progress = LiveProgress(Console(file=io.StringIO(), width=100), HEADLINE, journal, clock)
    order = slots()[:2]
    progress.batch_started(BatchStart(tuple(order)))
    progress.run_started(order[0])
    progress.stage_started("default-r01", "explore")
    assert progress.seconds_left() is None  # nothing measured yet: unknown
    clock.now += 60
    journal_line(journal, "stage_done", run_id="default-r01", stage="explore", wall_s=60.0)
    progress.stage_started("default-r01", "decide")
    progress.render_to_text()  # follows the journal
    # every stage as long as explore was: 5 stages left of this run (decide just started) and 6 of the waiting one
    assert progress.seconds_left() == pytest.approx(11 * 60.0)


def test_an_agent_run_shows_its_step_and_the_tokens_of_its_steps(tmp_path):
    journal = tmp_path / "events.jsonl"
    journal.write_text("")
    clock = Clock()
    progress = LiveProgress(Console(file=io.StringIO(), width=120), HEADLINE, journal, clock)
    agent = RunSlot(ModelEntry("default", "default"), 1, 1, "agent")
    progress.batch_started(BatchStart((agent,), stages=AGENT_STAGES))
    progress.run_started(agent)
    for step in (1, 2):
        progress.stage_started(agent.run_id, f"agent step {step}")  # what the loop tells the executor
        journal_line(journal, "step_started", run_id=agent.run_id, stage="agent", step=step)
        clock.now += 10
        journal_line(journal, "step_done", run_id=agent.run_id, stage="agent", step=step, capture="captured",
                     completion_tokens=150, generation_s=3.0)
    row = next(line for line in progress.render_to_text().splitlines() if line.startswith(agent.run_id))
    assert "agent step 2" in row and "300" in row and "50.0" in row  # 300 tokens in 6 s of generation


def test_an_interrupted_batch_says_where_it_stopped_and_journals_it(tmp_path):
    """The batch's own handling of KeyboardInterrupt (SIGINT, or SIGTERM as the command line turns it into one),
    with an executor that is interrupted in the middle of a run's decide stage."""
    from bakeoff.batchfolder.files import Journal, WriteCounter
    from bakeoff.runner.batch import BatchInterrupted, SilentProgress, _interrupted, _Tracker

    tracker = _Tracker(SilentProgress(), done=2)
    slot = slots()[0]
    tracker.run_started(slot)
    tracker.stage_started(slot.run_id, "decide")
    journal = Journal(tmp_path / "events.jsonl", WriteCounter())
    error = _interrupted(journal, tracker, total=6)
    assert isinstance(error, BatchInterrupted) and error.exit_code == 130
    assert "default-r01 in stage decide" in str(error) and "2 of 6 runs done" in str(error)
    assert "Run the same command to resume" in str(error)
    (entry,) = journal.entries()
    assert entry["event"] == "interrupted" and entry["runs"] == [{"run_id": "default-r01", "stage": "decide"}]


STAGE_ORDER = ["explore", "decide", "implement", "repair", "evaluate", "docs"]


def _wait_for_stage(events: Path, stage: str, process, timeout_s: float = 600.0) -> None:
    """Until this process's batch starts `stage` or a later one: the journal's earlier lines are another
    process's (a resumed batch appends), and a resumed run starts at the first stage it did not keep."""
    import time

    def lines() -> list[str]:
        return [line for line in events.read_text().splitlines() if line.strip().endswith("}")] if events.is_file() else []

    earlier = len(lines())
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the batch ended before {stage}: {process.returncode}")
        entries = [json.loads(line) for line in lines()[earlier:]]
        if any(entry.get("event") == "stage_started" and STAGE_ORDER.index(entry["stage"]) >= STAGE_ORDER.index(stage)
               for entry in entries):
            return
        time.sleep(0.2)
    raise AssertionError(f"no {stage} stage within {timeout_s} s")


def _stages_recorded(stages: Path) -> list[str]:
    """The stages whose records are on disk (n-stage.json), in order until the first missing or harness-failed one."""
    kept = []
    for index, name in enumerate(STAGE_ORDER, start=1):
        record = stages / f"{index}-{name}.json"
        if not record.is_file() or json.loads(record.read_text())["attribution"] == "harness_error":
            break
        kept.append(name)
    return kept


@pytest.mark.docker
@pytest.mark.slow
def test_sigint_and_sigterm_say_where_the_batch_stopped_and_it_resumes(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    from runner_support import REPO_ROOT, answers, implementation, make_tiny_corpus, write_plan, write_script

    corpus = make_tiny_corpus(tmp_path / "corpus")
    script = write_script(tmp_path / "answers.jsonl", answers(implementation()), copies=3)
    plan = write_plan(tmp_path / "plan.toml", corpus, script, runs=1)
    out = tmp_path / "batch"
    command = [str(Path(sys.executable).parent / "bakeoff"), "run", "--no-probes", "--plan", str(plan), "--out", str(out)]
    # both signals in the first stage a resumed run does not keep, or later: the stages after it take seconds, so
    # the signal lands inside the batch (a SIGTERM after the batch has ended is the default kill, -15)
    stage = "implement"
    for signum in (signal.SIGINT, signal.SIGTERM):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT,
                                   env=dict(os.environ))
        _wait_for_stage(out / "events.jsonl", stage, process)
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode == 130, (signum, stderr[-3000:])
        # a quick stage (repair with nothing to repair) may end before the signal lands: the message names
        # the stage the run was in, the one the journal records, never an earlier one
        last = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()][-1]
        assert last["event"] == "interrupted" and [run["run_id"] for run in last["runs"]] == ["scripted-r01"]
        stopped_in = last["runs"][0]["stage"]
        assert STAGE_ORDER.index(stopped_in) >= STAGE_ORDER.index(stage), (stage, stopped_in)
        assert f"interrupted: scripted-r01 in stage {stopped_in};" in stderr and "0 of 1 runs done" in stderr, stderr
        assert "Run the same command to resume" in stderr and "Traceback" not in stderr and "Aborted!" not in stderr
    # what the interrupted runs recorded is kept: the stage records on disk, in order up to the first gap or harness
    # failure (docs/records.md), read here before the resume. Where the signal lands decides how many (just after a
    # stage's record, even the last stage's, before the run's grade: then all six are kept and only grading is left),
    # and the resume must say exactly that many.
    kept = _stages_recorded(out / "runs" / "scripted-r01" / "stages")
    assert len(kept) >= STAGE_ORDER.index(stage), kept  # the signal came in implement or later
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    said = f"scripted-r01: {len(kept)} stages kept ({', '.join(kept)}); the rest of the run is re-run"
    assert said in done.stderr, (said, done.stderr[-2000:])
    assert json.loads((out / "runs" / "scripted-r01" / "run.json").read_text())["status"] == "finished"


def test_one_run_waiting_is_one_run_and_no_estimate_is_made_up(tmp_path):
    """Issue 38: '1 runs waiting' and 'about unknown left'. Before the first stage finishes the title says it is
    estimating; an agent run waits for its two stages (loop, evaluate), not the staged six."""
    journal = tmp_path / "events.jsonl"
    journal.write_text("")
    clock = Clock()
    progress = LiveProgress(Console(file=io.StringIO(), width=120, height=40), HEADLINE, journal, clock)
    agents = [RunSlot(ModelEntry("default", "default"), index, index, "agent") for index in (1, 2)]
    progress.batch_started(BatchStart(tuple(agents), stages=AGENT_STAGES))
    progress.run_started(agents[0])
    progress.stage_started(agents[0].run_id, "agent")
    text = progress.render_to_text()
    assert "1 run waiting" in text and "runs waiting" not in text
    assert text.splitlines()[0] == "bakeoff batch: 0/2 runs done, 1 running, estimating the time left"
    assert "unknown" not in text
    clock.now += 40
    journal_line(journal, "stage_done", run_id=agents[0].run_id, stage="agent", wall_s=40.0)
    progress.stage_started(agents[0].run_id, "evaluate")
    row = next(line for line in progress.render_to_text().splitlines() if line.startswith(agents[0].run_id))
    assert "2/2 evaluate" in row  # as `bakeoff status` says it
    # evaluate not measured yet: as long as the loop; this run's evaluate and the waiting run's loop and evaluate
    assert progress.seconds_left() == pytest.approx(3 * 40.0)


def test_a_run_long_without_an_answer_says_answers_are_not_streamed_and_the_note_goes_when_one_comes(tmp_path):
    """Issue 38: tokens that stand still for minutes looked like a hang. No backend streams: the display says so
    once a run has waited a minute on one answer, and says nothing once the answer is in."""
    journal = tmp_path / "events.jsonl"
    journal.write_text("")
    clock = Clock()
    progress = LiveProgress(Console(file=io.StringIO(), width=80), HEADLINE, journal, clock)
    order = slots()[:2]
    progress.batch_started(BatchStart(tuple(order)))
    progress.run_started(order[0])
    progress.stage_started("default-r01", "explore")
    clock.now += 59
    assert "not streamed" not in progress.render_to_text()  # under a minute: nothing to explain yet
    clock.now += 131
    text = progress.render_to_text()
    assert "default-r01: 3m10s since its last answer came in" in text.replace("\n", " ") and "not streamed" in text
    journal_line(journal, "stage_done", run_id="default-r01", stage="explore", wall_s=190.0, completion_tokens=400,
                 generation_s=180.0)
    progress.stage_started("default-r01", "decide")
    clock.now += 5
    assert "not streamed" not in progress.render_to_text()
