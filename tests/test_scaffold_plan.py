"""Scaffolds as a plan axis: each (model, scaffold) is a row of runs, interleaved with the same seeds; a staged-only
plan keeps its hash and run ids; what a plan may say about scaffolds, and what is refused, with which message."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_support import bakeoff_cli

from bakeoff.records import Plan
from bakeoff.runner.batch import check_scaffolds
from bakeoff.runner.plan import PlanError, plan_from_mapping, run_order
from bakeoff.runner.scaffold import ScaffoldSettingsError
from bakeoff.scaffolds.agent.settings import agent_settings, check_agent
from bakeoff.scaffolds.registry import UnknownScaffold, scaffold_plugin, scaffolds_for
from bakeoff.tasks.registry import task_names, task_plugin

MODELS = ["scripted:/x/a.jsonl", {"spec": "gguf:/m/qwen2.5-7b.Q4_K_M.gguf", "label": "qwen", "reasoning": "off"}]
# The hash this plan had before scaffolds existed (computed by that bakeoff, where a plan that named no task had
# the default one): a staged plan, its task named as a batch names it, keeps it.
STAGED_HASH = "36297718b61696ef1764f6c59e06ef8c646ee6a60856945c92704296bde595e3"


def plan(**overrides) -> Plan:
    return plan_from_mapping({"models": MODELS, "corpus": "c", "runs": 2, **overrides}, Path("/base"))


def test_a_staged_plan_keeps_its_hash_and_its_run_ids():
    for staged in (plan(task="spam_classifier"), plan(task="spam_classifier", scaffolds=["staged"])):
        assert staged.sha256() == STAGED_HASH
        assert "scaffolds" not in staged.to_dict() and "scaffold_settings" not in staged.to_dict()
        assert [s.run_id for s in run_order(staged)] == ["a-r01", "qwen-r01", "a-r02", "qwen-r02"]


def test_each_model_under_each_scaffold_is_a_row_interleaved_with_shared_seeds():
    both = plan(scaffolds=["staged", "agent"], scaffold_settings={"agent": {"max_steps": 8}})
    order = run_order(both)
    assert [s.run_id for s in order] == ["a-r01", "a-agent-r01", "qwen-r01", "qwen-agent-r01",
                                         "a-r02", "a-agent-r02", "qwen-r02", "qwen-agent-r02"]
    assert {s.seed for s in order if s.index == 1} == {order[0].seed} and order[0].seed != order[4].seed
    assert both.sha256() != STAGED_HASH
    again = Plan.from_json(both.to_dict())  # what batch.json keeps reads back as the same plan
    assert again.scaffolds == ("staged", "agent") and again.scaffold_settings == {"agent": {"max_steps": 8}}
    assert again.sha256() == both.sha256()


@pytest.mark.parametrize(("overrides", "message"), [
    ({"scaffolds": []}, "scaffolds must be a list"),
    ({"scaffolds": ["agent", "agent"]}, "lists a scaffold twice"),
    ({"scaffolds": ["Agent!"]}, "is not a name"),
    ({"scaffold_settings": {"agent": {"max_steps": 3}}}, "a scaffold the plan does not run"),
    ({"scaffolds": ["agent"], "scaffold_settings": {"agent": 3}}, "must be a table"),
    ({"models": ["scripted:/x/a.jsonl", {"spec": "scripted:/x/b.jsonl", "label": "a-agent"}],
      "scaffolds": ["staged", "agent"]}, "share the name a-agent"),
])
def test_bad_scaffold_plans_are_named_errors(overrides, message):
    with pytest.raises(PlanError, match=message):
        plan(**overrides)


def test_the_batch_refuses_a_scaffold_it_was_not_handed_or_settings_the_scaffold_does_not_take():
    task = task_plugin("spam_classifier").spec()
    agent_plan = plan(scaffolds=["staged", "agent"], scaffold_settings={"agent": {"max_steps": 0}})
    with pytest.raises(PlanError, match="which the batch was not handed"):
        check_scaffolds(agent_plan, task, None)
    with pytest.raises(PlanError, match=r"bad \[scaffold_settings.agent\]: max_steps must be a whole number > 0"):
        check_scaffolds(agent_plan, task, scaffolds_for(agent_plan.scaffolds))
    with pytest.raises(PlanError, match="unknown key"):
        check_scaffolds(plan(scaffolds=["agent"], scaffold_settings={"agent": {"steps": 3}}), task,
                        scaffolds_for(["agent"]))
    with pytest.raises(PlanError, match="takes no settings"):
        check_scaffolds(plan(scaffolds=["staged"], scaffold_settings={"staged": {"x": 1}}), task,
                        scaffolds_for(["staged"]))


def test_the_agent_needs_the_task_s_brief_and_room_for_its_conversation():
    task = task_plugin("ab_test").spec()
    check_agent({}, task)
    without = type(task)(task.name, task.folder, task.system, task.statement,
                         {k: v for k, v in task.prompts.items() if k != "agent"}, task.settings)
    with pytest.raises(ScaffoldSettingsError, match="has no brief for an agent"):
        check_agent({}, without)
    with pytest.raises(PlanError, match=r"scaffold agent cannot run task ab_test: task ab_test has no brief for an "
                                        r"agent \(task_specs/ab_test/prompts/agent.md\)"):
        check_scaffolds(plan(task="ab_test", scaffolds=["agent"]), without, scaffolds_for(["agent"]))
    with pytest.raises(ScaffoldSettingsError, match="leaves no room"):
        check_agent({"step_tokens": 20000}, task)
    assert agent_settings({"wall_s": 60}).wall_s == 60.0
    with pytest.raises(ScaffoldSettingsError):
        agent_settings({"cpu_s": True})


def test_every_task_has_a_brief_for_the_agent_and_a_plan_of_each_is_taken():
    assert "simulation" in task_names()
    for name in task_names():
        task = task_plugin(name).spec()
        check_agent({}, task)
        check_scaffolds(plan(task=name, scaffolds=["staged", "agent"]), task, scaffolds_for(["staged", "agent"]))


def test_scaffolds_are_found_by_name():
    assert scaffold_plugin("agent").stages == ("agent", "evaluate")
    assert scaffold_plugin("staged").stages[0] == "explore"
    with pytest.raises(UnknownScaffold, match="known scaffolds: staged, agent"):
        scaffold_plugin("swarm")


def test_the_command_line_names_an_unknown_scaffold_and_refuses_agents_on_ray(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text('models = ["scripted:/x.jsonl"]\nruns = 1\ncorpus = "c"\nscaffolds = ["swarm"]\n')
    result = bakeoff_cli("run", "--plan", str(path), "--out", str(tmp_path / "out"))
    assert result.returncode != 0 and "error: UnknownScaffold: no scaffold named 'swarm'" in result.stderr
    assert "Traceback" not in result.stderr
    path.write_text('models = ["scripted:/x.jsonl"]\nruns = 1\ncorpus = "c"\nscaffolds = ["agent"]\n')
    result = bakeoff_cli("run", "--plan", str(path), "--executor", "ray", "--out", str(tmp_path / "out"))
    assert result.returncode != 0 and "error: PlanError: the Ray executor runs staged runs only" in result.stderr
