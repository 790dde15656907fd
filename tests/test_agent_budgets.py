"""Each of the agent's budgets ends its loop, by name, once spent (bakeoff.scaffolds.agent.loop.budget_spent, the
check the loop makes before every step); the step budget is also run end to end in tests/test_agent_batch.py."""

from __future__ import annotations

import pytest

from bakeoff.records import LoopEnd, LoopUsage
from bakeoff.scaffolds.agent.loop import budget_spent
from bakeoff.scaffolds.agent.settings import AgentSettings

SETTINGS = AgentSettings(max_steps=10, max_tokens=1000, wall_s=60.0, cpu_s=30.0)
UNDER = LoopUsage(steps=9, tokens=999, wall_s=59.9, cpu_s=29.9)


def test_under_every_budget_the_loop_goes_on():
    assert budget_spent(LoopUsage(), SETTINGS) is None
    assert budget_spent(UNDER, SETTINGS) is None


@pytest.mark.parametrize(
    ("spent", "ends"),
    [
        (LoopUsage(steps=10, tokens=999, wall_s=59.9, cpu_s=29.9), LoopEnd.STEPS),
        (LoopUsage(steps=9, tokens=1000, wall_s=59.9, cpu_s=29.9), LoopEnd.TOKENS),
        (LoopUsage(steps=9, tokens=999, wall_s=60.0, cpu_s=29.9), LoopEnd.WALL),
        (LoopUsage(steps=9, tokens=999, wall_s=59.9, cpu_s=30.0), LoopEnd.CPU),
        (LoopUsage(steps=9, tokens=5000, wall_s=59.9, cpu_s=29.9), LoopEnd.TOKENS),  # overshot by the last answer
    ],
)
def test_each_budget_spent_alone_ends_the_loop_by_its_name(spent, ends):
    assert budget_spent(spent, SETTINGS) is ends


def test_when_several_are_spent_the_first_checked_is_named():
    assert budget_spent(LoopUsage(steps=10, tokens=1000, wall_s=60.0, cpu_s=30.0), SETTINGS) is LoopEnd.STEPS
    assert budget_spent(LoopUsage(steps=1, tokens=1000, wall_s=60.0, cpu_s=30.0), SETTINGS) is LoopEnd.TOKENS
    assert budget_spent(LoopUsage(steps=1, tokens=1, wall_s=60.0, cpu_s=30.0), SETTINGS) is LoopEnd.WALL
