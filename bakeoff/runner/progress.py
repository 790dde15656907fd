"""The live progress display of a batch (rich): each run's stage and outcome, and the time left."""

from __future__ import annotations

import time
from typing import Any

from bakeoff.records import RunRecord
from bakeoff.runner.plan import RunSlot
from bakeoff.runner.stages import STAGE_NAMES
from bakeoff.runner.status import describe_outcome, format_seconds
from bakeoff.taskapi.headline import HeadlineSpec


class LiveProgress:
    """A ProgressSink drawing a table that updates in place (plain lines when not on a terminal)."""

    def __init__(self, console=None, headline: HeadlineSpec | None = None) -> None:
        self.headline = headline  # how the task prints its number (the command line's plug-in)
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self._rows: dict[str, list[str]] = {}
        self._durations: list[float] = []
        self._run_started = 0.0
        self._left = 0
        self._live: Any = None  # a rich Live once the batch has started (rich is imported only then)

    def __enter__(self) -> LiveProgress:
        return self  # the display starts with the batch: a refusal before it (a locked folder...) prints alone

    def _start(self) -> None:
        from rich.live import Live

        if self._live is None:
            self._live = Live(self._render(), console=self.console, refresh_per_second=2, transient=False)
            self._live.__enter__()

    def __exit__(self, *exc_info: object) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.__exit__(*exc_info)

    def _render(self):
        from rich.table import Table
        from rich.text import Text

        from bakeoff.textsafe import printable

        left = self._left * (sum(self._durations) / len(self._durations)) if self._durations else None
        table = Table(title=f"bakeoff batch: {self._left} runs left, about {format_seconds(left)} to go")
        for column in ("run", "stage", "outcome"):
            table.add_column(column)
        for run_id, (stage, outcome) in self._rows.items():
            table.add_row(*(Text(printable(cell)) for cell in (run_id, stage, outcome)))  # record text is data
        return table

    def _refresh(self, line: str | None = None) -> None:
        if self._live is not None:
            self._live.update(self._render())
        if line and not self.console.is_terminal:
            from rich.text import Text

            from bakeoff.textsafe import printable

            self.console.print(Text(printable(line)))  # a log file gets one line per event instead of a redrawn table

    def batch_started(self, slots: list[RunSlot], finished: set[str]) -> None:
        for slot in slots:
            self._rows[slot.run_id] = ["done" if slot.run_id in finished else "waiting", ""]
        self._left = len(slots) - len(finished)
        self._start()
        self._refresh()

    def run_started(self, slot: RunSlot) -> None:
        self._run_started = time.monotonic()
        self._rows[slot.run_id] = ["starting", ""]
        self._refresh(f"{slot.run_id}: started ({self._left} runs left)")

    def stage_started(self, run_id: str, stage: str) -> None:
        position = f"{STAGE_NAMES.index(stage) + 1}/{len(STAGE_NAMES)} " if stage in STAGE_NAMES else ""  # an agent's step
        self._rows[run_id] = [f"{position}{stage}", ""]
        self._refresh(f"{run_id}: {stage}")

    def run_finished(self, slot: RunSlot, record: RunRecord) -> None:
        self._durations.append(time.monotonic() - self._run_started)
        self._left = max(0, self._left - 1)
        if record.finished:
            outcome = describe_outcome(record.outcome, self.headline)
        else:
            outcome = f"harness failure: {record.error}"
        self._rows[slot.run_id] = ["done", outcome]
        self._refresh(f"{slot.run_id}: {outcome}")
