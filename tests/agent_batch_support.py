"""A scripted agent batch on the real Docker sandbox, for the tests of what reads an agent's runs downstream
(export, status, live display, report): one model under the agent scaffold, run 1 fixing its code and
submitting, run 2 running out of steps. While it runs, at every stage and step the live display says, the
live display's row of the run and `bakeoff status`'s reading of the folder at that moment are recorded."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import agent_support as agent
from runner_support import SANDBOX_LIMITS, bakeoff_cli, make_tiny_corpus, write_script

MAX_STEPS = 12


@dataclass
class Moment:
    run_id: str
    told: str  # what the batch told the display
    live_row: str  # the display's row of the run, as drawn
    live_title: str
    status: object  # bakeoff.runner.status.RunState of the run, read from the folder then


@dataclass
class Recorder:
    """The real live display, drawn and compared with the folder's status at each thing the batch tells it."""

    batch_dir: Path
    live: object = None
    moments: list[Moment] = field(default_factory=list)
    status_at_step_2: str = ""  # `bakeoff status` (the command) while the first run's loop is at its second step

    def __post_init__(self) -> None:
        from rich.console import Console

        from bakeoff.batchfolder.layout import BatchLayout
        from bakeoff.runner.progress import LiveProgress
        from bakeoff.tasks.spam_classifier.words import HEADLINE

        console = Console(file=io.StringIO(), width=200, height=60, force_terminal=False, color_system=None)
        self.live = LiveProgress(console, HEADLINE, BatchLayout(self.batch_dir).events)

    def batch_started(self, start) -> None:
        self.live.batch_started(start)

    def run_started(self, slot) -> None:
        self.live.run_started(slot)

    def stage_started(self, run_id, stage) -> None:
        from bakeoff.runner.status import read_status
        from bakeoff.scaffolds.registry import scaffold_plugin

        self.live.stage_started(run_id, stage)
        lines = self.live.render_to_text().splitlines()
        row = next(line for line in lines if line.startswith(run_id + " "))
        state = next(run for run in read_status(self.batch_dir, stages_of=lambda name: scaffold_plugin(name).stages).runs if run.run_id == run_id)
        self.moments.append(Moment(run_id, stage, row, lines[0], state))
        if not self.status_at_step_2 and stage == "agent step 2":
            done = bakeoff_cli("status", str(self.batch_dir), env_extra={"COLUMNS": "200"})
            assert done.returncode == 0, done.stderr
            self.status_at_step_2 = done.stdout

    def run_finished(self, slot, record) -> None:
        self.live.run_finished(slot, record)


def make_agent_batch(root: Path) -> tuple[Path, Recorder]:
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    corpus = make_tiny_corpus(root / "corpus")
    lines = agent.fixing("spam_classifier") + agent.exhausting("spam_classifier")
    script = write_script(root / "answers.jsonl", lines)
    plan = plan_from_mapping({
        "models": [{"label": "scripted", "spec": f"scripted:{script}"}], "corpus": str(corpus), "runs": 2, "seed": 3,
        "sandbox": "docker", "limits": SANDBOX_LIMITS, "task_settings": {"smoke_rows": 50},
        "scaffolds": ["agent"], "scaffold_settings": {"agent": {"max_steps": MAX_STEPS}},
    }, root)
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    recorder = Recorder(root / "batch")
    result = run_plan(plan, BatchOptions(out_dir=root / "batch", wheelhouse=wheelhouse), recorder)
    assert result.failed == 0
    return root / "batch", recorder
