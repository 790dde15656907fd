"""The live display of a batch (rich), drawn to the terminal's width: a title that never wraps, one row per run
finished or in flight (model, stage, time in the stage, tokens so far, tokens per second, outcome), how many
wait, the last finished run's headline and the time left, estimated from the first finished stage on.

It is told about runs by the batch (a ProgressSink) and follows the batch's journal for what happens inside
them (each `stage_done` carries its tokens and wall time), so it shows the same under every executor. Off a
terminal it prints one plain line per event instead of redrawing, each stamped with the UTC time (a log read in the
morning says when each run started and ended).
"""

from __future__ import annotations

import datetime as _dt
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.batchfolder.files import Journal
from bakeoff.records import STAGE_NAMES, RunRecord
from bakeoff.records.journal import JournalEvent
from bakeoff.runner.plan import RunSlot
from bakeoff.runner.status import describe_outcome, format_seconds, plural, stage_position
from bakeoff.taskapi.headline import HeadlineSpec

NARROW = 100  # below this many columns the model column is left out (the run's name starts with it)
# (least, most) characters of each column; the outcome takes what is left of the terminal's width
COLUMN_WIDTHS: dict[str, tuple[int, int | None]] = {
    "run": (8, 26), "model": (8, 24), "stage": (13, 18), "in stage": (8, 8), "tokens": (6, 7), "tok/s": (5, 6),
    "outcome": (12, None)}
MIN_FINISHED_ROWS = 4
QUIET_NOTE_S = 60.0  # a run this long without an answer coming in gets the display's note on why tokens stand still


def utc_stamp() -> str:
    """The UTC time to the second, as a log line off a terminal starts with it."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class RunRow:
    run_id: str
    model: str
    state: str = "waiting"  # waiting, running, done, kept (finished before this start), failed
    stage: str = ""  # as the batch says it: a stage, or a loop at its step ("<stage> step 3")
    stage_since: float | None = None  # the clock when the stage started (a loop's: not each step)
    stages: tuple[str, ...] = STAGE_NAMES  # its scaffold's, in order (BatchStart.stages)
    tokens: int = 0  # generated so far (reasoning included)
    generation_s: float = 0.0
    outcome: str = ""
    finished_at: float = 0.0
    heard_at: float | None = None  # the clock when a stage started or an answer's tokens last came in

    @property
    def tokens_per_s(self) -> float | None:
        return self.tokens / self.generation_s if self.generation_s > 0 else None

    @property
    def stage_index(self) -> int:
        return _stage_index(self.stages, self.stage)


def _stage_index(stages: tuple[str, ...], activity: str) -> int:
    """The place of the stage an activity is in among a scaffold's stages (-1: none of them, as 'starting')."""
    name = activity.split(" ", 1)[0]
    return stages.index(name) if name in stages else -1


class LiveProgress:
    """A ProgressSink drawing a table that updates in place (plain lines when not on a terminal).

    `journal` is the batch's events.jsonl, followed for the stages' tokens; `clock` is monotonic seconds;
    `stamp` the wall time a line off a terminal starts with."""

    def __init__(self, console=None, headline: HeadlineSpec | None = None, journal: Path | None = None,
                 clock: Callable[[], float] = time.monotonic, stamp: Callable[[], str] = utc_stamp,
                 closing: Callable[[], Sequence[str]] | None = None) -> None:
        self.headline = headline  # how the task prints its number (the command line's plug-in)
        # The display's last lines, asked for when the batch has ended (the command line's: why a model scored
        # nothing or little, bakeoff.analysis.why, which this layer does not import).
        self.closing = closing
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self.journal = journal
        self.clock = clock
        self.stamp = stamp
        self._rows: dict[str, RunRow] = {}
        self._stage_seconds: dict[str, list[float]] = {}
        self._last: RunRow | None = None
        self._offset = 0
        self._lock = threading.RLock()  # the Live's refresh thread renders while the batch reports
        self._live: Any = None  # a rich Live once the batch has started (rich is imported only then)

    def __enter__(self) -> LiveProgress:
        return self  # the display starts with the batch: a refusal before it (a locked folder...) prints alone

    def __exit__(self, *exc_info: object) -> None:
        if self._live is not None:
            self._live.refresh()
            self._live.__exit__(*exc_info)
            self._live = None
        elif self._rows:
            self._print(self.title())  # a log's last line: where the batch stands
        if exc_info[0] is None and self._rows and self.closing is not None:  # an interrupted batch just stops
            for line in self.closing():
                self._print(line)

    # -- what the batch says ---------------------------------------------------------------------

    def batch_started(self, start) -> None:
        """`start` is a bakeoff.runner.batch.BatchStart: the slots, the runs finished before, what a resume keeps."""
        with self._lock:
            for slot in start.slots:
                self._rows[slot.run_id] = RunRow(slot.run_id, slot.model.label, stages=start.stages_of(slot))
            for run_id, record in start.finished.items():
                row = self._rows.get(run_id)
                if row is not None:
                    row.state, row.outcome = "kept", self._outcome(record)
                    row.tokens = record.tokens.completion
            if self.journal is not None and self.journal.is_file():
                self._offset = self.journal.stat().st_size  # only what this start appends is new
        for line in start.resume_lines():
            self._print(line)  # above the table, kept in the scrollback
        self._start()

    def run_started(self, slot: RunSlot) -> None:
        with self._lock:
            row = self._row(slot.run_id, slot.model.label)
            row.state, row.stage, row.stage_since = "running", "starting", self.clock()
        self._refresh(f"{slot.run_id}: started ({plural(self._left(), 'run')} left)")

    def stage_started(self, run_id: str, stage: str) -> None:
        if self._set_stage(run_id, stage):
            self._refresh(f"{run_id}: {stage}")

    def _set_stage(self, run_id: str, stage: str, from_journal: bool = False) -> bool:
        """False when the run was already in this stage (told by the batch and again by the journal), or, read
        from the journal, in a later one (the journal is read after the batch said so)."""
        with self._lock:
            row = self._row(run_id)
            if row.stage == stage and row.state == "running":
                return False
            was = row.stage_index
            told = _stage_index(row.stages, stage)
            if from_journal and row.state == "running" and told <= was and told >= 0:
                return False  # the journal's stage_started of the stage (or an earlier one) the batch already said
            if row.state != "running" or told != was or row.stage_since is None:
                row.stage_since = self.clock()  # a new stage (a loop's next step is the same stage)
            row.state, row.stage = "running", stage
            row.heard_at = self.clock()
            return True

    def stage_done(self, run_id: str, stage: str, fields: JournalEvent) -> None:
        with self._lock:
            row = self._row(run_id)
            if fields.wall_s is not None:
                self._stage_seconds.setdefault(stage, []).append(fields.wall_s)
            self._heard(row, fields)

    def step_done(self, run_id: str, fields: JournalEvent) -> None:
        with self._lock:
            self._heard(self._row(run_id), fields)

    def _heard(self, row: RunRow, fields: JournalEvent) -> None:
        """An answer's tokens came in (a stage's or a loop step's)."""
        row.tokens += fields.completion_tokens
        row.generation_s += fields.generation_s
        row.heard_at = self.clock()

    def run_finished(self, slot: RunSlot, record: RunRecord) -> None:
        self._follow()  # the run's last stage_done lines come before its end
        with self._lock:
            row = self._row(slot.run_id, slot.model.label)
            row.state = "done" if record.finished else "failed"
            row.stage, row.stage_since, row.finished_at = "", None, self.clock()
            row.outcome = self._outcome(record)
            self._last = row
        self._refresh(f"{slot.run_id}: {row.outcome}")

    def _outcome(self, record: RunRecord) -> str:
        if record.finished:
            return describe_outcome(record.outcome, self.headline)
        return f"harness failure: {record.error}"

    def _row(self, run_id: str, model: str | None = None) -> RunRow:
        row = self._rows.get(run_id)
        if row is None:
            row = self._rows[run_id] = RunRow(run_id, model or run_id.rsplit("-r", 1)[0])
        return row

    # -- the journal -----------------------------------------------------------------------------

    def _follow(self) -> None:
        """Read the journal lines appended since the last look (a line still being written waits)."""
        if self.journal is None or not self.journal.is_file():
            return
        with self._lock:
            # A damaged line is passed over: the batch names it when it reads the journal again, not the display.
            entries, self._offset = Journal(self.journal).events_from(self._offset, pass_over_damage=True)
        for entry in entries:
            run_id, stage = entry.run_id, entry.stage
            if run_id is None or stage is None:
                continue
            if entry.event == "stage_started":
                self._set_stage(run_id, stage, from_journal=True)  # quietly: this runs inside a redraw
            elif entry.event == "stage_done":
                self.stage_done(run_id, stage, entry)
            elif entry.event == "step_done":  # a loop's step: its tokens count, its time is the loop's
                self.step_done(run_id, entry)

    # -- estimates -------------------------------------------------------------------------------

    def _left(self) -> int:
        return sum(row.state in ("waiting", "running") for row in self._rows.values())

    def _stage_estimate(self, stage: str) -> float | None:
        seen = self._stage_seconds.get(stage)
        if seen:
            return sum(seen) / len(seen)
        means = [sum(v) / len(v) for v in self._stage_seconds.values() if v]
        return sum(means) / len(means) if means else None  # a stage not seen yet: as long as the others

    def seconds_left(self) -> float | None:
        """The stages still to run, each as long as its kind took so far, over the runs in flight at once."""
        if not self._stage_seconds:
            return None
        total = 0.0
        now = self.clock()
        for row in self._rows.values():
            if row.state == "waiting":
                stages = list(row.stages)
            elif row.state == "running":
                current = row.stage_index
                stages = list(row.stages[current + 1:])
                if current >= 0:
                    spent = now - (row.stage_since or now)
                    total += max(0.0, (self._stage_estimate(row.stages[current]) or 0.0) - spent)
            else:
                continue
            total += sum(self._stage_estimate(stage) or 0.0 for stage in stages)
        running = sum(row.state == "running" for row in self._rows.values())
        return total / max(1, running)

    # -- drawing ---------------------------------------------------------------------------------

    def title(self) -> str:
        done = sum(row.state in ("done", "kept", "failed") for row in self._rows.values())
        running = sum(row.state == "running" for row in self._rows.values())
        left = self.seconds_left()
        # no estimate before the first stage has finished: none is made up
        estimate = f"about {format_seconds(left)} left" if left is not None else "estimating the time left"
        return f"bakeoff batch: {done}/{len(self._rows)} runs done, {running} running, {estimate}"

    def _render(self):
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        from bakeoff.textsafe import printable

        self._follow()
        with self._lock:
            width = self.console.width
            narrow = width < NARROW
            table = Table(box=None, pad_edge=False, expand=True, show_edge=False, header_style="bold")
            for name in ("run", *(() if narrow else ("model",)), "stage", "in stage", "tokens", "tok/s", "outcome"):
                low, high = COLUMN_WIDTHS[name]
                high = min(high, 20) if narrow and name == "run" and high else high
                table.add_column(name, no_wrap=True, overflow="ellipsis", min_width=low, max_width=high,
                                 justify="right" if name in ("in stage", "tokens", "tok/s") else "left",
                                 ratio=1 if name == "outcome" else None)
            finished = [row for row in self._rows.values() if row.state in ("done", "kept", "failed")]
            running = [row for row in self._rows.values() if row.state == "running"]
            waiting = sum(row.state == "waiting" for row in self._rows.values())
            room = max(MIN_FINISHED_ROWS, self.console.height - len(running) - 8)
            hidden = max(0, len(finished) - room)
            for row in sorted(finished, key=lambda r: (r.state != "kept", r.finished_at))[hidden:] + running:
                cells = [row.run_id, *(() if narrow else (row.model,)), self._stage_cell(row), self._elapsed(row),
                         str(row.tokens) if row.tokens else "", _rate(row.tokens_per_s), self._outcome_cell(row)]
                table.add_row(*(Text(printable(cell)) for cell in cells))  # record text is data, never markup
            lines: list[Any] = [Text(printable(self.title()), no_wrap=True, overflow="ellipsis")]
            if hidden:
                lines.append(Text(f"... {plural(hidden, 'earlier run')} done", style="dim", no_wrap=True, overflow="ellipsis"))
            lines.append(table)
            if waiting:
                lines.append(Text(f"{plural(waiting, 'run')} waiting", no_wrap=True, overflow="ellipsis"))
            quiet = self._quiet_note(running)
            if quiet:
                lines.append(Text(printable(quiet), style="dim", overflow="fold"))
            if self._last is not None:
                lines.append(Text(printable(f"last finished: {self._last.outcome} ({self._last.run_id})"),
                                  no_wrap=True, overflow="ellipsis"))
            return Group(*lines)

    def _quiet_note(self, running: list[RunRow]) -> str:
        """Why tokens stand still: no backend streams, so an answer's tokens come when it ends, and a long answer
        looks like a hang. Said once a run has waited QUIET_NOTE_S on one."""
        quiet = [(self.clock() - row.heard_at, row) for row in running if row.heard_at is not None]
        quiet = [(seconds, row) for seconds, row in quiet if seconds >= QUIET_NOTE_S]
        if not quiet:
            return ""
        seconds, row = max(quiet, key=lambda pair: pair[0])
        others = f" (and {plural(len(quiet) - 1, 'other run')})" if len(quiet) > 1 else ""
        return (f"{row.run_id}{others}: {format_seconds(seconds)} since its last answer came in. Answers are not "
                "streamed: their tokens are counted when they end, so a long answer shows none until then; a stuck "
                "one ends at the stage's timeout.")

    def _stage_cell(self, row: RunRow) -> str:
        if row.state == "kept":
            return "kept"
        if row.state in ("done", "failed"):
            return "done"
        return stage_position(row.stages, row.stage)  # as `bakeoff status` words it

    def _elapsed(self, row: RunRow) -> str:
        if row.state != "running" or row.stage_since is None:
            return ""
        return format_seconds(self.clock() - row.stage_since)

    def _outcome_cell(self, row: RunRow) -> str:
        return row.outcome  # a run finished before this start says "kept" in its stage column

    def _start(self) -> None:
        from rich.live import Live

        if self._live is None and self.console.is_terminal:
            self._live = Live(get_renderable=self._render, console=self.console, refresh_per_second=2, transient=False)
            self._live.__enter__()
        elif not self.console.is_terminal:
            self._print(self.title())

    def _refresh(self, line: str | None = None) -> None:
        if self._live is not None:
            self._live.refresh()
        elif line:
            self._print(line)  # a log file gets one line per event instead of a redrawn table

    def _print(self, line: str) -> None:
        from rich.text import Text

        from bakeoff.textsafe import printable

        if not self.console.is_terminal:
            line = f"{self.stamp()} {line}"  # a terminal shows the time in its table; a log says when, line by line
        self.console.print(Text(printable(line)), soft_wrap=True)  # never cut nor broken: a log keeps every word

    def render_to_text(self) -> str:
        """The display as it would be drawn now, as text of the console's width (for tests and logs)."""
        with self.console.capture() as capture:
            self.console.print(self._render())
        return capture.get()


def _rate(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"
