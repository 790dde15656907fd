"""Each take-home as the batch tests parametrize over it: its tiny data, its scripted answers, what its outcome keeps.

The spam case is exactly what the batch tests used before they were parametrized (the same corpus, answers
and plan), so what they assert for the spam take-home is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ab_runner_support as ab
import runner_support as spam
import sim_runner_support as sim


@dataclass(frozen=True)
class TaskCase:
    task: str
    make_data: Callable[[Path], Path]
    working: list[dict]  # answers of a submission that works from the start
    crash_then_repair: list[dict]  # answers whose first code crashes and whose repair turn fixes it
    outcome_keys: tuple[str, ...]  # run.json outcome fields two identical batches must agree on
    status_word: str  # what `bakeoff status` prints for a scored run
    models_table: str  # the report's per-model table (tables/<name>.csv): graded, uncaptured_runs, capture_rate
    own_settings: dict  # the task's own [task_settings] the batch tests set (another task refuses them)

    @property
    def plan_task(self) -> str | None:
        """The plan's task line: none for spam, so its plans (and their hashes) stay as they were."""
        return None if self.task == "spam_classifier" else self.task


SPAM = TaskCase(
    task="spam_classifier",
    make_data=spam.make_tiny_corpus,
    working=spam.answers(spam.implementation()),
    crash_then_repair=spam.answers(spam.implementation(spam.TRAIN_CRASHING), spam.implementation()),
    outcome_keys=("headline", "metrics", "claim"),
    status_word="scored f1=",
    models_table="models",
    own_settings={"smoke_rows": 50},
)
AB_TEST = TaskCase(
    task="ab_test",
    make_data=ab.make_tiny_ab_data,
    working=ab.ab_answers(ab.implementation(ab.BY_USER)),
    crash_then_repair=ab.ab_answers(ab.implementation(ab.CRASHING), ab.implementation(ab.BY_USER)),
    outcome_keys=("headline", "metrics", "claim"),
    status_word="scored winkler=",
    models_table="ab_models",
    own_settings={},
)
SIMULATION = TaskCase(
    task="simulation",
    make_data=sim.make_tiny_sim_data,
    working=sim.sim_answers(sim.implementation(sim.CAREFUL_FIXED)),  # two runs of it must agree: a fixed length
    crash_then_repair=sim.sim_answers(sim.implementation(sim.CRASHING), sim.implementation(sim.CAREFUL_FIXED)),
    outcome_keys=("headline", "metrics", "claim"),
    status_word="scored relative_winkler=",
    models_table="sim_models",
    own_settings={},
)
CASES = (SPAM, AB_TEST, SIMULATION)
CASE_IDS = tuple(case.task for case in CASES)
